import Foundation
import CrashShieldRuntime

/// The failure path every guard takes when it stopped a call that would crash: decide, report, answer.
enum Interception {
    /// Whether the guard should recover. `false` means: behave exactly as the original would (the guard is off, the
    /// class is on the deny list, or debug mode and the call comes from the app's own code; the report is delivered
    /// before the original fails).
    ///
    /// - Parameters:
    ///   - receiver: the object (or class object) the bad call was sent to.
    ///   - selector: the selector called.
    ///   - exception: the exception the original raises (NSRangeException, ...).
    ///   - reason: what the original would print; built only when a report is made.
    ///   - hint: one line on how to fix the call site.
    ///   - implementation: the replacement that stopped the call, to find the caller's frame.
    @inline(never)
    static func shouldRecover(_ category: GuardCategory, receiver: CSRObject?, selector: CSRSelector?,
                              exception: String, reason: () -> String, hint: String,
                              details: [String: String] = [:], implementation: UnsafeRawPointer?,
                              callSite: CallSite = .directCaller) -> Bool {
        decide(category, receiver: receiver, selector: selector, exception: exception, reason: reason, hint: hint,
               details: details, implementation: implementation, callSite: callSite) == .recover
    }

    /// What to do with a stopped call.
    enum Decision {
        /// Release mode (or a system caller): return a safe value or skip the mutation; reported.
        case recover
        /// Debug mode, the app's own call: fail as Foundation would; reported first.
        case failLoudly
        /// Not CrashShield's business (guard off, class excluded): behave exactly as the original; not reported.
        case passThrough
    }

    /// `shouldRecover`, telling a loud failure apart from a pass-through.
    @inline(never)
    static func decide(_ category: GuardCategory, receiver: CSRObject?, selector: CSRSelector?,
                       exception: String, reason: () -> String, hint: String,
                       details: [String: String] = [:], implementation: UnsafeRawPointer?,
                       callSite: CallSite = .directCaller) -> Decision {
        guard let session = Session.current.load(ordering: .acquiring), session.isEnabled(category) else { return .passThrough }
        let receiverClass = ObjCClass(of: receiver)
        let isClassMethod = receiverClass?.isMetaclass ?? false
        let cls: ObjCClass? = isClassMethod ? receiver.map(ObjCClass.init) : receiverClass
        if let cls, session.isExcluded(cls) { return .passThrough }
        let selectorName = selector.map { String(cString: csr_sel_getName($0)) } ?? "(null)"
        let action = record(session: session, category: category, className: cls?.name ?? "nil",
                            classKey: UInt(bitPattern: cls?.pointer), selector: selectorName,
                            isClassMethod: isClassMethod, exception: exception, reason: reason, hint: hint,
                            details: details, implementation: implementation, callSite: callSite)
        return action == .recovered ? .recover : .failLoudly
    }

    /// Reports an incident that is not a method call on a receiver (an observer that died, a timer whose target
    /// is gone). Returns whether to recover, as `shouldRecover`.
    @inline(never)
    static func report(_ category: GuardCategory, className: String, selector: String, isClassMethod: Bool = false,
                       exception: String, reason: () -> String, hint: String, details: [String: String] = [:],
                       implementation: UnsafeRawPointer?) -> Bool {
        guard let session = Session.current.load(ordering: .acquiring), session.isEnabled(category) else { return false }
        if let cls = ObjCClass(named: className), session.isExcluded(cls) { return false }
        let classKey = UInt(bitPattern: ObjCClass(named: className)?.pointer)
        return record(session: session, category: category, className: className, classKey: classKey,
                      selector: selector, isClassMethod: isClassMethod, exception: exception, reason: reason,
                      hint: hint, details: details, implementation: implementation) == .recovered
    }

    private static func record(session: Session, category: GuardCategory, className: String, classKey: UInt,
                               selector: String, isClassMethod: Bool, exception: String, reason: () -> String,
                               hint: String, details: [String: String],
                               implementation: UnsafeRawPointer?, callSite: CallSite = .directCaller) -> CrashReport.Action {
        let configuration = session.configuration
        let site = ReportPipeline.SiteKey(category: category.rawValue, cls: classKey, selector: selector)
        return session.pipeline.record(site: site) {
            var (frames, callerIndex) = CallStack.capture(callerOf: implementation,
                                                          maxDepth: configuration.limits.maxStackDepth,
                                                          throughForwarding: callSite == .pastForwarding)
            if callSite == .firstAppFrame, let direct = callerIndex, frames.indices.contains(direct),
               !configuration.isAppImage(frames[direct].image),
               let app = frames[direct...].firstIndex(where: { configuration.isAppImage($0.image) }) {
                callerIndex = app
            }
            if callSite == .directCaller, let direct = callerIndex {
                callerIndex = CallStack.pastFoundationConveniences(frames, from: direct)
            }
            let caller = callerIndex.flatMap { frames.indices.contains($0) ? frames[$0] : nil }
            let fromAppCode = caller.map { configuration.isAppImage($0.image) } ?? true
            let action: CrashReport.Action =
                configuration.mode(for: category) == .debug && fromAppCode ? .failedLoudly : .recovered
            let now = Date()
            let callSiteText = caller.map { "\(($0.image as NSString).lastPathComponent)+\($0.offsetInImage)" } ?? "?"
            return CrashReport(
                signature: Signature.make(category.name, className, selector, isClassMethod ? "+" : "-", callSiteText),
                category: category.name, exceptionName: exception, reason: reason(), className: className,
                selector: selector, isClassMethod: isClassMethod, hint: hint, action: action, details: details,
                thread: CallStack.currentThread(), callStack: frames, callerFrameIndex: callerIndex,
                firstSeen: now, lastSeen: now, occurrences: 1, context: .current(callStack: frames, at: now))
        }
    }
}

/// Stable, short report signatures (FNV-1a, 64 bit).
enum Signature {
    static func make(_ parts: String...) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "|").utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
