import Atomics

/// Whose preconditions the container and string guards apply: those of the Foundation the app runs on. A guard
/// never stops a call the running Foundation accepts, so a call that only Apple raises for (`removeObjectForKey:nil`,
/// `appendString:nil`, ...) is guarded, and its hook installed, only under Apple's rules.
///
/// `current` is the platform's (`.apple` wherever Darwin is, `.gnustep` elsewhere). Tests (`@testable`) set
/// `.apple` on GNUstep before `CrashShield.start` to prove Apple's preconditions against a real Foundation
/// ("Apple would raise X with reason Y; CrashShield stops it and reports exactly that"), and restore it after stop.
enum FoundationRules: UInt8, Sendable {
    case gnustep
    case apple

    /// The running Foundation's rules.
    static var platform: FoundationRules {
        #if canImport(Darwin)
        return .apple
        #else
        return .gnustep
        #endif
    }

    /// The rules in force. Internal: only the package and its `@testable` tests can change them.
    static var current: FoundationRules {
        get { FoundationRules(rawValue: stored.load(ordering: .relaxed)) ?? platform }
        set { stored.store(newValue.rawValue, ordering: .relaxed) }
    }
    private static let stored = ManagedAtomic<UInt8>(platform.rawValue)

    static var isApple: Bool { current == .apple }
}
