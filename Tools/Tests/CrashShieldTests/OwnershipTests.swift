@_spi(Testing) @testable import CrashShield
@testable import CrashShieldNotifications
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// Objects the Objective-C layer hands over as raw pointers, whose ownership must be the same under ARC (Apple) and
/// manual reference counting (here): CSRMemory.h, Docs/AppleRuntime.md ("Ownership across the C boundary"). Each path
/// that used to leave through a `__bridge` cast (a string freed at its function's return under ARC) runs here with
/// real Foundation objects, repeatedly and with the allocator churned, so that an object released once too often is
/// reused or freed before its receiver reads it. Run them under valgrind too (Docs/AppleRuntime.md says how).
private let new: UInt = 0x01, old: UInt = 0x02

/// The KVO recorders' delivery log since the last call.
private func takeKVOLog() -> [String] {
    var buffer = [CChar](repeating: 0, count: 1 << 16)
    css_kvo_take_log(&buffer, UInt(buffer.count))
    return String(cString: buffer).split(separator: "\n").map(String.init)
}

/// Makes and drops `count` strings of `length` bytes (csr_string_create: +0, autoreleased) in a pool of its own: the
/// allocator hands their memory out again, so a freed object read afterwards no longer holds what it held.
private func churn(_ count: Int = 64, length: Int = 96) {
    withAutoreleasePool {
        for index in 0..<count { _ = csr_string_create(String(repeating: "\(index % 10)", count: length)) }
    }
}

/// The name of an observed notification, read whole.
private func fullName(_ note: ObservedNotification) -> String {
    var buffer = [CChar](repeating: 0, count: 8192)
    return csr_string_copyUTF8(csr_notification_name(note.notificationPointer), &buffer, buffer.count)
        ? String(cString: buffer) : "?"
}

final class OwnershipTests: ShieldTestCase {

    // MARK: csr_kvo_change_filtered (an autoreleased copy of the change, handed to the app's observer)

    /// Two (here three) observers of one key path asking for different change keys: Apple gives each only what it
    /// asked for, so the proxy hands each a copy of the change without the other values (run here through the switch
    /// that makes the registry filter as on Apple). Each observer must get its own, intact dictionary.
    func testKVOObserversAskingForDifferentChangeKeysEachGetTheirOwnDictionary() {
        let filtered = KVOProxyRegistry.filtersChangesPerObserver
        KVOProxyRegistry.filtersChangesPerObserver = true
        defer { KVOProxyRegistry.filtersChangesPerObserver = filtered }
        withShield(Configuration(guards: .kvo)) { sink in
            withAutoreleasePool {
                _ = takeKVOLog()
                let model = css_kvo_model_new()!
                let both = css_kvo_recorder_new(1)!, newOnly = css_kvo_recorder_new(2)!,
                    oldOnly = css_kvo_recorder_new(3)!
                css_kvo_set_level(model, 7)
                css_kvo_add(model, both, "level", new | old, 0x61)
                css_kvo_add(model, newOnly, "level", new, 0x62)
                css_kvo_add(model, oldOnly, "level", old, 0x63)
                var expected: [String] = []
                for level in Int32(8)...Int32(40) {
                    withAutoreleasePool {
                        css_kvo_set_level(model, level)
                        churn(8)
                    }
                    expected += [
                        "3|level|99|{kind=1,old=\(level - 1)}", "2|level|98|{kind=1,new=\(level)}",
                        "1|level|97|{kind=1,new=\(level),old=\(level - 1)}",
                    ]
                }
                XCTAssertEqual(takeKVOLog(), expected, "newest first; each observer only the keys it asked for")
                [both, newOnly, oldOnly].forEach { css_kvo_remove(model, $0, "level") }
                css_object_release(model)
                [both, newOnly, oldOnly].forEach { css_object_release($0) }
            }
            XCTAssertEqual(sink.reports(in: .kvo).count, 0, "\(sink.reports.map(\.reason))")
        }
    }

    // MARK: csr_formatted (the text -appendFormat: formats, handed to the original after the call returns)

    private func installedSelectors() throws -> Set<String> {
        let session = try XCTUnwrap(Session.current.load(ordering: .acquiring))
        return Set(session.installed.values.flatMap { $0.hooks.map(\.point.selector.name) })
    }

    private func appendedText(pieces: UInt) -> (length: UInt, text: String) {
        var buffer = [CChar](repeating: 0, count: 1 << 16)
        let length = css_test_append_format_long(pieces, &buffer, UInt(buffer.count))
        return (length, String(cString: buffer))
    }

