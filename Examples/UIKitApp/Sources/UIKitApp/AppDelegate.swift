import CrashShield
import UIKit

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    var window: UIWindow?

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        startCrashShield()
        window = UIWindow(frame: UIScreen.main.bounds)
        window?.rootViewController = UINavigationController(rootViewController: BadCallsViewController())
        window?.makeKeyAndVisible()
        return true
    }

    /// First thing at launch, before any code that could make a bad call.
    private func startCrashShield() {
        CrashReporting.setAsideReportsOfEarlierRuns()  // before this run's store writes to the file again
        do {
            #if DEBUG
            try CrashShield.start(.debug)  // report, then fail loudly at the bad call
            #else
            try CrashShield.start(CrashReporting.productionConfiguration())  // recover and report
            #endif
        } catch {
            // A configuration mistake (CrashShieldError says what to change): the app runs as it would without
            // CrashShield, nothing stays installed.
            NSLog("CrashShield did not start: %@", String(describing: error))
        }
        RemoteFlags.applyKillSwitch()
        CrashReporting.uploadReportsOfEarlierRuns()
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        RemoteFlags.applyKillSwitch()  // remote configuration may have changed while the app was in the background
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        CrashShield.flush(timeout: 1)  // hand the latest counts to the sinks (the file) before iOS suspends the app
    }
}
