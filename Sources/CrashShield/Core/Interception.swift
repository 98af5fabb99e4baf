import Foundation
import CrashShieldRuntime.Internal

/// The failure path every guard takes when it stopped a call that would crash. One direction: the hook describes the
/// failure (`Failure`); `decide` asks the session (guard on? class excluded? mode?) and the call stack (is the call
/// site the app's own code?) and returns what to do; the pipeline only records, counts and delivers the report.
enum Interception {
    /// What to do with a stopped call.
    enum Decision {
        /// Release mode (or a system caller): return a safe value or skip the mutation; reported.
        case recover
        /// Debug mode, the app's own call: fail as Foundation would; reported first.
        case failLoudly
        /// Not CrashShield's business (guard off, class excluded): behave exactly as the original; not reported.
        case passThrough
    }

    /// One stopped call, as the hook saw it.
    struct Failure {
        var category: GuardCategory
        /// The class reported (for a class method, the class itself), nil for a nil receiver.
        var cls: ObjCClass?
        /// Reported class name when there is no class object (a class that is gone, a nil receiver).
        var className: String
        var selector: String
        var isClassMethod: Bool
        /// The exception the original raises (NSRangeException, ...), or the signal it dies of ("SIGSEGV").
        var exception: String
        var hint: String
        var details: [String: String]
        /// The replacement that stopped the call, to find the caller's frame.
        var implementation: UnsafeRawPointer?
        var callSite: CallSite
        /// Whether a call made by Foundation's own code is recovered too. Not for messages nothing answers
        /// (`.pastForwarding`): Foundation sending `-length` to an NSNumber it was handed, or `-copyWithZone:` to a
        /// key that is no NSCopying, would go on with the made-up answer (an empty string, a nil key stored) and
        /// change the app's object; passed through, Foundation raises as it would without CrashShield.
        var recoversFoundationCallers: Bool
        /// The replacement's frame and its caller, when the hook already walked to them (recovery at the raise): the
        /// decision then needs no walk of its own.
        var knownFrames: CallStack.KnownFrames?
        /// CrashShield dealt with it before anything failed (an observer deallocated while registered was removed):
        /// nothing fails, in any mode; the report says `.recovered`.
        var alreadyHandled = false

        /// A call on a receiver (an object or a class object).
        init(_ category: GuardCategory, receiver: CSRObject?, selector: CSRSelector?, exception: String, hint: String,
             details: [String: String] = [:], implementation: UnsafeRawPointer?, callSite: CallSite = .directCaller) {
            let receiverClass = ObjCClass(of: receiver)
            isClassMethod = receiverClass?.isMetaclass ?? false
            cls = isClassMethod ? receiver.map(ObjCClass.init) : receiverClass
            className = cls?.name ?? "nil"
            self.selector = selector.map { String(cString: csr_sel_getName($0)) } ?? "(null)"
            self.category = category
            self.exception = exception
            self.hint = hint
            self.details = details
            self.implementation = implementation
            self.callSite = callSite
            recoversFoundationCallers = callSite != .pastForwarding
        }

        /// An incident that is not a method call on a live receiver (an observer that died, a timer whose target is
        /// gone): named by class name.
        init(_ category: GuardCategory, className: String, selector: String, isClassMethod: Bool = false,
             exception: String, hint: String, details: [String: String] = [:], implementation: UnsafeRawPointer?,
             alreadyHandled: Bool = false) {
            self.category = category
            self.alreadyHandled = alreadyHandled
            cls = ObjCClass(named: className)
            self.className = className
            self.selector = selector
            self.isClassMethod = isClassMethod
            self.exception = exception
            self.hint = hint
            self.details = details
            self.implementation = implementation
            callSite = .directCaller
            recoversFoundationCallers = true
        }
    }

    /// Decides what to do with `failure` and records it (unless it passes through). `reason` (what the original would
    /// print) is built only for a detailed report. In debug mode a loud failure waits (briefly) until its report was
    /// delivered, so the developer sees it before the crash.
    @inline(never)
    static func decide(_ failure: Failure, reason: () -> String) -> Decision {
        guard let session = Session.current.load(ordering: .acquiring), session.isEnabled(failure.category) else {
            return .passThrough
        }
        if let cls = failure.cls, session.isExcluded(cls) { return .passThrough }
        let configuration = session.configuration
        // The decision needs the call site only (a cheap walk when it can); the whole stack is walked for a detailed
        // report only if the decision's walk did not already.
        let location = failure.knownFrames.flatMap(CallStack.directCaller)
            ?? CallStack.locateCaller(of: failure.implementation, callSite: failure.callSite,
                                      maxDepth: configuration.limits.maxStackDepth, isAppImage: session.isAppImage)
        let fromAppCode = location.callerImage.map(session.isAppImage) ?? true
        if !failure.recoversFoundationCallers, let image = location.callerImage, CallStack.foundationImages.contains(image) {
            return .passThrough
        }
        let loud = configuration.mode(for: failure.category) == .debug && fromAppCode && !failure.alreadyHandled
        let site = ReportPipeline.SiteKey(category: failure.category.rawValue, cls: UInt(bitPattern: failure.cls?.pointer),
                                          selector: failure.selector, caller: location.callerAddress)
        session.pipeline.record(site: site) {
            let full = location.isComplete ? location
                : CallStack.locate(callerOf: failure.implementation, callSite: failure.callSite,
                                   maxDepth: configuration.limits.maxStackDepth, isAppImage: session.isAppImage)
            return makeReport(failure, location: full, action: loud ? .failedLoudly : .recovered, reason: reason(),
                       redact: configuration.redact)
        }
        if loud { ReportDelivery.shared.waitUntilDelivered(timeout: 1) }
        return loud ? .failLoudly : .recover
    }

