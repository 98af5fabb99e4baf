@_spi(Testing) @testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The KVO guard switched off (the kill switch, `stop()`) while registrations made through its proxies are live: they
/// stay on their proxies until their natural end, so that a change made meanwhile on another thread reaches each
/// observer exactly once (never twice, never not at all), and nothing is reported while the guard is off.
final class KVOSwitchOffTests: ShieldTestCase {
    private static let new: UInt = 0x01

    private static func clearLog() {
        var scratch = [CChar](repeating: 0, count: 1 << 16)
        css_kvo_take_log(&scratch, UInt(scratch.count))
    }

    /// The delivery log since the last call, without old values (GNUstep's KVO adds the previous change's new value
    /// as the old one to some changes, whatever the options, and whoever observes).
    private static func log() -> [String] {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        css_kvo_take_log(&buffer, UInt(buffer.count))
        return String(cString: buffer).split(separator: "\n").map {
            $0.replacingOccurrences(of: #",old=[0-9]+"#, with: "", options: .regularExpression)
        }
    }

    /// One thread owns a model and three observers: it registers them (through the guard or, while it is off, with
    /// Foundation), makes changes and counts the deliveries of each change, then removes them, while this thread
    /// switches the guard off and on (and stops and starts CrashShield) as fast as it can. Each change must reach each
    /// registered observer once. With the hand-back the registrations used to go through (each observer registered
    /// with Foundation directly, then the proxy taken off), a change made in between reached an observer twice.
    func testAChangeReachesEachObserverOnceWhileTheGuardIsSwitchedOffAndOn() throws {
        setUpGNUstepKVOOnOneThread()
        Self.clearLog()
        let configuration = Configuration(guards: .kvo, mode: .release, sinks: [InMemoryReportSink()])
        try CrashShield.start(configuration)
        let end = Date().addingTimeInterval(3)
        let wrong = Locked([String]())
        let changes = Locked(0)
        let done = DispatchSemaphore(value: 0)
        let storm = Thread {
            withAutoreleasePool {
                let model = css_kvo_model_new()!
                let observers = (1...3).map { css_kvo_recorder_new($0)! }
                var level: Int32 = 0, made = 0
                while Date() < end {
                    withAutoreleasePool {
                        for observer in observers { css_kvo_add(model, observer, "level", Self.new, 0) }
                        for _ in 0..<40 {
                            level += 1
                            let before = css_kvo_deliveries()
                            css_kvo_set_level(model, level)
                            let delivered = css_kvo_deliveries() - before
                            if delivered != observers.count {
                                wrong.withLock {
                                    $0.append(
                                        "change \(level): \(delivered) deliveries to \(observers.count) observers")
                                }
                            }
                            made += 1
                        }
                        for observer in observers { css_kvo_remove(model, observer, "level") }
                        level += 1
                        let before = css_kvo_deliveries()
                        css_kvo_set_level(model, level)
                        if css_kvo_deliveries() != before {
                            wrong.withLock {
                                $0.append(
                                    "change \(level) after the removals: \(css_kvo_deliveries() - before) deliveries")
                            }
                        }
                        Self.clearLog()
                    }
                }
                observers.forEach { css_object_release($0) }
                css_object_release(model)
                changes.withLock { $0 += made }
            }
            done.signal()
        }
        storm.stackSize = 4 << 20
        storm.start()
        var toggles = 0
        while Date() < end {
            if toggles % 16 == 15 {
                CrashShield.stop()
                try CrashShield.start(configuration)
            } else {
                try CrashShield.setGuard(.kvo, enabled: toggles % 2 == 1)
            }
            toggles += 1
            usleep(UInt32(100 + toggles % 5 * 150))
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the storm thread hangs")
        CrashShield.stop()
        let problems = wrong.current
        print("KVO switch-off storm: \(changes.current) changes, \(toggles) switches, \(problems.count) wrong")
        XCTAssertEqual(problems.count, 0, "\(problems.prefix(5))")
        XCTAssertGreaterThan(changes.current, 1000)
        XCTAssertGreaterThan(toggles, 100)
        XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0, "every registration ended, every model is gone")
    }

    /// What stays after `stop()`: a registration made through the guard stays on its proxy (changes reach the
    /// observer once, through it), its removal goes to the registry through the removal hook (still installed), and
    /// once no registration is left the hooks are reverted. New registrations go straight to Foundation.
    func testARegistrationMadeThroughTheGuardStaysOnItsProxyAfterStopUntilItIsRemoved() throws {
        try withAutoreleasePoolThrowing {
            Self.clearLog()
            let model = css_kvo_model_new()!, observer = css_kvo_recorder_new(1)!, late = css_kvo_recorder_new(2)!
            defer { [model, observer, late].forEach { css_object_release($0) } }
            let sink = InMemoryReportSink()
            try CrashShield.start(Configuration(guards: .kvo, mode: .release, sinks: [sink]))
            css_kvo_add(model, observer, "level", Self.new, 9)
            CrashShield.stop()
            XCTAssertEqual(ObservationStatus.kvoRegistrationCount, 1, "still on its proxy")
            XCTAssertTrue(KVOGuard.hooksInstalled, "the KVO hooks stay while a registration is on a proxy")
            css_kvo_add(model, late, "level", Self.new, 3)  // the guard is off: Foundation's
            XCTAssertEqual(ObservationStatus.kvoRegistrationCount, 1, "a registration made while off is Foundation's")
            css_kvo_set_level(model, 4)
            XCTAssertEqual(Self.log().sorted(), ["1|level|9|{kind=1,new=4}", "2|level|3|{kind=1,new=4}"], "once each")
            css_kvo_remove(model, observer, "level")
            XCTAssertEqual(ObservationStatus.kvoRegistrationCount, 0)
            css_kvo_set_level(model, 5)
            XCTAssertEqual(Self.log(), ["2|level|3|{kind=1,new=5}"], "the removed observer gets nothing")
            css_kvo_remove(model, late, "level")
            css_kvo_set_level(model, 6)
            XCTAssertEqual(Self.log(), [])
            XCTAssertTrue(self.waitUntil(5) { !KVOGuard.hooksInstalled }, "reverted once nothing is on a proxy")
            XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.point === KVOGuard.addObserver })
            CrashShield.waitForSinks()
            XCTAssertEqual(sink.reports(in: .kvo).count, 0)
        }
    }

    /// An observer freed while its registration made through the guard is still on the proxy, after `stop()`: it is
    /// taken off (no change reaches freed memory), and nothing is reported (the guard is off).
    func testAnObserverFreedAfterStopIsTakenOffItsProxyWithoutAReport() throws {
        try withAutoreleasePoolThrowing {
            Self.clearLog()
            let model = css_kvo_model_new()!, survivor = css_kvo_recorder_new(2)!
            defer { [model, survivor].forEach { css_object_release($0) } }
            let sink = InMemoryReportSink()
            try CrashShield.start(Configuration(guards: .kvo, mode: .release, sinks: [sink]))
            let dying = css_kvo_recorder_new(1)!
            css_kvo_add(model, dying, "level", Self.new, 0)
            css_kvo_add(model, survivor, "level", Self.new, 0)
            try CrashShield.setGuard(.kvo, enabled: false)
            css_object_release(dying)
            css_kvo_set_level(model, 7)
            XCTAssertEqual(Self.log(), ["2|level|0|{kind=1,new=7}"])
            try CrashShield.setGuard(.kvo, enabled: true)
            css_kvo_set_level(model, 8)
            XCTAssertEqual(Self.log(), ["2|level|0|{kind=1,new=8}"], "the proxy serves it as before")
            css_kvo_remove(model, survivor, "level")
            CrashShield.stop()
            CrashShield.waitForSinks()
            XCTAssertEqual(sink.reports(in: .kvo).count, 0, "the observer died while the guard was off")
        }
    }

    private func withAutoreleasePoolThrowing(_ body: @escaping () throws -> Void) throws {
        var failure: Error?
        withAutoreleasePool {
            do { try body() } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > end { return false }
            usleep(1000)
        }
        return true
    }
}
