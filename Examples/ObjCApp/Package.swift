// swift-tools-version:5.9
//
// The Objective-C example's sources, depending on CrashShield as an app does. A real iOS app is an Xcode project:
// Examples/README.md says how to make one from these sources. This package exists so that the sources are compiled
// for iOS on every change (scripts/check-examples.sh; on a Mac, xcodebuild in .github/workflows/apple.yml).
//
// The app is a library target, not an executable target: Xcode builds a package's executable as a command-line
// tool, a product type iOS does not have ("unable to resolve product type 'com.apple.product-type.tool' for platform
// 'iphonesimulator'"), so xcodebuild could not build it for the simulator.
import PackageDescription

let package = Package(
    name: "ObjCApp",
    platforms: [.iOS(.v13)],
    products: [.library(name: "ObjCApp", targets: ["ObjCApp"])],
    dependencies: [
        // An app writes .package(url: "https://github.com/<org>/CrashShield", from: "0.1.0"). Here: this checkout.
        // `name:` keeps `package: "CrashShield"` valid whatever the checkout's folder is called.
        .package(name: "CrashShield", path: "../..")
    ],
    targets: [
        // An app has no public headers, but SwiftPM wants a folder for them: the target's own.
        .target(
            name: "ObjCApp", dependencies: [.product(name: "CrashShieldObjC", package: "CrashShield")],
            publicHeadersPath: ".")
    ]
)
