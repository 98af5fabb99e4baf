import CrashShield
import CrashShieldScenarios

/// A catalog scenario, as Swift sees it.
public struct Scenario: Sendable, Equatable {
    public let name: String
    public let category: String
    public let selector: String
    public let exception: String
    public let expectedResult: String
    public let expectedReports: Int
    /// The platform's message is undefined for this call (see the catalog): every check but the reason applies.
    public let reasonIsUndefined: Bool
    let run: @convention(c) () -> UnsafePointer<CChar>?

    public static func == (lhs: Scenario, rhs: Scenario) -> Bool { lhs.name == rhs.name }

    /// Every scenario in the catalog.
    public static let all: [Scenario] = {
        var count: Int32 = 0
        guard let table = css_scenarios(&count) else { return [] }
        return (0..<Int(count)).map { index in
            let raw = table[index]
            return Scenario(
                name: String(cString: raw.name), category: String(cString: raw.category),
                selector: String(cString: raw.selector), exception: String(cString: raw.exception),
                expectedResult: String(cString: raw.expectedResult), expectedReports: Int(raw.expectedReports),
                reasonIsUndefined: raw.reasonIsUndefined, run: raw.run)
        }
    }()

    public static func named(_ name: String) -> Scenario? { all.first { $0.name == name } }

    /// The configuration of a protected run: every guard, release mode; the catalog's stand-in for UIView (CSSView,
    /// UIKit does not exist here) has its layout and display methods main-thread-only, as UIView has by default.
    public static func protectedConfiguration(sinks: [any ReportSink]) -> Configuration {
        var configuration = Configuration(guards: .all, mode: .release, sinks: sinks)
        configuration.mainThreadOnlyMethods["CSSView"] = catalogViewMethods
        return configuration
    }

    /// CSSView's main-thread-only methods: the default list's UIView methods (`MainThreadGuardTests` holds them equal).
    public static let catalogViewMethods = [
        "setNeedsLayout", "setNeedsDisplay", "setNeedsDisplayInRect:", "layoutIfNeeded", "setNeedsUpdateConstraints",
        "invalidateIntrinsicContentSize",
    ]

    /// Runs the bad call; returns what the caller got. Call inside an autorelease pool.
    public func perform() -> String {
        guard let text = run() else { return "nil" }
        return String(cString: text)
    }

    /// Whether the scenario ends by a signal rather than an exception when unprotected.
    public var crashesBySignal: Bool { exception.hasPrefix("SIG") }
}
