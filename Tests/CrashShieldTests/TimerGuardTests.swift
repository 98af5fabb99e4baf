@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The timer guard on real run loops: valid timers fire exactly as without the guard (count, order, userInfo, the
/// timer passed to the selector, repeats, invalidation); repeating timers hold their target weakly and invalidate
/// themselves (one report) once it is gone; targets without the selector are stopped and reported.

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

    func testValidTimersFireExactlyAsWithoutTheGuard() throws {
        let unguarded = validSequence()
        XCTAssertEqual(unguarded, [
            "1|tick:|one|timer|valid|1",
            "2|tick:|three|timer|valid|1", "2|tick:|three|timer|valid|2", "2|tick:|three|timer|valid|3",
            "3|tick:|nil|timer|valid|1", "3|tick:|nil|timer|valid|2",
            "valid:0,0,1",
        ], "one-shot, repeating (invalidated by its target), added by hand, invalidated before firing")
        try withShield(Configuration(guards: .timer)) { sink in
            XCTAssertEqual(validSequence(), unguarded)
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.timerProxyCount, 0, "every target was released")
        }
        XCTAssertEqual(validSequence(), unguarded, "after stop")
    }

    // MARK: Weak targets

    func testRepeatingTimerNoLongerKeepsItsTargetAliveAndInvalidatesItselfOnceItIsGone() throws {
        withAutoreleasePool {
            let target = css_timer_target_new(9, 0)!
            let timer = css_timer_schedule(10, target, "tick:", nil, true)!
            XCTAssertEqual(css_object_retain_count(target), 2, "unguarded: the timer retains its target")
            css_timer_invalidate(timer)
            css_object_release(target)
        }
        try withShield(Configuration(guards: .timer)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let target = css_timer_target_new(1, 0)!
                let timer = css_timer_retain(css_timer_schedule(0.02, target, "tick:", "u", true))!
                defer { css_object_release(timer) }
                XCTAssertEqual(css_object_retain_count(target), 1, "the timer holds a proxy, not the target")
                XCTAssertEqual(ObservationStatus.timerProxyCount, 1)
                css_runloop_run(0.05)
                let fired = takeLog()
                XCTAssertGreaterThanOrEqual(fired.count, 1)
                XCTAssertEqual(fired.first, "1|tick:|u|timer|valid|1", "userInfo and the timer as argument, as before")
                css_object_release(target)                       // the owner lets go; the timer is still valid
                XCTAssertEqual(ObservationStatus.timerProxyCount, 0)
                XCTAssertTrue(css_timer_is_valid(timer), "invalidated at its next fire, not before")
                css_runloop_run(0.06)
                XCTAssertFalse(css_timer_is_valid(timer))
                XCTAssertEqual(takeLog(), [], "never fired at the freed target")
            }
            let report = try XCTUnwrap(reports(sink).first)
            XCTAssertEqual(reports(sink).count, 1)
            XCTAssertEqual(report.className, "CSSTimerTarget")
            XCTAssertEqual(report.selector, "tick:")
            XCTAssertEqual(report.exceptionName, "TimerTargetDeallocated")
        }
    }

    func testOwnerThatInvalidatesItsTimerInItsDeallocIsFreedAndNotReported() throws {
        try withShield(Configuration(guards: .timer)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let owner = css_timer_owner_new(1, 0.02)!
                XCTAssertEqual(css_object_retain_count(owner), 1)
                css_runloop_run(0.05)
                XCTAssertGreaterThanOrEqual(takeLog().count, 1)
                css_object_release(owner)                        // its -dealloc runs and invalidates the timer
                css_runloop_run(0.05)
                XCTAssertEqual(takeLog(), [])
            }
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.timerProxyCount, 0)
        }
    }

    func testOneShotTimerKeepsItsTargetUntilItFires() throws {
        try withShield(Configuration(guards: .timer)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let target = css_timer_target_new(1, 0)!
                css_timer_schedule(0.01, target, "tick:", "once", false)
                css_object_release(target)                       // fire and forget: the timer owns it
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
        try withShield(Configuration(guards: .timer, mode: .debug)) { sink in
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

    func testStopRevertsTheHookAndTimersMadeMeanwhileStaySafe() throws {
        let selector = "initWithFireDate:interval:target:selector:userInfo:repeats:"
        withAutoreleasePool {
            _ = takeLog()
            let target = css_timer_target_new(1, 0)!
            var timer: UnsafeMutableRawPointer?
            withShield(Configuration(guards: .timer)) { _ in
                XCTAssertTrue(HookEngine.shared.activeHooks.contains { $0.selector.name == selector })
                timer = css_timer_retain(css_timer_schedule(0.02, target, "tick:", nil, true))
            }
            XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.selector.name == selector })
            let plain = css_timer_target_new(2, 0)!
            let unguarded = css_timer_schedule(10, plain, "tick:", nil, true)!
            XCTAssertEqual(css_object_retain_count(plain), 2, "new timers retain their target again")
            css_timer_invalidate(unguarded)
            css_object_release(plain)
            css_object_release(target)                           // after stop: the proxy still drops it
            css_runloop_run(0.05)
            XCTAssertNotNil(timer)
            if let timer { XCTAssertFalse(css_timer_is_valid(timer)); css_object_release(timer) }
            XCTAssertEqual(takeLog(), [])
        }
    }

    func testTimersOnSeveralThreadsWhoseTargetsDie() throws {
        try withShield(Configuration(guards: .timer)) { sink in
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                withAutoreleasePool {
                    for round in 0..<5 {
                        let kept = css_timer_target_new(index * 10 + round, 2)!
                        let dying = css_timer_target_new(100 + index, 0)!
                        css_timer_schedule(0.005, kept, "tick:", nil, true)
                        let timer = css_timer_retain(css_timer_schedule(0.005, dying, "tick:", nil, true))!
                        css_runloop_run(0.02)
                        css_object_release(dying)
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
