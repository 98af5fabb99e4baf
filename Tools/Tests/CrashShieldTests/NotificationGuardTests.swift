@testable import CrashShield
@testable import CrashShieldNotifications
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The notification guard in this process: dead observers are removed and reported once (never when they removed
/// themselves), observers that cannot receive are not registered, valid use is delivered exactly as without the
/// guard; posting on a given thread (`NotificationPoster.post(on:)`) and closure observation bound to an owner's
/// lifetime, with priorities (CrashShieldNotifications).

/// The recorders' delivery log since the last call.
private func takeLog() -> [String] {
    var buffer = [CChar](repeating: 0, count: 1 << 16)
    css_note_take_log(&buffer, UInt(buffer.count))
    return String(cString: buffer).split(separator: "\n").map(String.init)
}

private let center = css_note_default_center()!

final class NotificationGuardTests: ShieldTestCase {

    private func validSequence() -> [String] {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        css_note_valid_sequence(&buffer, UInt(buffer.count))
        return String(cString: buffer).split(separator: "\n").map(String.init)
    }

    private func reports(_ sink: InMemoryReportSink) -> [CrashReport] { sink.reports(in: .notification) }

    // MARK: Differential

    func testValidUseIsDeliveredExactlyAsWithoutTheGuard() throws {
        let unguarded = validSequence()
        XCTAssertEqual(unguarded.count, 12, unguarded.joined(separator: "\n"))
        withShield(Configuration(guards: .notification)) { sink in
            XCTAssertEqual(validSequence(), unguarded)
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.notificationObserverCount, 0, "every registration was removed")
        }
        XCTAssertEqual(validSequence(), unguarded, "after stop")
    }

    // MARK: Dead observers

    func testObserverDeallocatedWhileRegisteredIsRemovedAndReportedOnce() throws {
        try withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let observer = css_note_large_recorder_new(1)!
                let survivor = css_note_recorder_new(2)!
                css_note_add(center, observer, "note:", "CSSNote.T1", nil)
                css_note_add(center, observer, "other:", "CSSNote.T2", nil)
                css_note_add(center, survivor, "note:", "CSSNote.T1", nil)
                css_object_release(observer)
                css_note_post(center, "CSSNote.T1", nil, nil, nil)
                css_note_post(center, "CSSNote.T2", nil, nil, nil)
                XCTAssertEqual(takeLog(), ["2|note:|CSSNote.T1|nil|nil|main"], "only the live observer")
                css_note_remove(center, survivor)
                css_object_release(survivor)
            }
            let report = try XCTUnwrap(reports(sink).first)
            XCTAssertEqual(reports(sink).count, 1)
            XCTAssertEqual(report.className, "CSSNoteLargeObserver")
            XCTAssertEqual(report.selector, "note:")
            XCTAssertEqual(report.exceptionName, "SIGSEGV")
            XCTAssertTrue(report.reason.contains("CSSNote.T1, CSSNote.T2"), report.reason)
            XCTAssertEqual(ObservationStatus.notificationObserverCount, 0)
        }
    }

    func testObserverThatRemovesItselfInItsDeallocIsNeverReported() throws {
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                for tag in 1...3 {
                    let tidy = css_note_tidy_recorder_new(tag)!
                    css_note_add(center, tidy, "note:", "CSSNote.T3", nil)
                    css_note_add(center, tidy, "other:", nil, tidy)
                    css_note_post(center, "CSSNote.T3", nil, nil, nil)
                    css_object_release(tidy)
                }
                css_note_post(center, "CSSNote.T3", nil, nil, nil)
                XCTAssertEqual(takeLog().count, 3, "each delivered while alive, none after")
                // Removed explicitly before its release: also fine.
                let plain = css_note_recorder_new(4)!
                css_note_add(center, plain, "note:", "CSSNote.T3", nil)
                css_note_remove_named(center, plain, "CSSNote.T3", nil)
                css_object_release(plain)
            }
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            XCTAssertEqual(ObservationStatus.notificationObserverCount, 0)
        }
    }

    func testObserverThatRemovesPartOfItsRegistrationsIsReportedForTheRest() throws {
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                let half = css_note_half_tidy_recorder_new(1)!
                css_note_add(center, half, "note:", "CSSNote.A", nil)
                css_note_add(center, half, "other:", "CSSNote.B", nil)
                css_object_release(half)
                css_note_post(center, "CSSNote.B", nil, nil, nil)
                XCTAssertEqual(takeLog(), [])
            }
            XCTAssertEqual(reports(sink).count, 1)
            XCTAssertEqual(reports(sink).first?.selector, "other:")
            XCTAssertTrue(reports(sink).first?.reason.contains("notifications CSSNote.B (") ?? false)
        }
    }

    func testObserverOfAPrivateCenterThatDies() throws {
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                let own = css_note_center_new()!
                let observer = css_note_large_recorder_new(1)!
                css_note_add(own, observer, "note:", "CSSNote.P", nil)
                css_object_release(observer)
                css_note_post(own, "CSSNote.P", nil, nil, nil)
                XCTAssertEqual(takeLog(), [])
                css_object_release(own)
            }
            XCTAssertEqual(reports(sink).map(\.className), ["CSSNoteLargeObserver"])
            XCTAssertEqual(ObservationStatus.notificationObserverCount, 0)
        }
    }

    /// Registers an observer of a class no other test uses with a private center, checks delivery, releases the
    /// observer while it is still registered (never posting again), then the center; returns whether its class got
    /// a `-dealloc` hook and whether the guard's ledger held it.
    private func observerDiesRegistered(tag: Int) -> (deallocHooked: Bool, inLedger: Bool) {
        var result = (deallocHooked: false, inLedger: false)
        withAutoreleasePool {
            _ = takeLog()
            let own = css_note_center_new()!
            let observer = css_note_forgotten_observer_new(tag)!
            css_note_add(own, observer, "forgotten:", "CSSNote.Forgotten", nil)
            css_note_post(own, "CSSNote.Forgotten", nil, nil, nil)
            XCTAssertEqual(takeLog(), ["\(tag)|forgotten:|CSSNote.Forgotten"], "delivered as usual")
            result = (
                HookEngine.shared.activeHooks.contains {
                    $0.selector.name == "dealloc" && $0.targetClass.name == "CSSNoteForgottenObserver"
                }, ObservationStatus.notificationObserverCount == 1
            )
            css_object_release(observer)
            css_object_release(own)
        }
        return result
    }

    /// Apple's center (OS X 10.11 / iOS 9 and later: every OS the package supports) never messages a deallocated
    /// observer: the guard keeps no ledger, hooks no `-dealloc` and reports nothing there. Emulated on GNUstep, whose
    /// center would still message it (so nothing is posted after the death). Then, as a control, GNUstep's center.
    func testWhereTheCenterForgetsDeadObserversNothingIsWatchedOrReported() throws {
        csr_test_emulateAppleNotificationCenter(true)
        withShield(Configuration(guards: .notification)) { sink in
            XCTAssertFalse(
                HookEngine.shared.activeHooks.contains { $0.selector.name.hasPrefix("removeObserver") },
                "no ledger to keep: removals are not hooked")
            let apple = observerDiesRegistered(tag: 7)
            XCTAssertFalse(apple.deallocHooked, "Apple's center: no -dealloc hook")
            XCTAssertFalse(apple.inLedger)
            XCTAssertEqual(reports(sink).count, 0, "\(reports(sink).map(\.reason))")
            // Registrations GNUstep refuses at add time are still stopped there.
            withAutoreleasePool {
                let observer = css_note_recorder_new(8)!
                css_note_add(center, observer, "missingSelector:", "CSSNote.Forgotten", nil)
                css_object_release(observer)
            }
            XCTAssertEqual(reports(sink).map(\.selector), ["addObserver:selector:name:object:"])
        }
        csr_test_emulateAppleNotificationCenter(false)
        withShield(Configuration(guards: .notification)) { sink in
            let gnustep = observerDiesRegistered(tag: 9)
            XCTAssertTrue(gnustep.deallocHooked, "GNUstep's center: the observer's -dealloc is watched")
            XCTAssertTrue(gnustep.inLedger)
            XCTAssertEqual(reports(sink).map(\.className), ["CSSNoteForgottenObserver"])
        }
    }

    // MARK: Bad registrations

    func testMissingSelectorNilObserverAndNullSelectorAreNotRegisteredAndReported() throws {
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                let observer = css_note_recorder_new(1)!
                XCTAssertNil(catchingObjCException { css_note_add(center, observer, "noteTypo:", "CSSNote.M", nil) })
                XCTAssertNil(catchingObjCException { css_note_add(center, nil, "note:", "CSSNote.M", nil) })
                XCTAssertNil(catchingObjCException { css_note_add(center, observer, nil, "CSSNote.M", nil) })
                XCTAssertNil(catchingObjCException { css_note_post(center, "CSSNote.M", nil, nil, nil) })
                XCTAssertEqual(takeLog(), [])
                XCTAssertEqual(ObservationStatus.notificationObserverCount, 0)
                css_object_release(observer)
            }
            CrashShield.flush()
            let found = reports(sink)
            XCTAssertEqual(found.count, 1, "one call site: the three bad adds share a signature")
            XCTAssertEqual(found.first?.selector, "addObserver:selector:name:object:")
            XCTAssertEqual(found.first?.exceptionName, "NSInvalidArgumentException")
            XCTAssertEqual(found.first?.occurrences, 3)
        }
    }

    func testDebugModeRaisesLikeTheOriginalAfterReporting() throws {
        let unguarded: (name: String, reason: String)? = {
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                let observer = css_note_recorder_new(1)!
                raised = catchingObjCException { css_note_add(center, observer, "noteTypo:", "CSSNote.D", nil) }
                css_object_release(observer)
            }
            return raised
        }()
        #if !canImport(Darwin)
        XCTAssertEqual(unguarded?.name, "NSInvalidArgumentException")
        #endif
        withShield(Configuration(guards: .notification, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                let observer = css_note_recorder_new(1)!
                raised = catchingObjCException { css_note_add(center, observer, "noteTypo:", "CSSNote.D", nil) }
                css_object_release(observer)
            }
            XCTAssertEqual(raised?.name, unguarded?.name)
            XCTAssertEqual(reports(sink).first?.action, .failedLoudly)
            XCTAssertEqual(
                reports(sink).first?.reason.replacingOccurrences(
                    of: #"0x[0-9a-f]+"#, with: "0x",
                    options: .regularExpression),
                raised?.reason.replacingOccurrences(of: #"0x[0-9a-f]+"#, with: "0x", options: .regularExpression))
        }
    }

    func testExcludedObserverClassIsNotReported() throws {
        var configuration = Configuration(guards: .notification)
        configuration.excludedClassNames = ["CSSNoteLargeObserver"]
        withShield(configuration) { sink in
            withAutoreleasePool {
                let observer = css_note_large_recorder_new(1)!
                css_note_add(center, observer, "note:", "CSSNote.X", nil)
                css_object_release(observer)
                css_note_post(center, "CSSNote.X", nil, nil, nil)
            }
            XCTAssertEqual(reports(sink).count, 0, "removed, but not reported")
        }
    }

    // MARK: Lifecycle and threads

    func testStopRevertsTheHooksAndForgetsTheLedger() throws {
        let selectors: Set<String> = [
            "addObserver:selector:name:object:", "removeObserver:", "removeObserver:name:object:",
        ]
        withAutoreleasePool {
            let observer = css_note_recorder_new(1)!
            withShield(Configuration(guards: .notification)) { _ in
                css_note_add(center, observer, "note:", "CSSNote.S", nil)
                XCTAssertEqual(ObservationStatus.notificationObserverCount, 1)
                XCTAssertEqual(
                    Set(HookEngine.shared.activeHooks.map(\.selector.name)).intersection(selectors), selectors)
            }
            XCTAssertTrue(Set(HookEngine.shared.activeHooks.map(\.selector.name)).isDisjoint(with: selectors))
            XCTAssertEqual(ObservationStatus.notificationObserverCount, 0)
            css_note_post(center, "CSSNote.S", nil, nil, nil)
            XCTAssertEqual(takeLog(), ["1|note:|CSSNote.S|nil|nil|main"], "Foundation kept the registration")
            css_note_remove(center, observer)
            css_object_release(observer)
        }
    }

    func testConcurrentAddPostRemoveAndDeath() throws {
        withShield(Configuration(guards: .notification)) { sink in
            let threads = 4, rounds = 150
            DispatchQueue.concurrentPerform(iterations: threads) { index in
                withAutoreleasePool {
                    for round in 0..<rounds {
                        let name = "CSSNote.C\(index % 2)"
                        let observer = css_note_tidy_recorder_new(index)!
                        css_note_add(center, observer, "note:", name, nil)
                        css_note_post(center, name, nil, nil, nil)
                        if round % 3 == 0 {
                            let dying = css_note_recorder_new(index)!
                            css_note_add(center, dying, "other:", name, nil)
                            css_object_release(dying)  // dies registered
                        }
                        css_object_release(observer)  // removes itself
                    }
                }
            }
            XCTAssertEqual(ObservationStatus.notificationObserverCount, 0)
            XCTAssertTrue(
                reports(sink).allSatisfy { $0.className == "CSSNoteRecorder" && $0.selector == "other:" },
                "\(reports(sink).map(\.reason))")
            XCTAssertFalse(reports(sink).isEmpty)
            _ = takeLog()
        }
    }

    // MARK: Posting on a thread

    func testPostOnAThreadRunsNormallyRegisteredHandlersThere() throws {
        withAutoreleasePool {
            _ = takeLog()
            let worker = css_runloop_thread_start("worker")!
            let observer = css_note_recorder_new(1)!
            css_note_add(center, observer, "note:", "CSSNote.W", nil)
            let info = css_note_dictionary_new("k", "v")!
            #if canImport(Darwin)  // the public form takes a Thread and a dictionary there
            let thread = NotificationThread.thread(Unmanaged<Thread>.fromOpaque(worker).takeUnretainedValue())
            #else
            let thread = NotificationThread.thread(worker)
            #endif
            NotificationPoster.post(
                name: "CSSNote.W", objectPointer: nil, userInfoPointer: info, on: thread, waitUntilDone: true,
                centerPointer: nil)
            XCTAssertEqual(takeLog(), ["1|note:|CSSNote.W|nil|{k=v}|worker"])
            NotificationPoster.post(name: "CSSNote.W")
            XCTAssertEqual(takeLog(), ["1|note:|CSSNote.W|nil|nil|main"], ".current: now, on the posting thread")
            css_note_remove(center, observer)
            css_object_release(observer)
            css_object_release(info)
            css_runloop_thread_stop(worker)
        }
    }

    func testPostOnTheMainThreadFromABackgroundThread() throws {
        XCTAssertTrue(css_is_main_thread())
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                _ = takeLog()
                let observer = css_note_recorder_new(1)!
                css_note_add(center, observer, "note:", "CSSNote.Main", nil)
                let posted = self.expectation(description: "posted")
                Thread.detachNewThread {
                    withAutoreleasePool { NotificationPoster.post(name: "CSSNote.Main", on: .main) }
                    posted.fulfill()
                }
                self.wait(for: [posted], timeout: 5)
                XCTAssertEqual(takeLog(), [], "queued for the main run loop")
                css_runloop_run(0.2)
                XCTAssertEqual(takeLog(), ["1|note:|CSSNote.Main|nil|nil|main"])
                css_note_remove(center, observer)
                css_object_release(observer)
            }
            XCTAssertEqual(reports(sink).count, 0)
        }
    }

    // MARK: Closures owned by an object, with priorities

    func testClosuresRunByPriorityAndStopWhenTheirOwnerDies() throws {
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                let owner = css_note_recorder_new(1)!
                let other = css_note_recorder_new(2)!
                let sender = css_note_string_new("sender")!
                var order: [String] = []
                _ = try? CrashShield.observe("CSSNote.O", owner: notificationOwner(owner), priority: .low) { _ in
                    order.append("low")
                }
                _ = try? CrashShield.observe("CSSNote.O", owner: notificationOwner(owner)) { _ in
                    order.append("default1")
                }
                _ = try? CrashShield.observe("CSSNote.O", owner: notificationOwner(other), priority: .high) { note in
                    order.append("high:\(note.name)")
                }
                _ = try? CrashShield.observe("CSSNote.O", owner: notificationOwner(owner)) { note in
                    order.append(
                        "default2:\(userInfoValue(note, "k") ?? "-")")
                }
                _ = try? CrashShield.observe(
                    "CSSNote.O", objectPointer: sender, owner: notificationOwner(other), priority: .default,
                    centerPointer: nil
                ) { note in
                    order.append("from-sender:\(objectAddress(note) == sender)")
                }
                XCTAssertEqual(ClosureObservations.shared.groupCount, 2)
                css_note_post(center, "CSSNote.O", nil, "k", "v")
                XCTAssertEqual(order, ["high:CSSNote.O", "default1", "default2:v", "low"])
                order.removeAll()
                css_note_post(center, "CSSNote.O", sender, nil, nil)
                XCTAssertEqual(order, ["high:CSSNote.O", "default1", "default2:-", "low", "from-sender:true"])
                order.removeAll()
                css_object_release(owner)
                css_note_post(center, "CSSNote.O", nil, nil, nil)
                XCTAssertEqual(order, ["high:CSSNote.O"], "the owner's closures went with it")
                css_object_release(other)
                order.removeAll()
                css_note_post(center, "CSSNote.O", sender, nil, nil)
                XCTAssertEqual(order, [])
                XCTAssertEqual(ClosureObservations.shared.groupCount, 0)
                css_object_release(sender)
            }
            XCTAssertEqual(reports(sink).count, 0, "owners need not remove anything: nothing to report")
        }
    }

    func testCancelAndClosuresWithoutTheShield() throws {
        withAutoreleasePool {
            let owner = css_note_recorder_new(1)!
            var count = 0
            let first = try? CrashShield.observe("CSSNote.K", owner: notificationOwner(owner)) { _ in count += 1 }
            var second: NotificationObservation?
            second = try? CrashShield.observe("CSSNote.K", owner: notificationOwner(owner)) { _ in
                count += 10
                second?.cancel()  // cancelling itself while running
            }
            css_note_post(center, "CSSNote.K", nil, nil, nil)
            XCTAssertEqual(count, 11)
            XCTAssertEqual(second?.isActive, false)
            css_note_post(center, "CSSNote.K", nil, nil, nil)
            XCTAssertEqual(count, 12)
            first?.cancel()
            first?.cancel()
            XCTAssertEqual(first?.isActive, false)
            css_note_post(center, "CSSNote.K", nil, nil, nil)
            XCTAssertEqual(count, 12)
            XCTAssertEqual(ClosureObservations.shared.groupCount, 0)
            css_object_release(owner)
        }
    }
}

/// The address of an observed notification's object (an object on Apple; here a raw pointer).
private func objectAddress(_ note: ObservedNotification) -> UnsafeMutableRawPointer? {
    #if canImport(Darwin)
    return note.objectPointer
    #else
    return note.object
    #endif
}

/// The `userInfo` value for `key` of an observed notification (a dictionary on Apple; here a raw NSDictionary).
private func userInfoValue(_ note: ObservedNotification, _ key: String) -> String? {
    #if canImport(Darwin)
    return note.userInfo?[key] as? String
    #else
    return css_note_dictionary_value(note.userInfo, key).map { String(cString: $0) }
    #endif
}