    /// `decide` for an incident that is not a method call on a receiver; true to recover. `alreadyHandled`: see
    /// `Failure.alreadyHandled`.
    @inline(never)
    static func report(_ category: GuardCategory, className: String, selector: String, isClassMethod: Bool = false,
                       exception: String, reason: () -> String, hint: String, details: [String: String] = [:],
                       implementation: UnsafeRawPointer?, alreadyHandled: Bool = false) -> Bool {
        decide(Failure(category, className: className, selector: selector, isClassMethod: isClassMethod,
                       exception: exception, hint: hint, details: details, implementation: implementation,
                       alreadyHandled: alreadyHandled),
               reason: reason) == .recover
    }

    /// The report of one detailed occurrence: symbolicated stack, signature (guard, method, call site), redaction.
    private static func makeReport(_ failure: Failure, location: CallStack.Location, action: CrashReport.Action,
                                   reason: String, redact: (@Sendable (CrashReport) -> CrashReport)?) -> CrashReport {
        let frames = location.addresses.map(CallStack.frame(for:))
        let caller = location.callerIndex.map { frames[$0] }
        let callSiteText = caller.map { "\(($0.image as NSString).lastPathComponent)+\($0.offsetInImage)" } ?? "?"
        let declaring = declaringClassName(failure)
        let callerFunction = caller.flatMap { CallerNames.function(at: UInt($0.address)) }
        let appFacing = "\(failure.isClassMethod ? "+" : "-")[\(declaring) \(failure.selector)]"
        let callerName = callerFunction ?? caller.map { ($0.image as NSString).lastPathComponent } ?? "?"
        let now = Date()
        let report = CrashReport(
            signature: Signature.make(failure.category.name, failure.className, failure.selector,
                                      failure.isClassMethod ? "+" : "-", callSiteText),
            category: failure.category, exceptionName: failure.exception, reason: reason,
            className: failure.className, selector: failure.selector, isClassMethod: failure.isClassMethod,
            hint: failure.hint, action: action, details: failure.details, thread: CallStack.currentThread(),
            callStack: frames, callerFrameIndex: location.callerIndex, firstSeen: now, lastSeen: now, occurrences: 1,
            context: .current(callStack: frames, at: now), declaringClassName: declaring, callerFunction: callerFunction,
            groupingKey: Signature.make("group", failure.category.name, appFacing, callerName))
        guard let redact else { return report }
        return Redaction.apply(redact, to: report)
    }
}

extension Interception {
    /// The class nearest the root that implements the failure's selector itself (on the class side for a class
    /// method): the class the app calls, as Foundation declares it, whatever concrete class received the call. The
    /// receiver's class when none does, or when there is no class.
    static func declaringClassName(_ failure: Failure) -> String {
        guard let cls = failure.cls else { return failure.className }
        let selector = ObjCSelector(failure.selector)
        let lineage = failure.isClassMethod ? cls.metaclass.lineage : cls.lineage
        guard let declaring = lineage.last(where: { $0.owns(selector) }) else { return failure.className }
        return declaring.name
    }
}

/// Names of call-site functions, as the device knows them (`CrashReport.callerFunction`), once per function.
enum CallerNames {
    private static let names = Locked([UInt: String?]())
    private static let maxEntries = 4096

    /// The name of the function that contains the return address `address`: an Objective-C method of its image (the
    /// runtime's method lists), or the exported symbol that starts exactly there; nil when neither names it.
    static func function(at address: UInt) -> String? {
        guard address > 0 else { return nil }
        let start = Images.function(containing: address - 1)
        guard start != 0 else { return nil }
        if let known = names.withLock({ $0[start] }) { return known }
        var info = CSRImageInfo()
        var name: String?
        if csr_image_info(UnsafeRawPointer(bitPattern: address), &info), let image = info.imagePath {
            var buffer = [CChar](repeating: 0, count: 512)
            if csr_method_name_for_function(start, image, &buffer, buffer.count) {
                name = String(cString: buffer)
            } else if info.symbolAddress == start, let symbol = info.symbolName {
                name = String(cString: symbol)
            }
        }
        names.withLock { if $0.count < maxEntries { $0[start] = name } }
        return name
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
