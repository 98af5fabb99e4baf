@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The failure path decides per call site, and the pipeline only records what it decided.
final class FailurePathTests: ShieldTestCase {
    /// A rethrow passes on the very exception that was caught (`@throw;`: on Apple `objc_exception_rethrow`, which
    /// does not run Foundation's preprocessor again and keeps its backtrace; on GNUstep the same object is thrown
    /// again): an inner `csr_try_filtered` that declines it and an outer one that catches it see one object.
    func testRethrownExceptionIsTheSameObject() {
        final class Seen { var inner: CSRObject?, outer: CSRObject?, name: String? }
        let seen = Seen()
        withAutoreleasePool {
            let context = Unmanaged.passUnretained(seen).toOpaque()
            let caught = csr_try_filtered(
                { context in
                    _ = csr_try_filtered(
                        { _ in csr_raise("CSRRethrowTest", "raised once") },
                        { exception, context in
                            Unmanaged<Seen>.fromOpaque(context!).takeUnretainedValue().inner = exception
                            return false  // declined: rethrown
                        }, context)
                },
                { exception, context in
                    let seen = Unmanaged<Seen>.fromOpaque(context!).takeUnretainedValue()
                    seen.outer = exception
                    seen.name = ObjCException.describe(exception)?.name
                    return true
                }, context)
            XCTAssertTrue(caught, "the rethrown exception reached the outer handler")
        }
        XCTAssertNotNil(seen.inner)
        XCTAssertEqual(seen.inner, seen.outer, "the object caught outside is the one raised and declined inside")
        XCTAssertEqual(seen.name, "CSRRethrowTest")
    }

    /// Debug mode fails loudly for the app's own call and recovers a system caller's (Foundation's NSInvocation),
    /// however many calls of the other site were rate-limited before: the decision is never borrowed from another
    /// call site of the same guard, class and selector.
    func testTwoCallSitesOfOneMethodEachGetTheirOwnDecisionAndReportUnderRateLimiting() throws {
        let configuration = Configuration(
            guards: .container, mode: .debug,
            limits: ReportLimits(detailedCapturesPerSecond: 1))
        withShield(configuration) { sink in
            XCTAssertEqual(css_test_add_nil_through_invocation(50), 0, "a system caller's bad call is recovered")
            XCTAssertEqual(css_test_add_nil_direct(50), 50, "the app's own bad call fails loudly, every time")
            XCTAssertEqual(css_test_add_nil_through_invocation(50), 0, "and the system caller's is still recovered")
            let reports = CrashShield.reports.filter { $0.selector == "addObject:" }
            XCTAssertEqual(reports.count, 2, "one report per call site: \(reports.map(\.signature))")
            XCTAssertEqual(Set(reports.map(\.action)), [.recovered, .failedLoudly])
            XCTAssertEqual(reports.first { $0.action == .recovered }?.occurrences, 100)
            XCTAssertEqual(reports.first { $0.action == .failedLoudly }?.occurrences, 50)
        }
    }

    /// Issue 33 §3: failing loudly raises what the incident's `Unrecovered` carries, and a violation says how the
    /// original fails. One by signal (the original dies of SIGSEGV) is reported but never raised: the verdict goes
    /// back to the hook, which runs the original to fail as it would; one by exception is raised, name and reason.
    /// What is raised may differ from what is reported (a zombie's SIGSEGV raises NSInternalInconsistencyException).
    func testFailingLoudlyRaisesWhatTheIncidentCarriesAndNeverASignal() throws {
        let configuration = Configuration(guards: .container, mode: .debug, isAppImage: { _ in true })
        try withShield(configuration) { sink in
            let bySignal = Violation(.segmentationFault, hint: "h") { "-[\($0) bySignal]: dies" }
            let byException = Violation(ExceptionName.range, hint: "h") { "-[\($0) byException]: raises" }
            let carried = Incident.Exception(name: ExceptionName.internalInconsistency) { "-[\($0) carried]: raised" }
            let cases: [(String, Violation, Incident.Unrecovered)] = [
                ("bySignal", bySignal, .raiseWhenLoud(bySignal)),
                ("byException", byException, .raiseWhenLoud(byException)),
                ("carried", bySignal, .raiseInDebug(carried)),
            ]
            var outcomes: [String: (verdict: Verdict?, raised: String?)] = [:]
            for (selector, violation, unrecovered) in cases {
                let incident = Incident(
                    .container, subject: Incident.Subject(className: "NSMutableArray"), selector: selector, violation,
                    implementation: nil, unrecovered: unrecovered)
                final class Box { var verdict: Verdict? }  // no lock: a raise unwinds without running cleanups
                let box = Box()
                let raised = catchingObjCException { box.verdict = IncidentPath.handle(incident) }
                outcomes[selector] = (box.verdict, raised.map { "\($0.name): \($0.reason)" })
            }
            XCTAssertEqual(outcomes["bySignal"]?.verdict, .failLoudly, "the hook runs the original, which dies")
            XCTAssertNil(outcomes["bySignal"]?.raised ?? nil, "a signal is never raised as an exception")
            XCTAssertNil(outcomes["byException"]?.verdict ?? nil, "the incident path raised")
            XCTAssertEqual(
                outcomes["byException"]?.raised, "NSRangeException: -[NSMutableArray byException]: raises")
            XCTAssertEqual(
                outcomes["carried"]?.raised,
                "NSInternalInconsistencyException: -[NSMutableArray carried]: raised")
            CrashShield.flush()
            let reports = sink.reports(in: .container)
            XCTAssertEqual(
                Set(reports.map { "\($0.selector) \($0.exceptionName) \($0.action)" }),
                [
                    "bySignal SIGSEGV failedLoudly", "byException NSRangeException failedLoudly",
                    "carried SIGSEGV failedLoudly",
                ])
        }
    }

