@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The KVO guard switched off and on (the kill switch, stop and start) while 8 threads add, remove and free
/// observers: nothing crashes or hangs, and once every observer and model is gone nothing is left on a proxy.
/// `KVO_STRESS_SECONDS` sets the duration (default 6 s; `scripts/kvo-stress.sh` style runs use 60).
final class KVOStressTests: ShieldTestCase {
    private static var seconds: Double { Double(ProcessInfo.processInfo.environment["KVO_STRESS_SECONDS"] ?? "") ?? 6 }

    /// One worker, until `end`. Its models are its own: GNUstep's KVO is not safe for adds and removals on one object
    /// from several threads, with or without CrashShield. Each cycle adds two observers (sometimes with Initial),
    /// changes the model, removes once, twice or not at all (the observer is then freed while registered, and the
    /// model gets no change afterwards: without the guard that would crash), on a new model or a long-lived one.
    /// Every call here is valid without CrashShield too: the guard may be off at any moment.
    private static func work(seed: UInt64, until end: Date) -> Int {
        var random = seed
        func next(_ bound: UInt64) -> UInt64 {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return (random >> 33) % bound
        }
        var cycles = 0
        let keep = css_kvo_model_new()!
        while Date() < end {
            withAutoreleasePool {
                for _ in 0..<50 {
                    let fresh = next(2) == 0
                    let model = fresh ? css_kvo_model_new()! : keep
                    let observer = css_kvo_recorder_new(1)!, other = css_kvo_recorder_new(2)!
                    css_kvo_add(model, observer, "level", 0x01 | (next(4) == 0 ? 0x04 : 0), 0)
                    css_kvo_add(model, other, next(2) == 0 ? "name" : "level", 0x03, 7)
                    css_kvo_set_level(model, Int32(next(100)))
                    switch next(3) {
                    case 0: css_kvo_remove(model, observer, "level")
                    case 1: css_kvo_remove(model, observer, "level"); css_kvo_remove(model, observer, "level")
                    default: if !fresh { css_kvo_remove(model, observer, "level") }  // else freed while registered
                    }
                    css_kvo_remove(model, other, "name")
                    css_kvo_remove(model, other, "level")
                    css_object_release(other)
                    css_object_release(observer)
                    if fresh { css_object_release(model) }
                    cycles += 1
                }
                var scratch = [CChar](repeating: 0, count: 1 << 16)
                css_kvo_take_log(&scratch, UInt(scratch.count))
            }
        }
        css_object_release(keep)
        return cycles
    }

    func testSwitchingTheGuardOffAndOnWhileEightThreadsObserveDoesNotCrash() throws {
        let seconds = Self.seconds, threads = 8
        setUpGNUstepKVOOnOneThread()  // what this test proves is the switching, not GNUstep's first use
        let end = Date().addingTimeInterval(seconds)
        let configuration = Configuration(guards: .kvo, sinks: [InMemoryReportSink()])
        try CrashShield.start(configuration)
        let cycles = Locked(0)
        let done = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            let thread = Thread {
                let count = Self.work(seed: UInt64(index + 1), until: end)
                cycles.withLock { $0 += count }
                done.signal()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        var toggles = 0
        while Date() < end {
            if toggles % 10 == 9 {
                CrashShield.stop()
                try CrashShield.start(configuration)
            } else {
                try CrashShield.setGuard(.kvo, enabled: toggles % 2 == 1)
            }
            toggles += 1
            usleep(UInt32(500 + toggles % 7 * 300))
        }
        for _ in 0..<threads {
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "a worker hangs")
        }
        CrashShield.stop()
        XCTAssertEqual(
            ObservationStatus.kvoObservedObjectCount, 0,
            "every registration ended (removed, or its observer or object died)")
        XCTAssertEqual(ObservationStatus.kvoObserversBeingDeallocated, 0)
        let reverted = Date().addingTimeInterval(5)
        while KVOGuard.hooksInstalled && Date() < reverted { usleep(1000) }
        XCTAssertFalse(KVOGuard.hooksInstalled, "nothing left on a proxy: the hooks are reverted")
        print("KVO stress: \(cycles.current) cycles on \(threads) threads, \(toggles) switches in \(seconds) s")
        XCTAssertGreaterThan(toggles, 100)
    }
}
