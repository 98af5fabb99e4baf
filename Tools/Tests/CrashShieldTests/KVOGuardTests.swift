@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The KVO guard in this process: every case is stopped and reported once, valid observation is delivered exactly
/// as without the guard, several threads at once, and registrations made through the guard outlive stop() on their
/// proxies until their natural end.
private let new: UInt = 0x01, old: UInt = 0x02, initial: UInt = 0x04, prior: UInt = 0x08

/// The observers' delivery log since the last call.
private func takeLog() -> [String] {
    var buffer = [CChar](repeating: 0, count: 1 << 16)
    css_kvo_take_log(&buffer, UInt(buffer.count))
    return String(cString: buffer).split(separator: "\n").map(String.init)
}

final class KVOGuardTests: ShieldTestCase {

    private func validSequence() -> [String] {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        css_kvo_valid_sequence(&buffer, UInt(buffer.count))
        return String(cString: buffer).split(separator: "\n").map(String.init)
    }

    /// Runs `body` with a model and `count` recorders (tags 1...count), all released afterwards.
    private func withObjects(
        _ count: Int = 1, _ body: @escaping (UnsafeMutableRawPointer, [UnsafeMutableRawPointer]) -> Void
    ) {
        withAutoreleasePool {
            _ = takeLog()
            let model = css_kvo_model_new()!
            let observers = (1...max(1, count)).map { css_kvo_recorder_new($0)! }
            body(model, observers)
            css_object_release(model)
            observers.forEach { css_object_release($0) }
        }
    }

    private func kvoReports(_ sink: InMemoryReportSink) -> [CrashReport] { sink.reports(in: .kvo) }

    // MARK: Differential