    /// Issue 31 §3: a storm of stopped calls in a loop without a pool of its own leaves nothing of CrashShield's in the
    /// caller's pool (what the failure path copies, the KVC key's description and the C strings of the report's
    /// details, is copied inside a pool of its own), only what Foundation itself leaves. Counted with GNUstep's
    /// -autoreleaseCount (Apple has no way to count a pool: skipped there).
    func testAStormOfStoppedCallsLeavesNothingOfCrashShieldsInTheCallersPool() throws {
        let calls: UInt = 2_000
        try withShield(Configuration(guards: [.container, .kvc])) { sink in
            for call in [CSSPooledRemoveAtIndex, CSSPooledUnknownKey, CSSPooledAnsweredKey, CSSPooledNilValue] {
                _ = css_test_objects_left_in_pool(call, 30)  // first reports, caches
            }
            let removal = css_test_objects_left_in_pool(CSSPooledRemoveAtIndex, calls)
            try XCTSkipIf(removal == UInt.max, "this Foundation's pools cannot count their objects")
            XCTAssertEqual(removal, 0, "removeObjectAtIndex: past the end")
            XCTAssertEqual(css_test_objects_left_in_pool(CSSPooledNilValue, calls), 0, "setObject:nil forKey:")
            // valueForKey: leaves what Foundation's KVC leaves without any guard (GNUstep: one string per call).
            let foundations = css_test_objects_left_in_pool(CSSPooledAnsweredKey, calls)
            XCTAssertEqual(css_test_objects_left_in_pool(CSSPooledUnknownKey, calls), foundations, "valueForKey:")
            CrashShield.flush()
            XCTAssertEqual(
                CrashShield.reports.map(\.occurrences).reduce(0, +), 3 * (Int(calls) + 30), "every call was stopped")
            _ = sink
        }
    }

    /// The caller frame of a report is the app's call site, never CrashShield's own code, for the calls whose
    /// replacement sits next to other CrashShield code.
    func testTheCallerFrameIsTheReplacementsExactCaller() throws {
        try withShield(Configuration(guards: .container)) { sink in
            XCTAssertNil(css_test_bad_call())
            let report = try XCTUnwrap(sink.reports(in: .container).first)
            let caller = try XCTUnwrap(report.callerFrame)
            XCTAssertEqual(caller.symbol, "css_test_bad_call", "caller: \(caller)")
        }
    }

    /// A message nothing answers, sent by Foundation's own code (GNUstep's `setString:` asking an NSNumber for its
    /// `length`), is Foundation's failure: recovering it would let Foundation go on with a made-up length and empty the
    /// app's string. It passes through: Foundation raises as without CrashShield, and the string is untouched.
    func testAMessageFoundationSendsIsNotRecoveredInsideFoundation() throws {
        var unguardedRaised = false
        let unguarded = String(cString: css_test_set_string_to_number(&unguardedRaised))
        XCTAssertTrue(unguardedRaised)
        withShield(Configuration(guards: .all)) { sink in
            var raised = false
            let guarded = String(cString: css_test_set_string_to_number(&raised))
            XCTAssertEqual(guarded, unguarded, "the receiver is as Foundation left it")
            XCTAssertTrue(raised, "Foundation's own exception reaches the app, as without CrashShield")
            XCTAssertTrue(sink.reports(in: .unrecognizedSelector).isEmpty)
        }
    }
}
