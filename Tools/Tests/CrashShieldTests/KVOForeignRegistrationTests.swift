@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// Registrations the KVO guard did not make behave exactly as without CrashShield: those made before start() or
/// while the guard was off are removed normally (no report, no further change), system classes' own KVO is left
/// alone (configurable), and objects that remove their observers in their own -dealloc are not reported.
private let new: UInt = 0x01

/// The delivery log since the last call, without old values (GNUstep sends them to every observer of a key path
/// once one asked, with or without CrashShield).
private func takeLog() -> [String] {
    var buffer = [CChar](repeating: 0, count: 1 << 16)
    css_kvo_take_log(&buffer, UInt(buffer.count))
    return String(cString: buffer).split(separator: "\n").map {
        $0.replacingOccurrences(of: #",old=[^,}]*"#, with: "", options: .regularExpression)
    }
}

final class KVOForeignRegistrationTests: ShieldTestCase {

    // MARK: Registrations the guard did not make

    func testRegistrationMadeBeforeStartIsRemovedNormallyAfterStart() throws {
        try withAutoreleasePoolThrowing {
            _ = takeLog()
            let model = css_kvo_model_new()!, early = css_kvo_recorder_new(1)!, late = css_kvo_recorder_new(2)!
            defer { [model, early, late].forEach { css_object_release($0) } }
            css_kvo_add(model, early, "level", new, 0)
            withShield(Configuration(guards: .kvo)) { sink in
                css_kvo_add(model, late, "level", new, 0)  // through the guard, on the same object
                css_kvo_set_level(model, 1)
                XCTAssertEqual(takeLog().sorted(), ["1|level|0|{kind=1,new=1}", "2|level|0|{kind=1,new=1}"])
                css_kvo_remove(model, early, "level")
                css_kvo_set_level(model, 2)
                XCTAssertEqual(takeLog(), ["2|level|0|{kind=1,new=2}"], "the early observer gets no more changes")
                css_kvo_remove(model, late, "level")
                css_kvo_set_level(model, 3)
                XCTAssertEqual(takeLog(), [])
                XCTAssertEqual(sink.reports(in: .kvo).map(\.reason), [], "nothing was unbalanced")
                // Now Foundation has no observer of the model: a third removal is unbalanced, and reported where
                // Foundation raises for it (Apple's rules; GNUstep ignores it).
                underAppleRules { css_kvo_remove(model, early, "level") }
                XCTAssertEqual(sink.reports(in: .kvo).map(\.selector), ["removeObserver:forKeyPath:"])
            }
        }
    }

    func testRegistrationSurvivesTheGuardSwitchedOffAndOnAndIsRemovedNormally() throws {
        try withAutoreleasePoolThrowing {
            _ = takeLog()
            let model = css_kvo_model_new()!, observer = css_kvo_recorder_new(1)!
            defer { [model, observer].forEach { css_object_release($0) } }
            try withShield(Configuration(guards: .kvo)) { sink in
                css_kvo_add(model, observer, "level", new, 5)
                XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 1)
                try CrashShield.setGuard(.kvo, enabled: false)
                XCTAssertEqual(
                    ObservationStatus.kvoRegistrationCount, 1, "it stays on its proxy while the guard is off")
                css_kvo_set_level(model, 1)
                XCTAssertEqual(takeLog(), ["1|level|5|{kind=1,new=1}"], "delivered once, through the proxy")
                try CrashShield.setGuard(.kvo, enabled: true)
                css_kvo_set_level(model, 2)
                XCTAssertEqual(takeLog(), ["1|level|5|{kind=1,new=2}"])
                css_kvo_remove(model, observer, "level")
                css_kvo_set_level(model, 3)
                XCTAssertEqual(takeLog(), [], "removed: no change reaches it")
                XCTAssertEqual(sink.reports(in: .kvo).map(\.reason), [])
            }
        }
    }

    // MARK: System classes

    /// An app observer of an NSOperation (a Foundation class that announces `queuePriority` itself, and observes its
    /// own `isFinished`): left to Foundation by default, guarded when `kvoLeavesSystemClassesAlone` is false; either
    /// way, adding it twice is delivered as GNUstep does (it keeps one registration) and not reported.
    func testSystemClassesOwnKVOIsLeftAloneUnlessConfigured() throws {
        for leavesAlone in [true, false] {
            var configuration = Configuration(guards: .kvo)
            configuration.kvoLeavesSystemClassesAlone = leavesAlone
            try withAutoreleasePoolThrowing {
                _ = takeLog()
                let operation = css_kvo_operation_new()!, observer = css_kvo_recorder_new(1)!
                defer { [operation, observer].forEach { css_object_release($0) } }
                withShield(configuration) { sink in
                    css_kvo_add(operation, observer, "queuePriority", new, 0)
                    css_kvo_add(operation, observer, "queuePriority", new, 0)
                    XCTAssertEqual(
                        ObservationStatus.kvoObservedObjectCount, leavesAlone ? 0 : 1, "leavesAlone \(leavesAlone)")
                    css_kvo_set_priority(operation, 4)
                    XCTAssertEqual(takeLog(), ["1|queuePriority|0|{kind=1,new=4}"], "leavesAlone \(leavesAlone)")
                    css_kvo_remove(operation, observer, "queuePriority")
                    css_kvo_set_priority(operation, 8)
                    XCTAssertEqual(takeLog(), [])
                    XCTAssertEqual(sink.reports(in: .kvo).count, 0, "leavesAlone \(leavesAlone)")
                }
            }
        }
    }

    /// GNUstep observes a key path with a dot through observers of its own (NSKeyValueObservationForwarder, one per
    /// step): by default only the app's registration goes through the guard; every delivery is as without it.
    func testFoundationsOwnObserversAreLeftAlone() throws {
        func run() -> [String] {
            var log: [String] = []
            withAutoreleasePool {
                _ = takeLog()
                let model = css_kvo_model_new()!, child = css_kvo_model_new()!, observer = css_kvo_recorder_new(1)!
                css_kvo_set_name_object(model, child)
                css_kvo_add(model, observer, "name.level", new, 3)
                css_kvo_set_level(child, 7)
                log.append("registrations \(ObservationStatus.kvoRegistrationCount)")
                css_kvo_remove(model, observer, "name.level")
                css_kvo_set_level(child, 8)
                log += takeLog()
                [model, child, observer].forEach { css_object_release($0) }
            }
            return log
        }
        let unguarded = run()
        XCTAssertEqual(unguarded.count, 2, "\(unguarded)")
        withShield(Configuration(guards: .kvo)) { sink in
            XCTAssertEqual(run(), ["registrations 1"] + unguarded.dropFirst())
            XCTAssertEqual(sink.reports(in: .kvo).map(\.reason), [])
        }
        var everything = Configuration(guards: .kvo)
        everything.kvoLeavesSystemClassesAlone = false
        withShield(everything) { sink in
            let guarded = run()
            XCTAssertEqual(Array(guarded.dropFirst()), Array(unguarded.dropFirst()))
            XCTAssertNotEqual(
                guarded.first, "registrations 1", "the forwarders' registrations went through the guard too")
            XCTAssertEqual(sink.reports(in: .kvo).map(\.reason), [])
        }
    }

    // MARK: Deallocation and reports that tell the truth

    func testObserversRemovedInTheirOwnDeallocAreNotReported() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let model = css_kvo_model_new()!
                let tidy = css_kvo_tidy_observer_new(model, 1)!
                let selfObserver = css_kvo_self_observer_new(2)!
                css_kvo_set_level(model, 1)
                css_kvo_set_level(selfObserver, 2)
                XCTAssertEqual(takeLog(), ["1|level|0|{kind=1,new=1}", "2|level|0|{kind=1,new=2}"])
                css_object_release(tidy)  // removes itself in its -dealloc
                css_object_release(selfObserver)  // observes itself; removes itself in its -dealloc
                css_kvo_set_level(model, 3)
                XCTAssertEqual(takeLog(), [])
                css_object_release(model)
            }
            XCTAssertEqual(sink.reports(in: .kvo).map(\.reason), [], "valid code: nothing to report")
            XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0)
        }
    }

    /// An observer freed while registered, and never changed afterwards: nothing failed. In debug mode the report
    /// says what happened and what CrashShield did, and does not claim a failure (KVO and notifications alike).
    func testObserverFreedWhileRegisteredIsReportedAsHandledInDebugMode() throws {
        try withShield(Configuration(guards: [.kvo, .notification], mode: .debug)) { sink in
            withAutoreleasePool {
                let model = css_kvo_model_new()!
                let observer = css_kvo_recorder_new(1)!
                css_kvo_add(model, observer, "level", new, 0)
                css_object_release(observer)
                css_object_release(model)
                let noted = css_note_large_recorder_new(2)!
                css_note_add(css_note_default_center(), noted, "note:", "CSSNote.KVODebug", nil)
                css_object_release(noted)
            }
            let kvo = try XCTUnwrap(sink.reports(in: .kvo).first)
            XCTAssertEqual(sink.reports(in: .kvo).count, 1)
            XCTAssertEqual(kvo.action, .recovered, "nothing failed")
            XCTAssertTrue(kvo.reason.contains("was deallocated while still observing the key paths level"), kvo.reason)
            XCTAssertTrue(kvo.reason.contains("CrashShield removed its registrations"), kvo.reason)
            let notification = try XCTUnwrap(sink.reports(in: .notification).first)
            XCTAssertEqual(notification.action, .recovered, "nothing failed")
            XCTAssertTrue(
                notification.reason.contains("it was removed from the notification center"), notification.reason)
        }
    }
}

/// `withAutoreleasePool` for a throwing body.
private func withAutoreleasePoolThrowing(_ body: @escaping () throws -> Void) throws {
    var failure: Error?
    withAutoreleasePool {
        do { try body() } catch { failure = error }
    }
    if let failure { throw failure }
}
