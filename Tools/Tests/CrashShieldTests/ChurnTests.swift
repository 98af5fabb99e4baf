@testable import CrashShield
import CrashShieldProofKit
import XCTest

/// Churn: 100,000 cycles of key-value observation, notification observers and app objects that become zombies,
/// each loop run once without CrashShield and once with it, in this process. Memory must stay flat: the growth of
/// the resident set with CrashShield may exceed the growth of the same loop without it by at most
/// `allowedBytesPerCycle` per cycle (plus the zombie pool's bound for zombies).
final class ChurnTests: ShieldTestCase {
    static let cycles = 100_000
    /// 16 bytes a cycle: 1.6 MB over 100,000 cycles. A leak of one small object a cycle (a registration, a
    /// dictionary entry) is 32 bytes or more.
    static let allowedBytesPerCycle = 16
    /// malloc hands memory back in pages and arenas: growth under this is noise.
    static let slack = 4 << 20

    /// RSS growth over `cycles` cycles of `cycle`, after a warm-up that fills caches and pools.
    private func growth(_ cycle: () -> Void) -> Int {
        for _ in 0..<2_000 { cycle() }
        let before = csp_resident_bytes()
        for _ in 0..<Self.cycles { cycle() }
        return Int(csp_resident_bytes()) - Int(before)
    }

    private func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB (%d bytes a cycle)", Double(bytes) / 1_048_576, bytes / Self.cycles)
    }

    /// Runs `cycle` without CrashShield, then with `configuration`; fails when memory grows more with it.
    private func assertFlat(
        _ name: String, _ configuration: Configuration, extraAllowance: Int = 0,
        file: StaticString = #filePath, line: UInt = #line, _ cycle: () -> Void
    ) throws {
        XCTAssertGreaterThan(csp_resident_bytes(), 0, "no resident set size on this platform", file: file, line: line)
        let started = Date()
        let unguarded = growth(cycle)
        let middle = Date()
        var guarded = 0
        withShield(configuration) { _ in guarded = growth(cycle) }
        let allowed = max(0, unguarded) + Self.cycles * Self.allowedBytesPerCycle + Self.slack + extraAllowance
        let seconds = { (interval: TimeInterval) in String(format: "%.1f s", interval) }
        print(
            "churn \(name): \(Self.cycles) cycles; without CrashShield RSS grew \(megabytes(unguarded)) in "
                + "\(seconds(middle.timeIntervalSince(started))), with it \(megabytes(guarded)) in \(seconds(Date().timeIntervalSince(middle)))"
        )
        XCTAssertLessThanOrEqual(
            guarded, allowed,
            "\(name): with CrashShield the resident set grew by \(megabytes(guarded)) over "
                + "\(Self.cycles) cycles, without it by \(megabytes(unguarded)); allowed \(megabytes(allowed))",
            file: file, line: line)
    }

    /// Each cycle: a fresh model, an observer added and removed, one removed twice (the second removal raises
    /// without CrashShield). Without CrashShield memory stays flat.
    func testKVOObserveUnobserveKeepsMemoryFlat() throws {
        try assertFlat("KVO add/remove", Configuration(guards: .productionSafe)) { csp_churn_kvo_cycle(false) }
    }

    /// The same, plus an observer freed while still registered (GNUstep itself keeps that registration, about
    /// 1.2 KB a cycle without CrashShield): CrashShield may add no more than the allowance to that.
    func testKVOObserverFreedWhileRegisteredAddsNoMemory() throws {
        try assertFlat("KVO add/remove/free", Configuration(guards: .productionSafe)) { csp_churn_kvo_cycle(true) }
    }

    /// Each cycle: an observer added, posted to and removed, and one freed while registered (the guard removes it;
    /// without CrashShield Foundation keeps a dangling registration, never posted to).
    func testNotificationObserversKeepMemoryFlat() throws {
        try assertFlat("notifications", Configuration(guards: .productionSafe)) { csp_churn_notification_cycle(true) }
    }

    /// Each cycle: an app object allocated, used and released. With the zombie guard it becomes a zombie; the pool
    /// is bounded (the default 10,000 objects), so memory may grow by the pool's size, and no more.
    func testZombiesKeepMemoryFlat() throws {
        var configuration = Configuration(guards: .all)
        configuration.zombies = ZombieOptions(maxBytes: 1 << 20, maxCount: 10_000)
        try assertFlat("zombies", configuration, extraAllowance: 2 << 20) { csp_churn_zombie_cycle() }
    }
}
