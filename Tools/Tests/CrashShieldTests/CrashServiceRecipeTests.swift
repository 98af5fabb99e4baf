@testable import CrashShield
import CrashShieldScenarios
import Foundation
import XCTest

// Docs/Reports.md's recipes for forwarding reports to Firebase Crashlytics and Bugly, as written there (between the
// markers), compiled and run by every test build against the vendors' documented APIs, declared below from their
// documentation (an app links the real SDKs; only the `import` lines are left out here). Keep both in step.

/// Firebase Crashlytics' documented Swift API, as its reference documents it
/// (firebase.google.com/docs/reference/swift/firebasecrashlytics: `ExceptionModel(name:reason:)` and its
/// `stackTrace`, `StackFrame(address:)`, `Crashlytics.crashlytics()`, `record(exceptionModel:)`,
/// `setCustomValue(_:forKey:)`), namespaced as the module is: CrashShield has a `StackFrame` too, so an app that
/// imports both names the module.
enum FirebaseCrashlytics {
    final class StackFrame {
        let address: UInt
        init(address: UInt) { self.address = address }
    }

    final class ExceptionModel {
        let name: String
        let reason: String
        var stackTrace: [StackFrame] = []
        init(name: String, reason: String) {
            self.name = name
            self.reason = reason
        }
    }

    final class Crashlytics {
        private static let shared = Crashlytics()
        static func crashlytics() -> Crashlytics { shared }
        var recorded: [(model: ExceptionModel, keys: [String: Any])] = []
        private var keys: [String: Any] = [:]
        func setCustomValue(_ value: Any?, forKey key: String) { keys[key] = value }
        func record(exceptionModel: ExceptionModel) { recorded.append((exceptionModel, keys)) }
    }
}

/// Bugly's documented iOS API (`+[Bugly reportExceptionWithCategory:name:reason:callStack:extraInfo:terminateApp:]`,
/// Bugly.h), as Swift imports it.
enum Bugly {
    static var reported:
        [(category: UInt, name: String, reason: String, callStack: [Any], extraInfo: [AnyHashable: Any])] = []
    static func reportException(
        withCategory category: UInt, name: String, reason: String, callStack: [Any],
        extraInfo: [AnyHashable: Any], terminateApp: Bool
    ) {
        reported.append((category, name, reason, callStack, extraInfo))
    }
}

// Docs/Reports.md recipe: Crashlytics begins
/// Each report as a Crashlytics non-fatal with its stack: the return addresses from the call site outwards (the frames
/// above it are CrashShield's own), which Crashlytics symbolicates with the app's dSYMs and groups by.
func crashlyticsSink() -> ReportHandlerSink {
    ReportHandlerSink { report in
        let model = FirebaseCrashlytics.ExceptionModel(
            name: report.exceptionName, reason: "\(report.appFacingMethod): \(report.reason)")
        model.stackTrace = report.callStack.dropFirst(report.callerFrameIndex ?? 0).map {
            FirebaseCrashlytics.StackFrame(address: UInt($0.address))
        }
        let crashlytics = FirebaseCrashlytics.Crashlytics.crashlytics()
        crashlytics.setCustomValue(report.group, forKey: "crashshield_group")
        crashlytics.setCustomValue(report.occurrences, forKey: "crashshield_occurrences")
        crashlytics.record(exceptionModel: model)
    }
}
// Docs/Reports.md recipe: Crashlytics ends

// Docs/Reports.md recipe: Bugly begins
/// Each report as a Bugly custom exception (category 3, as Bugly's own examples report Objective-C exceptions; its
/// documentation gives no list), the stack in `backtrace_symbols`' format from the call site outwards.
func buglySink() -> ReportHandlerSink {
    ReportHandlerSink { report in
        let frames = report.callStack.dropFirst(report.callerFrameIndex ?? 0)
        let callStack = frames.enumerated().map { index, frame -> String in
            let image = (frame.image as NSString).lastPathComponent
            return "\(index) \(image) 0x\(String(frame.address, radix: 16)) \(image) + \(frame.offsetInImage)"
        }
        Bugly.reportException(
            withCategory: 3, name: report.exceptionName,
            reason: "\(report.appFacingMethod): \(report.reason)", callStack: callStack,
            extraInfo: ["group": report.group, "occurrences": "\(report.occurrences)"],
            terminateApp: false)
    }
}
// Docs/Reports.md recipe: Bugly ends

final class CrashServiceRecipeTests: ShieldTestCase {
    /// A real stopped call through each recipe: the service gets the exception, the app-facing method, the stack from
    /// the caller outwards (its first frame is the call site) and the group.
    func testTheRecipesForwardARealReportWithItsStack() throws {
        var report: CrashReport?
        withShield(
            Configuration(guards: .container, sinks: [crashlyticsSink(), buglySink()], isAppImage: { _ in true })
        ) { sink in
            withAutoreleasePool { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            CrashShield.flush()
            report = sink.reports.first
        }
        let stopped = try XCTUnwrap(report)
        let caller = try XCTUnwrap(stopped.callerFrame)

        let recorded = try XCTUnwrap(FirebaseCrashlytics.Crashlytics.crashlytics().recorded.last)
        XCTAssertEqual(recorded.model.name, "NSRangeException")
        XCTAssertTrue(recorded.model.reason.hasPrefix("-[NSArray objectAtIndex:]: "), recorded.model.reason)
        XCTAssertEqual(
            recorded.model.stackTrace.first?.address, UInt(caller.address), "the stack starts at the call site")
        XCTAssertEqual(recorded.model.stackTrace.count, stopped.callStack.count - stopped.callerFrameIndex!)
        XCTAssertEqual(recorded.keys["crashshield_group"] as? String, stopped.group)

        let bugly = try XCTUnwrap(Bugly.reported.last)
        XCTAssertEqual(bugly.category, 3)
        XCTAssertEqual(bugly.name, "NSRangeException")
        let first = try XCTUnwrap(bugly.callStack.first as? String)
        XCTAssertTrue(first.hasPrefix("0 ") && first.contains("0x" + String(caller.address, radix: 16)), first)
        XCTAssertEqual(bugly.extraInfo["group"] as? String, stopped.group)
    }

    /// Docs/Reports.md shows exactly the code between each pair of markers above.
    func testTheDocsShowTheseRecipes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()  // Tools/Tests/CrashShieldTests/ -> the repository
        let page = try String(contentsOf: root.appendingPathComponent("Docs/Reports.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        for service in ["Crashlytics", "Bugly"] {
            let begin = "// Docs/Reports.md recipe: \(service) begins\n"
            let end = "// Docs/Reports.md recipe: \(service) ends"
            let start = try XCTUnwrap(source.range(of: begin)), stop = try XCTUnwrap(source.range(of: end))
            let code = String(source[start.upperBound..<stop.lowerBound])
            XCTAssertTrue(
                page.contains(code),
                "Docs/Reports.md's \(service) recipe differs from CrashServiceRecipeTests.swift:\n\(code)")
        }
    }
}
