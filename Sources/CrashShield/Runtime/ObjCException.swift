import CrashShieldRuntime.Internal

/// Objective-C exceptions seen from Swift. An exception unwinds through Swift frames without running their cleanups:
/// what those frames held leaks, and a body must be escaping (a non-escaping closure would be caught "escaping").
enum ObjCException {
    /// Runs `body` inside `@try` and an autorelease pool; returns the exception it raised, if any (nil otherwise).
    /// For foreign code only.
    static func catching(_ body: @escaping () -> Void) -> (name: String, reason: String)? {
        var info = CSRExceptionInfo()
        let box = Unmanaged.passRetained(ClosureBox(body))
        defer { box.release() }
        let raised = csr_try(
            { raw in Unmanaged<ClosureBox>.fromOpaque(raw!).takeUnretainedValue().body() },
            box.toOpaque(), &info)
        guard raised else { return nil }
        return (text(of: info.name), text(of: info.reason))
    }

    /// The name and reason of `exception` when it is an NSException (nil otherwise).
    static func describe(_ exception: CSRObject?) -> (name: String, reason: String)? {
        var info = CSRExceptionInfo()
        guard csr_exception_describe(exception, &info) else { return nil }
        return (text(of: info.name), text(of: info.reason))
    }

    private static func text<T>(of field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
