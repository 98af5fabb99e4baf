@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The timer guard on real run loops: valid timers fire exactly as without the guard (count, order, userInfo, the
/// timer passed to the selector, repeats, invalidation) and keep their target alive as Foundation's do (targets only
/// the timer keeps alive, weak proxies, forwarders); a target over-released while its timer holds it is never
/// messaged again (one report, the timer invalidates itself); targets without the selector are stopped and reported.

/// The targets' fire log since the last call.
private func takeLog() -> [String] {
    var buffer = [CChar](repeating: 0, count: 1 << 16)
    css_note_take_log(&buffer, UInt(buffer.count))
    return String(cString: buffer).split(separator: "\n").map(String.init)
}

final class TimerGuardTests: ShieldTestCase {

    private func validSequence() -> [String] {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        css_timer_valid_sequence(&buffer, UInt(buffer.count))
        return String(cString: buffer).split(separator: "\n").map(String.init)
    }

    private func reports(_ sink: InMemoryReportSink) -> [CrashReport] { sink.reports(in: .timer) }

    // MARK: Differential

    /// Apple's timers are a CoreFoundation-backed subclass whose own initializer never reaches NSTimer's: the guard
    /// hooks the initializer a sampled timer's class really has. Emulated with such a subclass added to the samples;
    /// before, only NSTimer's own method was hooked and this timer's missing selector went unseen.
    func testTheInitializerOfTheSampledTimerClassIsGuarded() throws {
        XCTAssertTrue(csr_test_cluster_sample_class_named("CSSCFTimer"))
        ClassSamples.shared.forget()
        defer {
            _ = csr_test_cluster_sample_class_named(nil)
            ClassSamples.shared.forget()
        }
        withShield(Configuration(guards: .timer, isAppImage: { _ in true })) { sink in
            XCTAssertTrue(css_test_cf_timer_init("tick:"), "a valid timer is made as without the guard")
            XCTAssertTrue(css_test_cf_timer_init("missingSelector:"))
            CrashShield.flush()
            XCTAssertEqual(reports(sink).map(\.selector), ["missingSelector:"], "\(reports(sink).map(\.method))")
        }
    }

    func testValidTimersFireExactlyAsWithoutTheGuard() throws {
        let unguarded = validSequence()
        XCTAssertEqual(
            unguarded,
            [
                "1|tick:|one|timer|valid|1",
                "2|tick:|three|timer|valid|1", "2|tick:|three|timer|valid|2", "2|tick:|three|timer|valid|3",
                "3|tick:|nil|timer|valid|1", "3|tick:|nil|timer|valid|2",
                "valid:0,0,1",
            ], "one-shot, repeating (invalidated by its target), added by hand, invalidated before firing")
        withShield(Configuration(guards: .timer)) { sink in
            XCTAssertEqual(validSequence(), unguarded)
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.timerProxyCount, 0, "every target was released")
        }
        XCTAssertEqual(validSequence(), unguarded, "after stop")
    }

    // MARK: Targets only the timer keeps alive

    private func unownedTargetSequence(_ fires: Int) -> [String] {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        css_timer_unowned_target_sequence(fires, &buffer, UInt(buffer.count))
        return String(cString: buffer).split(separator: "\n").map(String.init)
    }

    /// Foundation's timers retain their target: a worker scheduled on itself and released, the weak proxy apps put
    /// between a timer and its owner (YYWeakProxy), and a forwarder that lacks the selector are kept alive by their
    /// timer alone and keep firing, with every guard on exactly as without CrashShield (JJException #76, #102, #134).
    func testTargetsOnlyTheTimerKeepsAliveFireExactlyAsWithoutTheGuard() throws {
        let unguarded = unownedTargetSequence(5)
        XCTAssertEqual(
            unguarded,
            (1...5).map { "1|work:|\($0)|valid" } + ["1|dealloc"]
                + (1...5).map { "2|tick:|\($0)|own" } + ["2|owner.dealloc", "2|proxy.dealloc"]
                + ["3|responds=0"] + (1...5).map { "3|work:|\($0)|valid" } + ["3|forwarder.dealloc", "3|dealloc"])
        for mode in [GuardMode.release, .debug] {
            withShield(Configuration(guards: .all, mode: mode)) { sink in
                XCTAssertEqual(unownedTargetSequence(5), unguarded, "\(mode)")
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.reason), [], "\(mode)")
                XCTAssertEqual(ObservationStatus.timerProxyCount, 0, "every target was released with its timer")
            }
        }
        XCTAssertEqual(unownedTargetSequence(5), unguarded, "after stop")
    }

    // MARK: Targets the timer retains

    /// The target's retain count after scheduling, and after the timer was invalidated.
    private func retainCountsOfATimersTarget(repeats: Bool) -> [UInt] {
        var counts: [UInt] = []
        withAutoreleasePool {
            let target = css_timer_target_new(9, 0)!
            let timer = css_timer_retain(css_timer_schedule(10, target, "tick:", nil, repeats))!
            counts.append(css_object_retain_count(target))
            css_timer_invalidate(timer)
            counts.append(css_object_retain_count(target))
            css_object_release(timer)
            css_object_release(target)
        }
        return counts
    }

    func testATimerRetainsItsTargetUntilItIsInvalidatedAsFoundationDoes() throws {
        for repeats in [true, false] {
            let unguarded = retainCountsOfATimersTarget(repeats: repeats)
            XCTAssertEqual(unguarded, [2, 1], "Foundation retains the target until the timer is invalidated")
            withShield(Configuration(guards: .timer)) { sink in
                XCTAssertEqual(retainCountsOfATimersTarget(repeats: repeats), unguarded, "repeats: \(repeats)")
                XCTAssertEqual(ObservationStatus.timerProxyCount, 0, "the proxy went with its timer")
                XCTAssertEqual(reports(sink).count, 0)
            }
        }
    }

    /// The only way a target can die while its timer holds it: a release too many. Its -dealloc tells the proxy,
    /// which never touches it again; the timer invalidates itself at its next fire; one report, in every mode
    /// (nothing fails). The crash matrix runs it as a real crash (timer.target.overReleased).
    func testAnOverReleasedTargetIsNeverMessagedAgainAndIsReported() throws {
        for mode in [GuardMode.release, .debug] {
            try withShield(Configuration(guards: .timer, mode: mode)) { sink in
                withAutoreleasePool {
                    _ = takeLog()
                    let target = css_timer_target_new(1, 0)!
                    let timer = css_timer_retain(css_timer_schedule(0.01, target, "tick:", "u", true))!
                    XCTAssertEqual(ObservationStatus.timerProxyCount, 1)
                    css_runloop_run(0.03)
                    XCTAssertEqual(takeLog().first, "1|tick:|u|timer|valid|1", "userInfo and the timer as argument")
                    css_object_release(target)  // the owner is done: the timer keeps it
                    css_runloop_run(0.03)
                    XCTAssertGreaterThanOrEqual(takeLog().count, 1, "still firing")
                    XCTAssertEqual(self.reports(sink).count, 0)
                    css_object_release(target)  // a release too many: freed under the timer
                    XCTAssertEqual(ObservationStatus.timerProxyCount, 0)
                    XCTAssertTrue(css_timer_is_valid(timer), "invalidated at its next fire")
                    css_runloop_run(0.03)
                    XCTAssertFalse(css_timer_is_valid(timer))
                    XCTAssertEqual(takeLog(), [], "never fired at the freed target")
                    css_object_release(timer)
                }
                CrashShield.flush()
                let report = try XCTUnwrap(reports(sink).first)
                XCTAssertEqual(reports(sink).count, 1)
                XCTAssertEqual(report.className, "CSSTimerTarget")
                XCTAssertEqual(report.selector, "tick:")
                XCTAssertEqual(report.exceptionName, "SIGSEGV")
                XCTAssertEqual(report.action, .recovered, "\(mode)")
            }
        }
    }

    /// An owner that keeps its timer and invalidates it in its -dealloc is kept alive by that timer (a retain cycle),
    /// with the guard as without it: it keeps firing after its owner let it go.
    func testAnOwnerItsTimerRetainsStaysAliveAsWithoutTheGuard() throws {
        func run() -> [String] {
            var result: [String] = []
            withAutoreleasePool {
                _ = takeLog()
                let owner = css_timer_owner_new(1, 0.01)!
                result.append("retained=\(css_object_retain_count(owner))")
                css_object_release(owner)  // the cycle keeps it
                css_runloop_run(0.05)
                result.append("fired=\(!takeLog().isEmpty) valid=\(css_timer_is_valid(css_timer_owner_timer(owner)))")
                css_timer_invalidate(css_timer_owner_timer(owner))  // frees the owner; its -dealloc runs
                css_runloop_run(0.02)
                result.append("after=\(takeLog().count)")
            }
            return result
        }
        let unguarded = run()
        XCTAssertEqual(unguarded, ["retained=2", "fired=true valid=true", "after=0"])
        withShield(Configuration(guards: .timer)) { sink in
            XCTAssertEqual(run(), unguarded)
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.timerProxyCount, 0)
        }
    }

    func testOneShotTimerKeepsItsTargetUntilItFires() throws {
        withShield(Configuration(guards: .timer)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let target = css_timer_target_new(1, 0)!
                css_timer_schedule(0.01, target, "tick:", "once", false)
                css_object_release(target)  // fire and forget: the timer owns it
                css_runloop_run(0.05)
                XCTAssertEqual(takeLog(), ["1|tick:|once|timer|valid|1"])
            }
            XCTAssertEqual(reports(sink).count, 0)
        }
    }

    // MARK: Missing selector

    func testTargetWithoutTheSelectorIsStoppedAndReported() throws {
        try withShield(Configuration(guards: .timer)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let target = css_timer_target_new(1, 0)!
                for repeats in [true, false] {
                    let timer = css_timer_retain(css_timer_schedule(0.01, target, "tock:", nil, repeats))!
                    XCTAssertFalse(css_timer_is_valid(timer), "stopped: a real timer, invalidated")
                    css_object_release(timer)
                }
                XCTAssertEqual(css_object_retain_count(target), 1, "released by the invalidation")
                css_runloop_run(0.05)
                XCTAssertEqual(takeLog(), [])
                css_object_release(target)
            }
            CrashShield.flush()
            let report = try XCTUnwrap(reports(sink).first)
            XCTAssertEqual(reports(sink).count, 1, "one call site")
            XCTAssertEqual(report.occurrences, 2)
            XCTAssertEqual(report.className, "CSSTimerTarget")
            XCTAssertEqual(report.selector, "tock:")
            XCTAssertEqual(report.exceptionName, "NSInvalidArgumentException")
            XCTAssertTrue(report.reason.hasPrefix("-[CSSTimerTarget tock:]: unrecognized selector sent to instance 0x"))
        }
    }

    func testDebugModeReportsAndFollowsTheReportsAction() throws {
        withShield(Configuration(guards: .timer, mode: .debug)) { sink in
            withAutoreleasePool {
                let target = css_timer_target_new(1, 0)!
                let timer = css_timer_retain(css_timer_schedule(10, target, "tock:", nil, false))!
                // The call comes from Foundation's convenience constructor (not from the app's own image), so even
                // debug mode recovers; a failed-loudly report leaves the timer as the original made it.
                let action = self.reports(sink).first?.action
                XCTAssertNotNil(action)
                XCTAssertEqual(css_timer_is_valid(timer), action == .failedLoudly)
                css_timer_invalidate(timer)
                css_object_release(timer)
                css_object_release(target)
            }
        }
    }

    // MARK: Lifecycle and threads

    func testStopRevertsTheHookAndTimersMadeMeanwhileKeepTheirTargets() throws {
        let selector = "initWithFireDate:interval:target:selector:userInfo:repeats:"
        withAutoreleasePool {
            _ = takeLog()
            let target = css_timer_target_new(1, 0)!
            var timer: UnsafeMutableRawPointer?
            withShield(Configuration(guards: .timer)) { _ in
                XCTAssertTrue(HookEngine.shared.activeHooks.contains { $0.selector.name == selector })
                timer = css_timer_retain(css_timer_schedule(0.01, target, "tick:", nil, true))
            }
            XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.selector.name == selector })
            let plain = css_timer_target_new(2, 0)!
            let unguarded = css_timer_schedule(10, plain, "tick:", nil, true)!
            XCTAssertEqual(css_object_retain_count(plain), 2, "new timers get their target directly")
            css_timer_invalidate(unguarded)
            css_object_release(plain)
            XCTAssertEqual(css_object_retain_count(target), 2, "the proxy of a timer made before stop() holds it")
            css_runloop_run(0.03)
            XCTAssertGreaterThanOrEqual(takeLog().count, 1, "and fires it")
            guard let timer else { return XCTFail("no timer") }
            css_timer_invalidate(timer)
            XCTAssertEqual(css_object_retain_count(target), 1, "released at the invalidation")
            XCTAssertEqual(ObservationStatus.timerProxyCount, 0)
            css_object_release(timer)
            css_object_release(target)
            css_runloop_run(0.02)
            XCTAssertEqual(takeLog(), [])
        }
    }

    func testTimersOnSeveralThreadsWhoseTargetsAreOverReleased() throws {
        withShield(Configuration(guards: .timer)) { sink in
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                withAutoreleasePool {
                    for round in 0..<5 {
                        let kept = css_timer_target_new(index * 10 + round, 2)!
                        let dying = css_timer_target_new(100 + index, 0)!
                        css_timer_schedule(0.005, kept, "tick:", nil, true)
                        let timer = css_timer_retain(css_timer_schedule(0.005, dying, "tick:", nil, true))!
                        css_runloop_run(0.02)
                        css_object_release(dying)
                        css_object_release(dying)  // a release too many
                        css_runloop_run(0.02)
                        XCTAssertFalse(css_timer_is_valid(timer))
                        css_object_release(timer)
                        XCTAssertEqual(css_timer_target_fires(kept), 2, "invalidated by its target after two fires")
                        css_object_release(kept)
                    }
                }
            }
            XCTAssertEqual(ObservationStatus.timerProxyCount, 0)
            XCTAssertEqual(reports(sink).map(\.className), ["CSSTimerTarget"], "one call site, one report")
            _ = takeLog()
        }
    }
}
