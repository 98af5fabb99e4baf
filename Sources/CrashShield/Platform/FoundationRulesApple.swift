#if canImport(Darwin)
// Apple's platform unit for `FoundationRules`: what a phone runs. Its twin, FoundationRulesGNUstep.swift, answers
// the same for the Linux proving ground; each compiles to nothing on the other platform.

extension FoundationRules {
    /// The running Foundation's rules: Apple's (Foundation and CoreFoundation on Darwin).
    static let platform = FoundationRules.apple
}
#endif
