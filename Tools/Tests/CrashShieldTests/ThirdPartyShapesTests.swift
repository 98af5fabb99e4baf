@testable import CrashShield
import CrashShieldMatrix
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// Third-party code inside the app that forwards messages or observes with its own KVO contexts behaves exactly as
/// without CrashShield, every guard on (release mode): a class overriding forwardingTargetForSelector: without
/// calling super, an NSProxy forwarder, ReactiveObjC's shared KVO observer, AFNetworking's observers of operations.
final class ThirdPartyShapesTests: ShieldTestCase {
    private func forwardingCalls() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_third_party_forwarding_calls()) }
        return MatrixRunner.normalizingAddresses(text)  // a new receiver each time
    }

    private func kvoSequence() -> (log: [String], removals: [String]) {
        var log = [CChar](repeating: 0, count: 1 << 16), removals = [CChar](repeating: 0, count: 1 << 12)
        css_third_party_kvo_sequence(&log, UInt(log.count), &removals, UInt(removals.count))
        return (
            String(cString: log).split(separator: "\n").map(String.init),
            String(cString: removals).split(separator: "\n").map(String.init)
        )
    }

    private func sameKeySequence() -> [String] {
        var log = [CChar](repeating: 0, count: 1 << 16)
        css_third_party_kvo_same_key_sequence(&log, UInt(log.count))
        return String(cString: log).split(separator: "\n").map(String.init)
    }

    /// Forwarded messages reach the worker; messages neither answers fail as they do without CrashShield (the
    /// forwarder takes part in forwarding; the proxy's invocation reaches the worker from Foundation's own frames).
    func testForwardersBehaveExactlyAsWithoutCrashShield() throws {
        let unguarded = forwardingCalls()
        XCTAssertTrue(unguarded.contains("greeting=hello app answer=42 span={3,4}"), unguarded)
        withShield(Configuration(guards: .all)) { sink in
            XCTAssertEqual(forwardingCalls(), unguarded)
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
        XCTAssertEqual(forwardingCalls(), unguarded, "after stop")
    }

    /// Every change reaches each subscription once, with its own context and the change dictionary Foundation
    /// builds; every removal with a context works with CrashShield (GNUstep itself lacks the method).
    func testKVOUsersWithTheirOwnContextsBehaveExactlyAsWithoutCrashShield() throws {
        let unguarded = kvoSequence()
        XCTAssertFalse(
            unguarded.log.contains { $0.contains("raised") || $0.contains("unknown context") }, "\(unguarded.log)")
        XCTAssertTrue(
            unguarded.log.contains("appOp|finished=1") && unguarded.log.contains("queuedOp|finished=1"),
            "\(unguarded.log)")
        withShield(Configuration(guards: .all)) { sink in
            let guarded = kvoSequence()
            XCTAssertEqual(guarded.log, unguarded.log)
            XCTAssertEqual(
                guarded.removals, Array(repeating: "context", count: unguarded.removals.count),
                "removal with a context works")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
            XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0, "every registration was removed")
        }
        XCTAssertEqual(kvoSequence().log, unguarded.log, "after stop")
    }

    /// One observer, one key path, two contexts: as the running Foundation keeps them (GNUstep: the second
    /// registration replaces the first's context and options; one removal by key path removes it).
    func testOneObserverAddedTwiceForAKeyPathWithTwoContextsIsKeptAsFoundationKeepsIt() throws {
        let unguarded = sameKeySequence()
        withShield(Configuration(guards: .all)) { sink in
            XCTAssertEqual(sameKeySequence(), unguarded)
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
    }
}
