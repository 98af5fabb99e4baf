@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// Naming a call site (`CrashReport.callerFunction`) may scan every class of the caller's image
/// (`csr_method_name_for_function`: on Apple `objc_copyClassNamesForImage`, `objc_getClass` on each name, which
/// realizes the class, and `class_copyMethodList` of each class and metaclass; here every class of the process, with
/// `dladdr`). It runs on the delivery thread: the bad call's verdict and recovery never wait for it.
final class CallerNameCostTests: ShieldTestCase {
    /// A sink whose first delivery blocks until released: while it blocks, nothing else is delivered or finished.
    private final class BlockingSink: ReportSink, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let first = Locked(true)
        func receive(_ report: CrashReport) {
            guard
                first.withLock({
                    let was = $0; $0 = false; return was
                })
            else { return }
            entered.signal()
            release.wait()
        }
    }

    /// The delivery thread is held by a sink; a bad call from an Objective-C method the process has not named yet is
    /// recovered and returns, and its name is not looked up until the delivery thread runs again; then the report
    /// carries it.
    func testTheFailingThreadNeverNamesTheCallSite() throws {
        let blocking = BlockingSink()
        withShield(Configuration(guards: .container, sinks: [blocking], isAppImage: { _ in true })) { sink in
            // Occupy the delivery thread with a first report (a C caller).
            withAutoreleasePool { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            XCTAssertEqual(blocking.entered.wait(timeout: .now() + 10), .success, "the sink holds the delivery thread")
            CallerNames.forgetAll()
            withAutoreleasePool { _ = css_test_grouping_calls() }  // two bad calls, recovered: nil
            XCTAssertEqual(CallerNames.knownCount, 0, "a call site was named on the failing thread")
            blocking.release.signal()
            CrashShield.flush()
            let names = Set(sink.reports.compactMap(\.callerFunction))
            XCTAssertTrue(names.isSuperset(of: ["-[CSSGroupingCaller firstList]", "+[CSSGroupingCaller secondList]"]))
            XCTAssertGreaterThan(CallerNames.knownCount, 0)
        }
    }

    /// `CrashShield.reports` finishes a report that was not delivered yet (no sink here): named, grouped.
    func testReportsNotDeliveredYetAreFinishedWhenAsked() throws {
        try CrashShield.start(Configuration(guards: .container, sinks: [], isAppImage: { _ in true }))
        defer { CrashShield.stop() }
        CallerNames.forgetAll()
        withAutoreleasePool { _ = css_test_grouping_calls() }
        let reports = CrashShield.reports
        XCTAssertEqual(
            Set(reports.compactMap(\.callerFunction)),
            ["-[CSSGroupingCaller firstList]", "+[CSSGroupingCaller secondList]"])
        XCTAssertEqual(Set(reports.compactMap(\.groupingKey)).count, 2)
    }

    /// With `CRASHSHIELD_NAMING_CLASSES` extra classes (objc_allocateClassPair, two methods each; 50,000 for the figure
    /// in Docs/AppleRuntime.md): the time of one lookup, and of the bad call on the failing thread from a call site not
    /// named yet. Registers the classes for the rest of the process, so it runs only when asked.
    func testNamingCostWithManyClasses() throws {
        guard let count = Int(ProcessInfo.processInfo.environment["CRASHSHIELD_NAMING_CLASSES"] ?? "") else {
            throw XCTSkip("set CRASHSHIELD_NAMING_CLASSES=50000 to measure")
        }
        let made = Date()
        for index in 0..<count where !css_make_indexed_class("CSNamingBench\(index)", Int32(index % 3), false) {
            XCTFail("class \(index)")
            return
        }
        print("naming cost: \(count) classes registered in \(Int(Date().timeIntervalSince(made) * 1000)) ms")
        // One lookup, as the delivery thread makes it for a new call site.
        let cls = try XCTUnwrap(ObjCClass(named: "CSSGroupingCaller"))
        let imp = try XCTUnwrap(csr_class_methodImplementation(cls.pointer, csr_sel_register("firstList")))
        let start = UInt(bitPattern: unsafeBitCast(imp, to: UnsafeRawPointer.self))
        var info = CSRImageInfo()
        XCTAssertTrue(csr_image_info(unsafeBitCast(imp, to: UnsafeRawPointer.self), &info))
        var buffer = [CChar](repeating: 0, count: 512)
        let lookup = Date()
        XCTAssertTrue(csr_method_name_for_function(start, info.imagePath, &buffer, buffer.count))
        let lookupMS = Date().timeIntervalSince(lookup) * 1000
        XCTAssertEqual(String(cString: buffer), "-[CSSGroupingCaller firstList]")
        // The bad calls on the failing thread, from call sites not named yet (two per run), each run in a session of
        // its own, while a sink holds the delivery thread: the failing thread's own time, without the delivery
        // thread's naming competing for the runtime's lock.
        var callMS: [Double] = []
        for _ in 0..<4 {
            let blocking = BlockingSink()
            withShield(Configuration(guards: .container, sinks: [blocking], isAppImage: { _ in true })) { sink in
                withAutoreleasePool { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
                XCTAssertEqual(blocking.entered.wait(timeout: .now() + 60), .success)
                CallerNames.forgetAll()
                let call = Date()
                withAutoreleasePool { _ = css_test_grouping_calls() }
                callMS.append(Date().timeIntervalSince(call) * 1000)
                blocking.release.signal()
                CrashShield.flush()
                XCTAssertTrue(
                    Set(sink.reports.compactMap(\.callerFunction)).isSuperset(of: [
                        "-[CSSGroupingCaller firstList]", "+[CSSGroupingCaller secondList]",
                    ]))
            }
        }
        print(
            "naming cost: one lookup \(String(format: "%.1f", lookupMS)) ms; two bad calls from new call sites on the "
                + "failing thread: \(callMS.map { String(format: "%.2f", $0) }.joined(separator: ", ")) ms")
    }
}