    func testValidObservationIsDeliveredExactlyAsWithoutTheGuard() throws {
        let unguarded = validSequence()
        XCTAssertGreaterThan(unguarded.count, 8, unguarded.joined(separator: "\n"))
        withShield(Configuration(guards: .kvo)) { sink in
            XCTAssertEqual(validSequence(), unguarded)
            XCTAssertEqual(kvoReports(sink).count, 0, "\(kvoReports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0, "every registration was removed")
        }
        XCTAssertEqual(validSequence(), unguarded, "after stop")
    }

    func testOptionsContextsAndOrder() throws {
        withShield(Configuration(guards: .kvo)) { _ in
            withObjects(2) { model, observers in
                css_kvo_set_level(model, 7)
                css_kvo_add(model, observers[0], "level", new | old | initial | prior, 0x51)
                XCTAssertEqual(takeLog(), ["1|level|81|{kind=1,new=7}"], "initial: the current value, at add time")
                css_kvo_add(model, observers[1], "level", new, 0x52)
                css_kvo_set_level(model, 8)
                XCTAssertEqual(
                    takeLog(),
                    [
                        "1|level|81|{kind=1,notificationIsPrior=1,old=7}",
                        "2|level|82|{kind=1,new=8,old=7}",
                        "1|level|81|{kind=1,new=8,old=7}",
                    ], "prior only to the observer that asked; newest first and one dictionary for all (as GNUstep)")
                css_kvo_remove(model, observers[0], "level")
                css_kvo_remove(model, observers[1], "level")
                css_kvo_set_level(model, 9)
                XCTAssertEqual(takeLog(), [])
            }
        }
    }

    /// Apple keeps one registration per context: each is notified and removed by its context.
    func testUnderAppleRulesOneObserverWithTwoContextsGetsBothAndRemovesByContext() throws {
        try underAppleRules { try oneObserverWithTwoContextsGetsBothAndRemovesByContext() }
    }

    private func oneObserverWithTwoContextsGetsBothAndRemovesByContext() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            withObjects { model, observers in
                css_kvo_add(model, observers[0], "level", new, 1)
                css_kvo_add(model, observers[0], "level", new, 2)
                css_kvo_set_level(model, 3)
                XCTAssertEqual(takeLog(), ["1|level|2|{kind=1,new=3}", "1|level|1|{kind=1,new=3}"])
                css_kvo_remove_context(model, observers[0], "level", 1)
                css_kvo_set_level(model, 4)
                XCTAssertEqual(
                    takeLog(), ["1|level|2|{kind=1,new=4,old=3}"], "GNUstep sends old values to every observer")
                css_kvo_remove_context(model, observers[0], "level", 2)
                css_kvo_set_level(model, 5)
                XCTAssertEqual(takeLog(), [])
            }
            XCTAssertEqual(kvoReports(sink).count, 0)
        }
    }

    /// GNUstep keeps one registration per observer and key path: the second add gives it the new context and options
    /// (Initial included), one removal by key path removes it. The same with the guard.
    func testOneObserverAddedAgainWithAnotherContextIsKeptAsGNUstepKeepsIt() throws {
        #if canImport(Darwin)
        throw XCTSkip("GNUstep's rule")
        #else
        func run() -> [String] {
            var log: [String] = []
            withObjects { model, observers in
                css_kvo_add(model, observers[0], "level", new, 1)
                css_kvo_add(model, observers[0], "level", new | old | initial, 2)
                css_kvo_set_level(model, 3)
                css_kvo_remove(model, observers[0], "level")
                css_kvo_set_level(model, 4)
                css_kvo_remove(model, observers[0], "level")
                log = takeLog()
            }
            return log
        }
        let unguarded = run()
        XCTAssertEqual(unguarded, ["1|level|2|{kind=1,new=0}", "1|level|2|{kind=1,new=3,old=0}"])
        withShield(Configuration(guards: .kvo)) { sink in
            XCTAssertEqual(run(), unguarded)
            XCTAssertEqual(kvoReports(sink).count, 0)
        }
        #endif
    }

    // MARK: Cases

    /// Apple's Foundation raises NSRangeException for it: under Apple's rules the call is skipped and reported.
    /// GNUstep's removes nothing and raises nothing: under its rules the call reaches GNUstep, and nothing is reported.
    func testRemovingAnObserverNeverAddedIsReportedOnlyWhereFoundationRaises() throws {
        try underAppleRules {
            try withShield(Configuration(guards: .kvo)) { sink in
                withObjects { model, observers in css_kvo_remove(model, observers[0], "level") }
                let report = try XCTUnwrap(kvoReports(sink).first)
                XCTAssertEqual(kvoReports(sink).count, 1)
                XCTAssertEqual(report.selector, "removeObserver:forKeyPath:")
                XCTAssertEqual(report.exceptionName, "NSRangeException")
                XCTAssertTrue(report.reason.contains("because it is not registered as an observer"), report.reason)
                XCTAssertEqual(report.className, "CSSKVOModel")
            }
        }
        #if !canImport(Darwin)
        withShield(Configuration(guards: .kvo)) { sink in
            withObjects { model, observers in
                XCTAssertNil(catchingObjCException { css_kvo_remove(model, observers[0], "level") })
                XCTAssertNil(catchingObjCException { css_kvo_remove(model, observers[0], nil) })
            }
            XCTAssertEqual(
                kvoReports(sink).count, 0, "GNUstep would not have raised: \(kvoReports(sink).map(\.reason))")
        }
        #endif
    }

    func testRemovingMoreOftenThanAddedReportsOnce() throws {
        try underAppleRules { try removingMoreOftenThanAddedReportsOnce() }
    }

    private func removingMoreOftenThanAddedReportsOnce() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            withObjects { model, observers in
                css_kvo_add(model, observers[0], "level", new, 0)
                css_kvo_remove(model, observers[0], "level")
                css_kvo_remove(model, observers[0], "level")
                css_kvo_set_level(model, 1)
                XCTAssertEqual(takeLog(), [])
            }
            XCTAssertEqual(kvoReports(sink).count, 1)
        }
    }

    /// The same (observer, key path, context) added twice is valid Foundation usage, so nothing is reported. Under
    /// Apple's rules both registrations are kept: each change is delivered twice, and each registration needs its
    /// own removal (a third removal is unbalanced: NSRangeException there). GNUstep keeps one registration (one
    /// delivery; a second removal does nothing there).
    func testAddingTheSameRegistrationTwiceBehavesAsFoundation() throws {
        underAppleRules {
            withShield(Configuration(guards: .kvo)) { sink in
                withObjects { model, observers in
                    css_kvo_add(model, observers[0], "level", new, 5)
                    css_kvo_add(model, observers[0], "level", new, 5)
                    css_kvo_set_level(model, 1)
                    XCTAssertEqual(takeLog(), ["1|level|5|{kind=1,new=1}", "1|level|5|{kind=1,new=1}"])
                    css_kvo_remove(model, observers[0], "level")
                    css_kvo_set_level(model, 2)
                    // (GNUstep's dictionary: it adds the old value once it has one, whatever the options.)
                    XCTAssertEqual(
                        takeLog().map { $0.hasPrefix("1|level|5|{kind=1,new=2") }, [true], "one registration left")
                    XCTAssertTrue(self.kvoReports(sink).isEmpty, "\(self.kvoReports(sink).map(\.reason))")
                    css_kvo_remove(model, observers[0], "level")
                    css_kvo_set_level(model, 3)
                    XCTAssertEqual(takeLog(), [])
                    XCTAssertTrue(self.kvoReports(sink).isEmpty, "two removals balance two registrations")
                    css_kvo_remove(model, observers[0], "level")
                }
                XCTAssertEqual(kvoReports(sink).map(\.exceptionName), ["NSRangeException"], "the third removal")
            }
        }
        #if !canImport(Darwin)
        withShield(Configuration(guards: .kvo)) { sink in
            withObjects { model, observers in
                css_kvo_add(model, observers[0], "level", new, 5)
                css_kvo_add(model, observers[0], "level", new, 5)
                css_kvo_set_level(model, 1)
                XCTAssertEqual(takeLog(), ["1|level|5|{kind=1,new=1}"], "GNUstep keeps one registration")
                css_kvo_remove(model, observers[0], "level")
                css_kvo_set_level(model, 2)
                XCTAssertEqual(takeLog(), [])
                XCTAssertNil(catchingObjCException { css_kvo_remove(model, observers[0], "level") })
            }
            XCTAssertTrue(kvoReports(sink).isEmpty, "\(kvoReports(sink).map(\.reason))")
        }
        #endif
    }

    /// An observed object deallocated with an observer still registered: the guard takes it off its table (a new
    /// object, maybe at the same address, has no observer). GNUstep's KVO forgets the object's observers at its
    /// `-dealloc`, for every key, and raises nothing (GSKVOBase's `-dealloc` drops the observation info): no report.
    /// Where Foundation raises (Apple before iOS 11, and for keys notified manually) it is reported:
    /// `testWhereFoundationForgetsDeadObservedObjectsOnlyManualKeysAreWatchedAndReported`.
    func testObservedObjectDeallocatedWithObserversIsCleanedUpAndReportedOnlyWhereFoundationRaises() throws {
        #if !canImport(Darwin)
        withAutoreleasePool {
            let observer = css_kvo_recorder_new(1)!, model = css_kvo_model_new()!
            css_kvo_add(model, observer, "level", new, 0)
            XCTAssertNil(
                catchingObjCException { css_object_release(model) }, "without CrashShield GNUstep raises nothing")
            css_object_release(observer)
        }
        #endif
        withShield(Configuration(guards: .kvo)) { sink in
            withAutoreleasePool {
                let observer = css_kvo_recorder_new(1)!
                let model = css_kvo_model_new()!
                css_kvo_add(model, observer, "level", new, 0)
                css_object_release(model)
                XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0)
                // A new model (maybe at the same address) has no observer.
                let next = css_kvo_model_new()!
                css_kvo_set_level(next, 2)
                XCTAssertEqual(takeLog(), [])
                css_object_release(next)
                css_object_release(observer)
            }
            #if !canImport(Darwin)
            XCTAssertEqual(
                kvoReports(sink).count, 0, "GNUstep would not have raised: \(kvoReports(sink).map(\.reason))")
            #endif
        }
    }

    func testObserverDeallocatedWhileRegisteredIsNeverMessaged() throws {
        try withShield(Configuration(guards: .kvo)) { sink in
            withAutoreleasePool {
                let model = css_kvo_model_new()!
                let observer = css_kvo_recorder_new(1)!
                let survivor = css_kvo_recorder_new(2)!
                css_kvo_add(model, observer, "level", new, 0)
                css_kvo_add(model, survivor, "level", new, 0)
                css_object_release(observer)
                css_kvo_set_level(model, 3)
                XCTAssertEqual(takeLog(), ["2|level|0|{kind=1,new=3}"], "only the live observer")
                css_kvo_remove(model, survivor, "level")
                css_object_release(survivor)
                css_object_release(model)
            }
            let report = try XCTUnwrap(kvoReports(sink).first)
            XCTAssertEqual(kvoReports(sink).count, 1)
            XCTAssertEqual(report.className, "CSSKVORecorder")
            XCTAssertEqual(report.selector, "observeValueForKeyPath:ofObject:change:context:")
        }
    }

    func testObserverWithoutObserveValueIsSkippedAndReported() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            withAutoreleasePool {
                let model = css_kvo_model_new()!
                let forgetful = css_kvo_forgetful_new()!
                css_kvo_add(model, forgetful, "level", new, 0)
                XCTAssertNil(catchingObjCException { css_kvo_set_level(model, 1) })
                css_kvo_remove(model, forgetful, "level")
                css_object_release(forgetful)
                css_object_release(model)
            }
            XCTAssertEqual(kvoReports(sink).map(\.className), ["CSSKVOForgetfulObserver"])
        }
    }

    func testDebugModeLetsTheUnhandledChangeRaiseAfterReporting() throws {
        withShield(Configuration(guards: .kvo, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                let model = css_kvo_model_new()!
                let forgetful = css_kvo_forgetful_new()!
                css_kvo_add(model, forgetful, "level", new, 0)
                raised = catchingObjCException { css_kvo_set_level(model, 1) }
                css_kvo_remove(model, forgetful, "level")
                css_object_release(forgetful)
                css_object_release(model)
            }
            XCTAssertEqual(raised?.name, "NSInvalidArgumentException")
            XCTAssertEqual(kvoReports(sink).first?.reason, raised?.reason)
            XCTAssertEqual(kvoReports(sink).first?.action, .failedLoudly)
        }
    }

    /// GNUstep's own failure for an empty key path comes from -substringFromIndex:, which the string guard also
    /// stops: with every guard on, debug mode still fails once, with the exception and reason release mode reports
    /// (the crash matrix proves those equal to Foundation's). Never run unguarded in this process: GNUstep raises
    /// while holding its KVO lock.
    func testDebugModeFailsOnceForAnEmptyKeyPathWithEveryGuardOn() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvo.addObserver.emptyKeyPath"))
        var released: CrashReport?
        withShield(Configuration(guards: .all)) { sink in
            _ = scenario.perform()
            XCTAssertEqual(sink.reports.count, 1)
            released = sink.reports.first
        }
        withShield(Configuration(guards: .all, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, scenario.exception)
            XCTAssertEqual(raised?.reason, released?.reason)
            XCTAssertEqual(sink.reports.map(\.action), [.failedLoudly], "one report: \(sink.reports.map(\.selector))")
        }
    }

    /// Under Apple's rules: a removal with a nil or empty key path is reported there (GNUstep ignores it).
    func testNilAndEmptyKeyPaths() throws {
        try underAppleRules { try nilAndEmptyKeyPaths() }
    }

    private func nilAndEmptyKeyPaths() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            withObjects { model, observers in
                css_kvo_add(model, observers[0], nil, new, 0)
                css_kvo_add(model, observers[0], "", new, 0)
                css_kvo_remove(model, observers[0], nil)
                css_kvo_remove(model, observers[0], "")
                css_kvo_set_level(model, 1)
                XCTAssertEqual(takeLog(), [])
            }
            // One call site per hook: the two bad adds share a report, as do the two bad removes.
            XCTAssertEqual(
                kvoReports(sink).map(\.selector).sorted(),
                ["addObserver:forKeyPath:options:context:", "removeObserver:forKeyPath:"])
        }
    }

    func testRemoveWithAContextThatDoesNotMatchIsSkippedAndReported() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            withObjects { model, observers in
                css_kvo_add(model, observers[0], "level", new, 1)
                XCTAssertNil(catchingObjCException { css_kvo_remove_context(model, observers[0], "level", 2) })
                css_kvo_set_level(model, 1)
                XCTAssertEqual(takeLog(), ["1|level|1|{kind=1,new=1}"], "the registration stays")
                css_kvo_remove_context(model, observers[0], "level", 1)
            }
            XCTAssertEqual(kvoReports(sink).map(\.selector), ["removeObserver:forKeyPath:context:"])
        }
    }

    /// A deny-listed observed class is Foundation's alone (`Session.isGuarding`): no proxy, an unbalanced removal goes
    /// to Foundation unreported; another class in the same run is guarded. Under Apple's rules, where an unbalanced
    /// removal raises.
    func testAnExcludedObservedClassIsLeftToFoundation() throws {
        try underAppleRules { try excludedObservedClassIsLeftToFoundation() }
    }

    private func excludedObservedClassIsLeftToFoundation() throws {
        var configuration = Configuration(guards: .kvo)
        configuration.excludedClassNames = ["CSSKVOModel"]
        withShield(configuration) { sink in
            withObjects { model, observers in
                css_kvo_add(model, observers[0], "level", new, 0)
                XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0, "registered with Foundation directly")
                css_kvo_remove(model, observers[0], "level")
                css_kvo_remove(model, observers[0], "level")
            }
            XCTAssertEqual(kvoReports(sink).count, 0, "\(kvoReports(sink).map(\.reason))")
            withAutoreleasePool {
                let other = css_kvo_lifetime_model_new(false)!
                let observer = css_kvo_recorder_new(1)!
                css_kvo_remove(other, observer, "level")
                css_object_release(other)
                css_object_release(observer)
            }
            XCTAssertEqual(kvoReports(sink).map(\.className), ["CSSKVOAutomaticModel"])
        }
    }

    // MARK: Observed objects deallocated with observers: Apple's rule (iOS 11 / macOS 10.13)

    /// What the guard did for a model deallocated with an observer of `level` still registered.
    private struct ObservedDeath {
        /// Objects the registration made `DeallocWatcher` watch (the observer always; the model when watched).
        var watchedObjects = 0
        /// Whether the model's class got a `-dealloc` hook.
        var classHooked = false
        /// Objects the registry still knows once the model is gone.
        var observedLeft = -1
    }

    /// Observes a new model (its `level` notified automatically or manually), checks delivery, then releases the
    /// model with the registration left in place.
    private func observedDiesRegistered(manual: Bool) -> ObservedDeath {
        var death = ObservedDeath()
        withAutoreleasePool {
            _ = takeLog()
            let observer = css_kvo_recorder_new(1)!
            let model = css_kvo_lifetime_model_new(manual)!
            let cls = csr_object_getClass(model)!
            let before = DeallocWatcher.shared.watchedObjectCount
            css_kvo_add(model, observer, "level", new, 0)
            death.watchedObjects = DeallocWatcher.shared.watchedObjectCount - before
            death.classHooked = DeallocWatcher.shared.isHooked(cls)
            css_kvo_set_level(model, 3)
            XCTAssertEqual(takeLog(), ["1|level|0|{kind=1,new=3}"], manual ? "manual" : "automatic")
            let address = UInt(bitPattern: model)
            css_object_release(model)
            // Emulation: where Apple's objc_destructInstance releases the model's associated objects (no-op unless
            // emulated).
            csr_test_kvo_destroyed(address)
            death.observedLeft = ObservationStatus.kvoObservedObjectCount
            css_object_release(observer)
        }
        return death
    }

    /// Apple's Foundation (iOS 11 / macOS 10.13 and later) removes the observers still registered when an object whose
    /// key is notified automatically is deallocated, and raises only for keys notified manually. Emulated on GNUstep:
    /// the automatic key's model is not watched (no `-dealloc` hook on its class, only the observer watched) and its
    /// death is not reported; the registry forgets it when it is gone. The manual key's model is watched and reported.
    func testWhereFoundationForgetsDeadObservedObjectsOnlyManualKeysAreWatchedAndReported() throws {
        csr_test_emulateAppleKVO(true)
        defer { csr_test_emulateAppleKVO(false) }
        try withShield(Configuration(guards: .kvo)) { sink in
            let automatic = observedDiesRegistered(manual: false)
            XCTAssertEqual(automatic.watchedObjects, 1, "only the observer is watched")
            XCTAssertFalse(automatic.classHooked, "no -dealloc hook on CSSKVOAutomaticModel")
            XCTAssertEqual(automatic.observedLeft, 0, "forgotten at the model's end")
            XCTAssertEqual(kvoReports(sink).count, 0, "\(kvoReports(sink).map(\.reason))")

            let manual = observedDiesRegistered(manual: true)
            XCTAssertEqual(manual.watchedObjects, 2, "the observer and the model")
            XCTAssertTrue(manual.classHooked, "-dealloc hooked on CSSKVOManualModel")
            XCTAssertEqual(manual.observedLeft, 0)
            let report = try XCTUnwrap(kvoReports(sink).first)
            XCTAssertEqual(kvoReports(sink).count, 1)
            XCTAssertEqual(report.selector, "dealloc")
            XCTAssertEqual(report.className, "CSSKVOManualModel")
            XCTAssertEqual(report.exceptionName, "NSInternalInconsistencyException")
        }
    }

    /// An observed object that is not watched keeps every other protection: an observer that dies registered is
    /// removed and reported, the others still get changes, a model reusing a dead one's memory starts afresh, and
    /// its registrations outlive stop() on its proxy until they are removed.
    func testAnObservedObjectThatIsNotWatchedKeepsTheOtherProtections() throws {
        csr_test_emulateAppleKVO(true)
        defer { csr_test_emulateAppleKVO(false) }
        var model: UnsafeMutableRawPointer?, survivor: UnsafeMutableRawPointer?
        withShield(Configuration(guards: .kvo)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let first = css_kvo_lifetime_model_new(false)!
                let observer = css_kvo_recorder_new(1)!
                css_kvo_add(first, observer, "level", new, 0)
                let address = UInt(bitPattern: first)
                css_object_release(first)
                csr_test_kvo_destroyed(address)
                // Maybe at the same address: a new object, new registrations.
                model = css_kvo_lifetime_model_new(false)!
                survivor = css_kvo_recorder_new(2)!
                let dying = css_kvo_recorder_new(3)!
                css_kvo_add(model, survivor, "level", new, 0)
                css_kvo_add(model, dying, "level", new, 0)
                css_object_release(dying)
                css_kvo_set_level(model, 4)
                XCTAssertEqual(takeLog(), ["2|level|0|{kind=1,new=4}"], "only the live observer")
                css_object_release(observer)
            }
            XCTAssertEqual(kvoReports(sink).map(\.className), ["CSSKVORecorder"], "the dead observer only")
            XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 1)
        }
        // Still on the proxy after stop(): delivered through it, and its removal reaches the registry through the
        // hook, which stays while a registration is left (GNUstep would not raise either way: the log shows it).
        withAutoreleasePool {
            css_kvo_set_level(model, 5)
            XCTAssertEqual(
                takeLog(), ["2|level|0|{kind=1,new=5,old=4}"], "from Foundation (GNUstep adds the old value)")
            css_kvo_remove(model, survivor, "level")
            css_kvo_set_level(model, 6)
            XCTAssertEqual(takeLog(), [])
            let address = UInt(bitPattern: model)
            css_object_release(model)
            csr_test_kvo_destroyed(address)
            css_object_release(survivor)
        }
    }

    // MARK: Lifecycle and threads

    /// stop() moves no registration (see KVOSwitchOffTests): the proxy delivers it until the app removes it.
    func testARegistrationOutlivesStopOnItsProxyUntilRemoved() throws {
        withAutoreleasePool {
            let model = css_kvo_model_new()!
            let observer = css_kvo_recorder_new(1)!
            withShield(Configuration(guards: .kvo)) { _ in
                css_kvo_add(model, observer, "level", new, 9)
            }
            XCTAssertEqual(ObservationStatus.kvoRegistrationCount, 1, "still on its proxy")
            css_kvo_set_level(model, 4)
            XCTAssertEqual(takeLog(), ["1|level|9|{kind=1,new=4}"], "delivered once, through the proxy")
            css_kvo_remove(model, observer, "level")
            XCTAssertEqual(ObservationStatus.kvoRegistrationCount, 0, "the removal reached the registry")
            css_kvo_set_level(model, 5)
            XCTAssertEqual(takeLog(), [])
            #if !canImport(Darwin)
            XCTAssertEqual(
                catchingObjCException { css_kvo_remove_context(model, observer, "level", 9) }?.name,
                "NSInvalidArgumentException", "after stop GNUstep's missing method fails as before")
            #endif
            css_object_release(observer)
            css_object_release(model)
        }
    }

    func testConcurrentAddChangeRemove() throws {
        setUpGNUstepKVOOnOneThread()
        withShield(Configuration(guards: .kvo)) { sink in
            let threads = 4, rounds = 200
            let models = (0..<threads).map { _ in UInt(bitPattern: css_kvo_model_new()!) }
            DispatchQueue.concurrentPerform(iterations: threads) { index in
                withAutoreleasePool {
                    for round in 0..<rounds {
                        let model = UnsafeMutableRawPointer(bitPattern: models[(index + round) % threads])!
                        let observer = css_kvo_recorder_new(index)!
                        css_kvo_add(model, observer, "level", 0x01, UInt(index))
                        css_kvo_set_level(model, Int32(round))
                        css_kvo_remove(model, observer, "level")
                        if round % 3 == 0 { css_kvo_add(model, observer, "level", 0x01, 0) }  // dies registered
                        css_object_release(observer)
                    }
                }
            }
            models.forEach { css_object_release(UnsafeMutableRawPointer(bitPattern: $0)) }
            XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0)
            XCTAssertTrue(
                kvoReports(sink).allSatisfy { $0.reason.contains("deallocated while still observing") },
                "\(kvoReports(sink).map(\.reason))")
            _ = takeLog()
        }
    }

    // MARK: Observers released while a change is being delivered to them

    /// Runs `body` on a new thread (in an autorelease pool); the semaphore is signalled when it returns.
    private func spawn(_ body: @escaping () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            withAutoreleasePool { body() }; done.signal()
        }
        thread.start()
        return done
    }

    private func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > end { return false }
            usleep(1000)
        }
        return true
    }

    private func probeEvents() -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        css_kvo_probe_events(&buffer, UInt(buffer.count))
        return String(cString: buffer).split(separator: "\n").map(String.init)
    }

    private func pointer(_ bits: UInt) -> UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: bits)! }

    func testObserverReleasedDuringADeliveryOnAnotherThreadIsFreedOnlyAfterTheCallReturns() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            css_kvo_probe_reset()
            defer { css_kvo_probe_open_gate() }  // never leave a thread blocked, even when an assertion fails
            _ = takeLog()
            // The probe observes two models; the witness observes the second. (GNUstep holds a model's KVO lock while
            // it notifies: a second change of the first model would wait for the first one.)
            let first = UInt(bitPattern: css_kvo_model_new()!), second = UInt(bitPattern: css_kvo_model_new()!)
            let witness = css_kvo_recorder_new(2)!
            let probe = UInt(bitPattern: css_kvo_probe_new(1, true)!)
            css_kvo_add(pointer(first), pointer(probe), "level", new, 0)
            css_kvo_add(pointer(second), witness, "level", new, 0)
            css_kvo_add(pointer(second), pointer(probe), "level", new, 0)  // the newest: called first
            let delivered = spawn { css_kvo_set_level(self.pointer(first), 1) }
            XCTAssertTrue(css_kvo_probe_wait_entered(1, 10), "the change is in the probe's handler")
            let released = spawn {
                css_object_release(self.pointer(probe))  // the last reference
                css_kvo_probe_note("released")
            }
            XCTAssertTrue(
                waitUntil(10) { ObservationStatus.kvoObserversBeingDeallocated == 1 },
                "the probe's dealloc waits for the call in flight")
            let changed = spawn { css_kvo_set_level(self.pointer(second), 2) }
            XCTAssertEqual(changed.wait(timeout: .now() + 10), .success, "a change meanwhile is delivered")
            XCTAssertEqual(takeLog(), ["2|level|0|{kind=1,new=2}"], "to the other observer only")
            XCTAssertEqual(released.wait(timeout: .now() + 0.3), .timedOut, "the release waits for the handler")
            css_kvo_probe_open_gate()
            XCTAssertEqual(released.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(delivered.wait(timeout: .now() + 10), .success)
            let events = probeEvents()
            XCTAssertEqual(
                events.filter { $0 == "enter 1" }.count, 1, "no later change reached the dying probe: \(events)")
            XCTAssertTrue(events.contains("dealloc 1"), "\(events)")
            XCTAssertLessThan(
                events.firstIndex(of: "return 1") ?? .max, events.firstIndex(of: "released") ?? -1,
                "freed only after its handler returned: \(events)")
            XCTAssertEqual(ObservationStatus.kvoObserversBeingDeallocated, 0)
            css_kvo_set_level(pointer(first), 3)
            css_kvo_set_level(pointer(second), 3)
            let after = takeLog()
            XCTAssertEqual(after.count, 1, "\(after)")
            XCTAssertTrue(after.first?.hasPrefix("2|level|0|{kind=1,new=3") == true, "only the witness: \(after)")
            css_kvo_remove(pointer(second), witness, "level")
            css_object_release(witness)
            css_object_release(pointer(first))
            css_object_release(pointer(second))
            XCTAssertGreaterThan(kvoReports(sink).count, 0)
            XCTAssertTrue(kvoReports(sink).allSatisfy { $0.reason.contains("deallocated while still observing") })
        }
    }

    func testObserverReleasingItselfInItsOwnHandlerDoesNotWaitForItself() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            css_kvo_probe_reset()
            let finished = spawn {
                let model = css_kvo_model_new()!
                let probe = css_kvo_probe_new(3, false)!
                css_kvo_add(model, probe, "level", new, 0)
                css_kvo_probe_set_victim(probe, probe)
                css_object_release(probe)  // its reference to itself keeps it alive
                css_kvo_set_level(model, 1)  // its handler drops that reference: it dies inside its own call
                css_kvo_set_level(model, 2)  // reaches nobody
                css_object_release(model)
            }
            XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "no deadlock")
            XCTAssertEqual(probeEvents(), ["enter 3", "dealloc 3", "return 3"])
            XCTAssertEqual(ObservationStatus.kvoObserversBeingDeallocated, 0)
            XCTAssertEqual(kvoReports(sink).count, 1)
        }
    }

    func testTwoObserversReleasingEachOtherDuringDeliveriesOnTwoThreadsDoNotDeadlock() throws {
        withShield(Configuration(guards: .kvo)) { sink in
            for _ in 0..<5 {
                css_kvo_probe_reset()
                defer { css_kvo_probe_open_gate() }
                let first = UInt(bitPattern: css_kvo_model_new()!), second = UInt(bitPattern: css_kvo_model_new()!)
                let one = css_kvo_probe_new(1, true)!, two = css_kvo_probe_new(2, true)!
                css_kvo_add(pointer(first), one, "level", new, 0)
                css_kvo_add(pointer(second), two, "level", new, 0)
                css_kvo_probe_set_victim(one, two)
                css_kvo_probe_set_victim(two, one)
                css_object_release(one)
                css_object_release(two)  // each keeps the other alive
                let a = spawn { css_kvo_set_level(self.pointer(first), 1) }
                let b = spawn { css_kvo_set_level(self.pointer(second), 1) }
                XCTAssertTrue(css_kvo_probe_wait_entered(2, 10))
                // Each handler now releases the other probe, whose call is in flight on the other thread: one waits,
                // the other would wait for it (a cycle): its probe's deallocation is held instead.
                css_kvo_probe_open_gate()
                XCTAssertEqual(a.wait(timeout: .now() + 10), .success, "no deadlock")
                XCTAssertEqual(b.wait(timeout: .now() + 10), .success, "no deadlock")
                let events = probeEvents()
                XCTAssertTrue(events.contains("dealloc 1") && events.contains("dealloc 2"), "\(events)")
                XCTAssertEqual(ObservationStatus.kvoObserversBeingDeallocated, 0)
                css_kvo_set_level(pointer(first), 2)
                css_kvo_set_level(pointer(second), 2)
                XCTAssertEqual(
                    probeEvents().filter { $0.hasPrefix("enter") }.count, 2, "nothing reaches them afterwards")
                css_object_release(pointer(first))
                css_object_release(pointer(second))
            }
            XCTAssertTrue(kvoReports(sink).allSatisfy { $0.reason.contains("deallocated while still observing") })
        }
    }
}
