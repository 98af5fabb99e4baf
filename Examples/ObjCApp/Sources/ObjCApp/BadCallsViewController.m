#import "BadCallsViewController.h"
@import CrashShieldObjC;
#import "AppDelegate.h"
#import "BadCalls.h"
#import "CrashReporting.h"

@implementation BadCallsViewController {
    NSArray<BadCall *> *_calls;
    UILabel *_output;
    UILabel *_status;
}

- (void)viewDidLoad {
    [super viewDidLoad];
    self.title = @"CrashShield";
    self.view.backgroundColor = UIColor.systemBackgroundColor;
    _calls = [BadCall all];
    UIStackView *stack = [UIStackView new];
    stack.axis = UILayoutConstraintAxisVertical;
    stack.spacing = 12;
    stack.translatesAutoresizingMaskIntoConstraints = NO;
    [_calls enumerateObjectsUsingBlock:^(BadCall *call, NSUInteger index, BOOL *stop) {
        UIButton *button = [UIButton buttonWithType:UIButtonTypeSystem];
        [button setTitle:call.title forState:UIControlStateNormal];
        button.tag = (NSInteger)index;
        [button addTarget:self action:@selector(makeBadCall:) forControlEvents:UIControlEventTouchUpInside];
        [stack addArrangedSubview:button];
    }];
    BOOL killed = CrashReportingIsKilledRemotely();
    [stack addArrangedSubview:[self rowWithTitle:@"CrashShield (remote flag)" on:!killed action:@selector(killSwitchChanged:)]];
    [stack addArrangedSubview:[self rowWithTitle:@"Share crash reports" on:CrashReportingSharesReports()
                                          action:@selector(sharingChanged:)]];
    _status = [UILabel new];
    [stack addArrangedSubview:_status];
    [self showStatus];
    // Bound to self: removed when this controller is deallocated, nothing to remove in -dealloc. The block gets the
    // controller as `owner`, so it captures nothing strongly.
    [self cs_observeNotificationName:CrashShieldStatusDidChangeNotification
                          usingBlock:^(NSNotification *note, BadCallsViewController *owner) { [owner showStatus]; }];
    _output = [UILabel new];
    _output.numberOfLines = 0;
    _output.font = [UIFont preferredFontForTextStyle:UIFontTextStyleFootnote];
#if DEBUG
    _output.text = @"Debug build: a bad call is reported, then fails as it would without CrashShield. "
                   @"Run the Release configuration to see the app recover.";
#else
    _output.text = @"Release build: a bad call is stopped and reported; the app keeps running.";
#endif
    [stack addArrangedSubview:_output];
    [self.view addSubview:stack];
    [NSLayoutConstraint activateConstraints:@[
        [stack.topAnchor constraintEqualToAnchor:self.view.safeAreaLayoutGuide.topAnchor constant:20],
        [stack.leadingAnchor constraintEqualToAnchor:self.view.layoutMarginsGuide.leadingAnchor],
        [stack.trailingAnchor constraintEqualToAnchor:self.view.layoutMarginsGuide.trailingAnchor],
    ]];
}

- (void)showStatus {
    _status.text = CSShield.isRunning ? @"CrashShield is running." : @"CrashShield is off.";
}

- (UIView *)rowWithTitle:(NSString *)title on:(BOOL)on action:(SEL)action {
    UILabel *label = [UILabel new];
    label.text = title;
    UISwitch *toggle = [UISwitch new];
    toggle.on = on;
    [toggle addTarget:self action:action forControlEvents:UIControlEventValueChanged];
    return [[UIStackView alloc] initWithArrangedSubviews:@[label, toggle]];
}

- (AppDelegate *)appDelegate {
    return (AppDelegate *)UIApplication.sharedApplication.delegate;
}

/// What a remote change of the flag does.
- (void)killSwitchChanged:(UISwitch *)toggle {
    [NSUserDefaults.standardUserDefaults setBool:!toggle.on forKey:CrashReportingKilledKey];
    [[self appDelegate] applyKillSwitch];
    _output.text = toggle.on ? @"Bad calls are stopped." : @"Bad calls crash as they would without CrashShield.";
}

- (void)sharingChanged:(UISwitch *)toggle {
    // The report block reads the choice for each report: nothing to re-register.
    [NSUserDefaults.standardUserDefaults setBool:toggle.on forKey:CrashReportingSharesReportsKey];
}

- (void)makeBadCall:(UIButton *)button {
    _output.text = [_calls[(NSUInteger)button.tag] run];   // the crash service's log line shows the report
}

@end
