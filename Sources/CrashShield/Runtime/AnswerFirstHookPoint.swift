import CrashShieldRuntime.Internal

/// A hook point whose replacement matters only when the original has no answer: `methodSignatureForSelector:`
/// answering nil for a message about to fail. Each installed class gets an answer-first C trampoline (CSRCheckFirst.h)
/// that calls the class's original and returns a non-nil answer as it is; only a nil answer reaches `fallback`, with
/// the same arguments. A class that only inherited the method, or one past the trampolines' pool, gets `replacement`,
/// which must answer exactly as the trampoline and the fallback together do.
final class AnswerFirstHookPoint<Signature>: HookPoint<Signature>, @unchecked Sendable {
    /// The hot table whose trampolines and originals the point uses.
    private let tableIndex: Int32

    init(
        _ selector: ObjCSelector, kind: MethodKind = .instance, hotTable tableIndex: Int32, replacement: Signature,
        fallback: Signature
    ) {
        self.tableIndex = tableIndex
        super.init(selector, kind: kind, hotTable: csr_hot_table(tableIndex), replacement: replacement)
        csr_check_first_set_replacement(tableIndex, self.replacement)
        csr_answer_first_set_fallback(tableIndex, unsafeBitCast(fallback, to: CSRIMP.self))
    }

    override func replacement(forSlot slot: Int) -> CSRIMP {
        csr_answer_first_trampoline(tableIndex, slot) ?? replacement
    }
}
