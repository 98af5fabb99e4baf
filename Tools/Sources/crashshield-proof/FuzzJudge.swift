import CrashShieldProofKit

/// One run of one call, read out of `CSPOutcome`.
struct CallOutcome: Equatable {
    var result: String
    var before: String
    var after: String
    /// nil when the call returned normally.
    var exceptionName: String?
    var exceptionReason: String

    init(_ outcome: CSPOutcome) {
        result = outcome.result.map { String(cString: $0) } ?? ""
        before = outcome.before.map { String(cString: $0) } ?? ""
        after = outcome.after.map { String(cString: $0) } ?? ""
        exceptionName = outcome.exceptionName.map { String(cString: $0) }
        exceptionReason = outcome.exceptionReason.map { String(cString: $0) } ?? ""
    }

    /// Makes the call once (fresh receiver and arguments).
    static func run(_ call: CSPCall) -> CallOutcome {
        var call = call
        var raw = CSPOutcome()
        csp_fuzz_run(&call, &raw)
        defer { csp_outcome_free(&raw) }
        return CallOutcome(raw)
    }

    /// "raised NSRangeException: reason; receiver after: ..." or "returned ...; receiver after: ...".
    var summary: String {
        let what = exceptionName.map { "raised \($0): \(exceptionReason)" } ?? "returned \(result)"
        return "\(what); receiver after: \(after)"
    }
}

/// What must never happen: each kind is counted, and every count must be 0.
enum Divergence: String, CaseIterable {
    case crashOnlyWithGuards = "crash-with-guards"
    case validCallDiffers = "valid-differs"
    case validCallReported = "valid-reported"
    case recoveredChangedReceiver = "recovered-changed-receiver"
    case raisingNotRecovered = "raising-not-recovered"
    case recoveredWithoutReport = "recovered-without-report"
    case outOfScopeChanged = "out-of-scope-changed"

    var title: String {
        switch self {
        case .crashOnlyWithGuards: return "crashes (signal or hang) only with guards"
        case .validCallDiffers: return "valid calls whose result or receiver differs"
        case .validCallReported: return "reports from valid calls"
        case .recoveredChangedReceiver: return "recovered calls that changed the receiver"
        case .raisingNotRecovered: return "raising calls not recovered"
        case .recoveredWithoutReport: return "recovered calls without a report"
        case .outOfScopeChanged: return "calls the guards leave alone that did not raise exactly as before"
        }
    }
}

/// How a call went, with every guard off and with every guard on.
enum Verdict {
    /// Foundation returned normally.
    case valid
    /// Foundation raised; CrashShield stopped it.
    case recovered
    /// Foundation raised, and must raise the same with guards (outside the guards' scope).
    case leftAlone
    /// Foundation raised for an argument of a type the method does not take (Foundation's own code messaged it), and
    /// must raise the same with guards: CrashShield does not recover these by design (Docs/Guards.md,
    /// "Limits"): the failure happens inside Foundation's code, past the app's call, where nothing can be
    /// skipped or answered safely, and a type check before the call would be stricter than Foundation, which takes
    /// any object that answers the messages it sends.
    case wrongType

    /// Compares the two runs of one call.
    /// - Parameters:
    ///   - reports: reports the guarded run produced; `ownSelector`: one of them names the called method itself (its
    ///     own hook stopped it, so the mutation must have been skipped entirely).
    ///   - inScope: the receiver is one the guards protect; `expectsRecovery`: and a guard hooks the method itself.
    ///   - selector: the method called.
    static func judge(
        unguarded: CallOutcome, guarded: CallOutcome, reports: Int, ownSelector: Bool, inScope: Bool,
        expectsRecovery: Bool, selector: String = ""
    ) -> (Verdict, [Divergence]) {
        guard let raised = unguarded.exceptionName else {
            var found: [Divergence] = []
            if guarded != unguarded { found.append(.validCallDiffers) }
            if reports > 0 { found.append(.validCallReported) }
            return (.valid, found)
        }
        if raisedForArgumentType(unguarded, calling: selector) {
            // With a second fault in the same call (a range past the end), Foundation raises for whichever it checks
            // first; a guard may stop the other one: recovered, the receiver untouched, and reported.
            if guarded.exceptionName == nil && ownSelector && guarded.after == unguarded.before && reports > 0 {
                return (.recovered, [])
            }
            let same = guarded.exceptionName == raised && guarded.after == unguarded.after && reports == 0
            return (.wrongType, same ? [] : [.outOfScopeChanged])
        }
        if guarded.exceptionName != nil {
            if expectsRecovery { return (.recovered, [.raisingNotRecovered]) }
            let same = guarded.exceptionName == raised && guarded.after == unguarded.after && reports == 0
            return (.leftAlone, same ? [] : [.outOfScopeChanged])
        }
        guard inScope else { return (.leftAlone, [.outOfScopeChanged]) }
        var found: [Divergence] = []
        // A call its own hook stopped leaves the receiver exactly as before. One that went on after a guard stopped
        // a bad call it made inside may also leave it as Foundation itself left it when it raised; anything else is
        // a change only the guards caused (Foundation going on with a made-up value).
        let unchanged = guarded.after == unguarded.before || (!ownSelector && guarded.after == unguarded.after)
        if !unchanged { found.append(.recoveredChangedReceiver) }
        if reports == 0 { found.append(.recoveredWithoutReport) }
        return (.recovered, found)
    }
}

/// Whether Foundation's exception says its own code messaged an argument that does not answer (GNUstep's texts; on
/// Apple "unrecognized selector sent to instance"), or checked an argument's type itself. A message Foundation did
/// not send itself, the called method (`selector`) sent to a receiver that does not answer it, is the receiver's
/// failure (the NSNull and unrecognized-selector guards), not an argument's.
func raisedForArgumentType(_ outcome: CallOutcome, calling selector: String) -> Bool {
    let reason = outcome.exceptionReason
    if reason.contains("given non-string object") || reason.contains("does not respond to") { return true }
    let patterns = ["does not recognize ", "Can not determine type information for -[", "unrecognized selector"]
    guard patterns.contains(where: reason.contains) else { return false }
    return !(reason.contains("recognize \(selector)") || reason.contains(" \(selector)]"))
}
