@testable import CrashShield
@testable import CrashShieldNotifications
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// An Objective-C object from the scenarios as `CrashShield.observe` takes its owner: the object itself on Apple
/// platforms (`AnyObject`), the raw `id` on Linux, where Swift has no Objective-C interop.
func notificationOwner(_ object: UnsafeMutableRawPointer) -> NotificationOwner {
    #if canImport(Darwin)
    return Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue()
    #else
    return object
    #endif
}

/// `CrashShield.removeObservations(owner:name:priority:)`: removal by owner, by name and by level, the
/// engine under `-[NSObject cs_removeNotificationBlocks...]` too.
final class NotificationRemovalTests: XCTestCase {
    func testRemovalByOwnerNameAndPriority() {
        withAutoreleasePool {
            let center = css_note_default_center()!
            let owner = css_note_recorder_new(1)!
            let other = css_note_recorder_new(2)!
            var order: [String] = []
            func post(_ name: String) -> [String] {
                order.removeAll()
                css_note_post(center, name, nil, nil, nil)
                return order
            }
            _ = try? CrashShield.observe("CSSNote.R", owner: notificationOwner(owner), priority: .high) { _ in
                order.append("high")
            }
            _ = try? CrashShield.observe("CSSNote.R", owner: notificationOwner(owner)) { _ in order.append("default") }
            _ = try? CrashShield.observe("CSSNote.R", owner: notificationOwner(other), priority: .high) { _ in
                order.append("other-high")
            }
            _ = try? CrashShield.observe("CSSNote.S", owner: notificationOwner(owner), priority: .high) { _ in
                order.append("s-high")
            }
            XCTAssertEqual(post("CSSNote.R"), ["high", "other-high", "default"])
            CrashShield.removeObservations(owner: notificationOwner(owner), name: "CSSNote.R", priority: .high)
            XCTAssertEqual(post("CSSNote.R"), ["other-high", "default"], "only the owner's, only that name and level")
            XCTAssertEqual(post("CSSNote.S"), ["s-high"])
            CrashShield.removeObservations(owner: notificationOwner(owner), priority: .high)
            XCTAssertEqual(post("CSSNote.S"), [], "that level, every name")
            XCTAssertEqual(post("CSSNote.R"), ["other-high", "default"])
            CrashShield.removeObservations(owner: notificationOwner(owner))
            XCTAssertEqual(post("CSSNote.R"), ["other-high"], "everything of the owner")
            css_object_release(owner)
            css_object_release(other)
            XCTAssertEqual(post("CSSNote.R"), [])
            XCTAssertEqual(ClosureObservations.shared.groupCount, 0)
        }
    }
}
