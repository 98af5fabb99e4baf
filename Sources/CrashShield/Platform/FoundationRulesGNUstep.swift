#if !canImport(Darwin)
// GNUstep's platform unit for `FoundationRules`, compiled only on the Linux proving ground (a phone runs its twin,
// FoundationRulesApple.swift): there the running Foundation is GNUstep Base, whose preconditions and wording differ.

extension FoundationRules {
    /// The running Foundation's rules: GNUstep Base's.
    static let platform = FoundationRules.gnustep
}
#endif