    /// A long `appendFormat:` (8 calls of about 1 KB each, every kind of argument) through the variadic trampoline,
    /// which formats the text itself and hands it to the original: the result is exactly the unguarded one.
    func testLongAppendFormatThroughTheGuardedPathIsTheUnguardedText() throws {
        let unguarded = appendedText(pieces: 8)
        XCTAssertGreaterThan(unguarded.length, 8000)
        XCTAssertEqual(UInt(unguarded.text.utf8.count), unguarded.length)
        try underAppleRules {
            try withShield(Configuration(guards: .string)) { sink in
                XCTAssertTrue(try installedSelectors().contains("appendFormat:"), "the trampoline is installed")
                for _ in 0..<20 {
                    let guarded = appendedText(pieces: 8)
                    XCTAssertEqual(guarded.length, unguarded.length)
                    XCTAssertEqual(guarded.text, unguarded.text)
                    churn(16, length: 1100)
                }
                XCTAssertEqual(sink.reports.count, 0, "\(sink.reports.map(\.reason))")
            }
        }
    }

    // MARK: csr_signature_for_selector (the runtime's methodSignatureForSelector: answer, +0)

    /// Untyped messages nothing answers, of three shapes: GNUstep can forward them only with the guard's
    /// `methodSignatureForSelector:` answer, builds the invocation from it and hands it to the guard, which stops the
    /// message. Every send is stopped (nil), once per selector in the reports.
    func testStoppedUnrecognizedSelectorsGiveTheRuntimeALiveSignature() {
        withShield(Configuration(guards: [.unrecognizedSelector, .nsNull])) { sink in
            var nils: UInt = 0
            withAutoreleasePool { nils = css_messaging_untyped_shapes(100) }
            XCTAssertEqual(nils, 300, "every send stopped with nil")
            CrashShield.flush()
            XCTAssertEqual(
                Set(sink.reports.map(\.selector)),
                ["cssOwnershipProbe", "cssOwnershipProbe:", "cssOwnershipProbe:with:"])
            XCTAssertTrue(sink.reports.allSatisfy { $0.action == .recovered })
        }
        // The answer itself: alive (and readable) until the pool it was made in drains.
        var texts: [String] = []
        withAutoreleasePool {
            let names: [String] = ["cssOwnershipProbe", "cssOwnershipProbe:", "cssOwnershipProbe:with:"]
            let signatures = names.map { name in csr_signature_for_selector(nil, csr_sel_register(name)) }
            churn()
            for signature in signatures {
                var buffer = [CChar](repeating: 0, count: 64)
                css_test_signature_object_text(signature, &buffer, UInt(buffer.count))
                texts.append(String(cString: buffer))
            }
        }
        XCTAssertEqual(texts, ["@@:", "@@:@", "@@:@@"])
    }

    // MARK: csr_string_create (notification names, made from Swift strings)

    /// Long notification names (about 4 KB each, never a tagged pointer on Apple) through closure observation
    /// (`CrashShield.observe` registers the name made by `csr_string_create`, in a pool that drains before the
    /// first post) and `NotificationPoster.post` (the same, for the posted name), with the notification guard on:
    /// each closure gets its notification, with its whole name, from either kind of post.
    func testLongNotificationNamesReachTheirObserversIntact() {
        let names = (1...4).map { "CSSNote.Long\($0)." + String(repeating: "name\($0)-", count: 700) }
        XCTAssertTrue(names.allSatisfy { $0.utf8.count > 4000 })
        let center = css_note_default_center()!
        withShield(Configuration(guards: .notification)) { sink in
            withAutoreleasePool {
                let owner = css_note_recorder_new(1)!
                var received: [String] = []
                // The whole name, from the notification itself (ObservedNotification.name keeps its first 1023 bytes).
                let observations = names.map { name in
                    try? CrashShield.observe(name, owner: notificationOwner(owner)) { received.append(fullName($0)) }
                }
                XCTAssertTrue(observations.allSatisfy { $0?.isActive == true })
                churn(32, length: 4200)
                for name in names {
                    NotificationPoster.post(name: name)
                    churn(8, length: 4200)
                }
                for name in names.reversed() { css_note_post(center, name, nil, nil, nil) }
                XCTAssertEqual(received, names + names.reversed())
                observations.forEach { $0?.cancel() }
                css_object_release(owner)
            }
            XCTAssertEqual(sink.reports(in: .notification).count, 0, "\(sink.reports.map(\.reason))")
        }
        // The function itself: +0, alive (and whole) until its pool drains.
        withAutoreleasePool {
            let strings = names.map { csr_string_create($0) }
            churn(32, length: 4200)
            for (string, name) in zip(strings, names) {
                var buffer = [CChar](repeating: 0, count: 8192)
                XCTAssertTrue(csr_string_copyUTF8(string, &buffer, buffer.count))
                XCTAssertEqual(String(cString: buffer), name)
            }
        }
    }
}
