// The app's main(). Xcode's template names this file main.m; in a SwiftPM package a main.m would make the target an
// executable, which Xcode cannot build for iOS (see Package.swift).
#import <UIKit/UIKit.h>
#import "AppDelegate.h"

int main(int argc, char *argv[]) {
    NSString *appDelegateClassName;
    @autoreleasepool {
        appDelegateClassName = NSStringFromClass([AppDelegate class]);
    }
    return UIApplicationMain(argc, argv, nil, appDelegateClassName);
}
