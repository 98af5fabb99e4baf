import Atomics

/// Whose preconditions and wording the guards apply (containers, strings, KVC, KVO, notifications): those of the
/// Foundation the app runs on. A guard never stops a call the running Foundation accepts, so a call that only Apple
/// raises for (`removeObjectForKey:nil`, `appendString:nil`, ...) is guarded, and its hook installed, only under
/// Apple's rules.
///
/// Every guard decides between Apple's and GNUstep's Foundation by asking these rules at run time, never by
/// conditional compilation: both branches compile everywhere, and Apple's runs on GNUstep under emulation.
/// `current` is the platform's (`.apple` wherever Darwin is, `.gnustep` elsewhere). Tests (`@testable`) set
/// `.apple` on GNUstep before `CrashShield.start` to prove Apple's preconditions against a real Foundation
/// ("Apple would raise X with reason Y; CrashShield stops it and reports exactly that"), and restore it after stop.
/// A choice a hook would otherwise make on every call is made when the guard installs (which points, which classes),
/// or on the failing call's cold path only (a valid call never asks).
enum FoundationRules: UInt8, Sendable {
    case gnustep
    case apple

    // The running Foundation's rules, `platform`, are the one thing said per platform, in whole files of which one
    // compiles on each: Platform/FoundationRulesApple.swift, Platform/FoundationRulesGNUstep.swift.

    /// The rules in force. Internal: only the package and its `@testable` tests can change them.
    static var current: FoundationRules {
        get { FoundationRules(rawValue: stored.load(ordering: .relaxed)) ?? platform }
        set { stored.store(newValue.rawValue, ordering: .relaxed) }
    }
    private static let stored = ManagedAtomic<UInt8>(platform.rawValue)

    static var isApple: Bool { current == .apple }
}
