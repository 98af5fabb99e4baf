import Foundation
import CrashShieldRuntime.Internal

/// Why the running Foundation would fail a call: how it fails (`Failure`: the exception it raises, or the signal it
/// dies of), its reason (built only when reported or raised, from the subject's class name) and what the developer
/// should check. Built by the constructors in `FoundationFailures`, the one place that words Foundation's failures.
/// Three parts, no more: a guarded method's replacement keeps room for one on its stack (what the incident adds is the
/// incident's, built off the valid path).
struct Violation {
    /// How the original fails: the one thing the incident path asks of a violation besides its words.
    enum Failure {
        /// It raises this Objective-C exception (NSRangeException...): failing loudly may raise it in its place.
        case exception(name: String)
        /// It dies of this signal (a NULL or freed pointer dereferenced, a buffer overrun): nothing can raise or
        /// catch it, so failing loudly lets the original fail as it would.
        case signal(name: String)

        /// A NULL or freed pointer dereferenced, a read or write past a buffer.
        static let segmentationFault = Failure.signal(name: "SIGSEGV")

        /// The report's `exceptionName`.
        var name: String {
            switch self {
            case .exception(let name), .signal(let name): name
            }
        }
    }

    let failure: Failure
    let hint: String
    let reason: (String) -> String

    init(_ failure: Failure, hint: String, reason: @escaping (String) -> String) {
        self.failure = failure
        self.hint = hint
        self.reason = reason
    }

    /// A violation whose original raises the Objective-C exception `exception` (`ExceptionName`).
    init(_ exception: String, hint: String, reason: @escaping (String) -> String) {
        self.init(.exception(name: exception), hint: hint, reason: reason)
    }
}

/// What the incident path does with a stopped call.
enum Verdict {
    /// Release mode (or a system caller): return a safe value or skip the mutation; reported.
    case recover
    /// Debug mode, the app's own call: fail as Foundation would; reported first.
    case failLoudly
    /// Not CrashShield's business (guard off, class excluded, hook reverted in place): behave exactly as the original;
    /// not reported.
    case passThrough
}

/// One stopped call, whatever stopped it (a Swift replacement, a C trampoline, a variadic trampoline, a message to a
/// zombie, a dead observer or timer target, a WebKit panel handler released uncalled), in four parts: who (the guard,
/// the subject, the selector), what (the violation and the report's details), where (`Site`: the hook that stopped it
/// and its caller) and how it ends when it is not recovered (`Unrecovered`). Judged and carried out by
/// `IncidentPath.handle`, the one door to the reports.
struct Incident {
    /// What the call was made on.
    struct Subject {
        /// The class reported (for a class method, the class itself), nil for a nil receiver or a class that is gone.
        var cls: ObjCClass?
        /// Reported class name (also when there is no class object).
        var className: String
        var isClassMethod: Bool

        /// A receiver (an object or a class object).
        init(receiver: CSRObject?) {
            let receiverClass = ObjCClass(of: receiver)
            isClassMethod = receiverClass?.isMetaclass ?? false
            cls = isClassMethod ? receiver.map(ObjCClass.init) : receiverClass
            className = cls?.name ?? "nil"
        }

        /// A class, with no receiver at hand (the delegate class of a WebKit panel handler released uncalled).
        init(cls: ObjCClass?) {
            self.cls = cls
            className = cls?.name ?? "nil"
            isClassMethod = false
        }

        /// A class by name (an incident that is not a call on a live receiver: an observer that died...).
        init(className: String, isClassMethod: Bool = false) {
            cls = ObjCClass(named: className)
            self.className = className
            self.isClassMethod = isClassMethod
        }
    }

    /// Where the call was stopped: the replacement that stopped it, where its caller is relative to it, and what the
    /// verdict asks of the two.
    struct Site {
        /// The replacement that stopped the call, to find the caller's frame.
        var implementation: UnsafeRawPointer?
        var callSite: CallSite = .directCaller
        /// The hook that stopped the call is still in its chain (a hook reverted in place passes calls through).
        var hookIsActive = true
        /// Whether a call made by Foundation's own code is recovered too. Not for messages nothing answers
        /// (`.pastForwarding`): Foundation sending `-length` to an NSNumber it was handed, or `-copyWithZone:` to a
        /// key that is no NSCopying, would go on with the made-up answer (an empty string, a nil key stored) and change
        /// the app's object; passed through, Foundation raises as it would without CrashShield. Nor for a guarded
        /// method that declares it (`GuardedMethod.leavingFoundationCallersAlone`): a read into the caller's buffer,
        /// which Foundation's own code would go on to use unfilled.
        var recoversFoundationCallers = true
    }

    /// An Objective-C exception the incident path raises: its name, and its reason from the subject's class name.
    struct Exception {
        let name: String
        let reason: (String) -> String
    }

    /// How a call that is not recovered goes on, and what the incident path raises for it.
    enum Unrecovered {
        /// The caller runs the original, or lets the original's exception go on: Foundation fails as without
        /// CrashShield, also when failing loudly (a failure by signal cannot be raised: the original fails as it
        /// would).
        case original
        /// Failing loudly raises the exception in the incident path (the original is never reached: guards on the
        /// methods it calls cannot stop the same failure again); passing through runs the original.
        case raiseWhenLoud(Exception)
        /// There is no original to run (a message nothing answers): passing through and failing loudly both raise the
        /// exception the runtime raises.
        case raiseAlways(Exception)
        /// There is no original, and without CrashShield nothing would be raised but a crash (a message to a freed
        /// object): passing through answers nil unless the guard is on in debug mode; failing loudly raises.
        case raiseInDebug(Exception)
        /// Nothing is left to fail: CrashShield dealt with it before anything failed (an observer deallocated while
        /// registered was removed). Never fails loudly; the report says `.recovered`.
        case alreadyHandled

        /// Failing loudly raises the violation's own exception; a violation by signal cannot be raised, and the
        /// original runs (`.original`).
        static func raiseWhenLoud(_ violation: Violation) -> Unrecovered {
            switch violation.failure {
            case .exception(let name): .raiseWhenLoud(Exception(name: name, reason: violation.reason))
            case .signal: .original
            }
        }

        /// What the incident path raises for `verdict`; nil: the hook acts on the verdict itself.
        func raised(for verdict: Verdict) -> Exception? {
            switch (verdict, self) {
            case (.recover, _), (_, .original), (_, .alreadyHandled), (.passThrough, .raiseWhenLoud):
                return nil
            case (.failLoudly, .raiseWhenLoud(let exception)), (_, .raiseAlways(let exception)),
                (_, .raiseInDebug(let exception)):
                return exception
            }
        }
    }

    // Who.
    var category: GuardCategory
    var subject: Subject
    var selector: String
    // What.
    var violation: Violation
    /// The violation's details for the report (the key, the thread, the deallocation stack...).
    var details: [String: String]
    // Where.
    var site: Site
    // How it ends.
    var unrecovered: Unrecovered

    /// A call on a receiver, stopped by `point` (its replacement, or `implementation` when another stopped it: a
    /// trampoline of one slot; nil `point`: not a hook, or a hook that always stands).
    init(
        _ category: GuardCategory, receiver: CSRObject?, selector: CSRSelector?, _ violation: Violation,
        details: [String: String] = [:], point: AnyHookPoint? = nil, implementation: UnsafeRawPointer? = nil,
        callSite: CallSite = .directCaller, unrecovered: Unrecovered = .original
    ) {
        self.category = category
        subject = Subject(receiver: receiver)
        self.selector = selector.map { String(cString: csr_sel_getName($0)) } ?? "(null)"
        self.violation = violation
        self.details = details
        site = Site(
            implementation: implementation ?? point?.replacementAddress, callSite: callSite,
            hookIsActive: point?.isActive(for: receiver) ?? true,
            recoversFoundationCallers: callSite != .pastForwarding)
        self.unrecovered = unrecovered
    }

    /// An incident that is not a method call on a live receiver (an observer that died, a timer whose target is gone):
    /// named by its subject.
    init(
        _ category: GuardCategory, subject: Subject, selector: String, _ violation: Violation,
        details: [String: String] = [:], implementation: UnsafeRawPointer?, unrecovered: Unrecovered = .original
    ) {
        self.category = category
        self.subject = subject
        self.selector = selector
        self.violation = violation
        self.details = details
        site = Site(implementation: implementation)
        self.unrecovered = unrecovered
    }
}

/// The failure path, from every hook to the sinks. One direction: the hook describes what it stopped (`Incident`);
/// `judge` asks the session (guard on? class excluded? mode?) and the call stack (is the call site the app's own
/// code?) for the `Verdict`; `handle` carries it out: it records the report (`ReportPipeline.record`, which only
/// records, counts and delivers) and raises where failing loudly raises. Nothing else in CrashShield records a report
/// or raises for a guard (scripts/check-incident-path.sh).
enum IncidentPath {
    /// A verdict and the call site it was reached at (nil for a pass-through, which looks at no stack).
    struct Judgement {
        var verdict: Verdict
        var location: CallStack.Location?
    }

    /// Judges `incident`, records it (unless it passes through) and carries the verdict out: raises the exception its
    /// `Unrecovered` carries where that verdict raises (`Unrecovered.raised(for:)`), and otherwise returns the verdict
    /// for the hook to act on (`.recover`: a safe value or a skipped mutation; anything else: go on as without
    /// CrashShield). In debug mode a
    /// loud failure waits (briefly) until its report was delivered, so the developer sees it before the crash.
    @inline(never)
    static func handle(_ incident: Incident) -> Verdict {
        let session = Session.current.load(ordering: .acquiring)
        let judgement = judge(incident, in: session)
        if let session, let location = judgement.location {
            record(incident, at: location, loud: judgement.verdict == .failLoudly, in: session)
        }
        var verdict = judgement.verdict
        if verdict == .passThrough, case .raiseInDebug = incident.unrecovered {
            // No original to pass to: never worse than the crash it replaces (nil), unless the guard asks to fail.
            let failing =
                session.map {
                    $0.isEnabled(incident.category)
                        && $0.configuration.mode(for: incident.category) == .debug
                } ?? false
            verdict = failing ? .failLoudly : .recover
        }
        guard let raised = incident.unrecovered.raised(for: verdict) else { return verdict }
        csr_raise(raised.name, raised.reason(incident.subject.className))
    }

    /// The verdict: pass through when the guard is off, the class excluded or the hook reverted in place (or the call
    /// is Foundation's own where the incident does not recover those); fail loudly in debug mode for a call from the
    /// app's own code; recover otherwise.
    static func judge(_ incident: Incident, in session: Session?) -> Judgement {
        guard incident.site.hookIsActive, let session, session.isEnabled(incident.category) else {
            return Judgement(verdict: .passThrough)
        }
        if let cls = incident.subject.cls, session.isExcluded(cls) { return Judgement(verdict: .passThrough) }
        let configuration = session.configuration
        // The verdict needs the call site only (a cheap walk when it can); the whole stack is walked for a detailed
        // report only if the verdict's walk did not already.
        let site = incident.site
        let location = CallStack.locateCaller(
            of: site.implementation, callSite: site.callSite,
            maxDepth: configuration.limits.maxStackDepth, isAppImage: session.isAppImage)
        let fromAppCode = location.callerImage.map(session.isAppImage) ?? true
        if !site.recoversFoundationCallers,
            location.directCallerIsFoundation
                || location.callerImage.map(CallStack.foundationImages.contains) ?? false
        {
            return Judgement(verdict: .passThrough)
        }
        if case .alreadyHandled = incident.unrecovered { return Judgement(verdict: .recover, location: location) }
        let loud = configuration.mode(for: incident.category) == .debug && fromAppCode
        return Judgement(verdict: loud ? .failLoudly : .recover, location: location)
    }

    /// The one call of `ReportPipeline.record`: rate limited per call site; the detailed report (full stack, reason,
    /// redaction) is built only under the rate limit.
    private static func record(_ incident: Incident, at location: CallStack.Location, loud: Bool, in session: Session) {
        let configuration = session.configuration
        let site = ReportPipeline.SiteKey(
            category: incident.category.rawValue,
            cls: UInt(bitPattern: incident.subject.cls?.pointer),
            selector: incident.selector, caller: location.callerAddress)
        let redact = configuration.redact
        // What the failing thread found of the caller, for `finishReport` on the delivery thread (the pipeline hands
        // it the report after the build below, through its queue).
        let found = Locked<CallStack.Caller?>(nil)
        session.pipeline.record(site: site, finish: { finishReport($0, caller: found.current, redact: redact) }) {
            let full =
                location.isComplete
                ? location
                : CallStack.locate(
                    callerOf: incident.site.implementation, callSite: incident.site.callSite,
                    maxDepth: configuration.limits.maxStackDepth, isAppImage: session.isAppImage)
            let (report, caller) = makeReport(
                incident, location: full, action: loud ? .failedLoudly : .recovered,
                reason: incident.violation.reason(incident.subject.className))
            found.withLock { $0 = caller }
            return report
        }
        if loud { ReportDelivery.shared.waitUntilDelivered(timeout: 1) }
    }

    /// The report of one detailed occurrence as the failing thread makes it: symbolicated stack, signature (guard,
    /// method, call site). The caller's name, the grouping key and redaction are `finishReport`'s, on the delivery
    /// thread: naming a new call site may scan every class of the caller's image (`CallerNames`).
    private static func makeReport(
        _ incident: Incident, location: CallStack.Location, action: CrashReport.Action, reason: String
    ) -> (CrashReport, CallStack.Caller?) {
        let subject = incident.subject
        let frames = location.addresses.map(CallStack.frame(for:))
        let caller = location.callerIndex.map { frames[$0] }
        let callSiteText = caller.map { "\(($0.image as NSString).lastPathComponent)+\($0.offsetInImage)" } ?? "?"
        let declaring = declaringClassName(subject, incident.selector)
        // Who made the call: the caller frame's function, or the function that tail-called from it; only the
        // replacement's direct caller can be checked (the call before its return address went to the hook). Reading
        // the code before the return address is cheap and stays here; naming the function is `finishReport`'s.
        let resolved = caller.map { frame -> CallStack.Caller in
            let address = UInt(frame.address)
            guard incident.site.callSite == .directCaller, !location.directCallerIsFoundation else {
                return CallStack.Caller(function: Images.function(containing: address - 1))
            }
            return CallStack.caller(
                returningTo: address, implementation: incident.site.implementation, selector: incident.selector,
                subject: subject.cls)
        }
        let now = Date()
        let report = CrashReport(
            signature: Signature.make(
                incident.category.name, subject.className, incident.selector,
                subject.isClassMethod ? "+" : "-", callSiteText),
            category: incident.category, exceptionName: incident.violation.failure.name, reason: reason,
            className: subject.className, selector: incident.selector, isClassMethod: subject.isClassMethod,
            hint: incident.violation.hint, action: action, details: incident.details,
            thread: CallStack.currentThread(), callStack: frames, callerFrameIndex: location.callerIndex,
            firstSeen: now, lastSeen: now, occurrences: 1, context: .current(callStack: frames, at: now),
            declaringClassName: declaring, callerIsCertain: resolved?.isCertain == false ? false : nil,
            callerMadeTailCall: resolved?.madeTailCall == true ? true : nil)
        return (report, resolved)
    }

    /// What `makeReport` leaves to the delivery thread (`ReportPipeline.record(site:finish:)`): the caller's function
    /// name and identity as the device knows them (`CallerNames`, for the function `caller` found), the grouping key
    /// (guard, the method as the app calls it, that identity or the caller's image), then redaction. The verdict and
    /// the recovery never wait for it.
    static func finishReport(
        _ report: CrashReport, caller resolved: CallStack.Caller?, redact: (@Sendable (CrashReport) -> CrashReport)?
    ) -> CrashReport {
        var report = report
        let function = resolved.flatMap { $0.function == 0 ? nil : $0.function }
        let frameName = function.flatMap(CallerNames.function(startingAt:))
        let identity = function.flatMap(CallerNames.identity(startingAt:))
        let image = report.callerFrame.map { ($0.image as NSString).lastPathComponent }
        report.callerFunction = resolved?.isCertain == false ? nil : frameName
        report.callerIdentity = identity
        if let resolved, !resolved.isCertain {
            let via = resolved.via.map { "-\($0)" } ?? "?"
            report.callerIdentity = "\(identity ?? image ?? "?") -> \(via) (tail call)"
        }
        let callerKey = report.callerIdentity ?? image ?? "?"
        report.groupingKey = Signature.make("group", report.category.name, report.appFacingMethod, callerKey)
        guard let redact else { return report }
        return Redaction.apply(redact, to: report)
    }
}

extension IncidentPath {
    /// The class nearest the root that implements `selector` itself (on the class side for a class method): the
    /// class the app calls, as Foundation declares it, whatever concrete class received the call. The subject's class
    /// when none does, or when there is no class.
    static func declaringClassName(_ subject: Incident.Subject, _ selectorName: String) -> String {
        guard let cls = subject.cls else { return subject.className }
        let selector = ObjCSelector(selectorName)
        let lineage = subject.isClassMethod ? cls.metaclass.lineage : cls.lineage
        guard let declaring = lineage.last(where: { $0.owns(selector) }) else { return subject.className }
        return declaring.name
    }
}

/// Names and identities of call-site functions, as the device knows them (`CrashReport.callerFunction`,
/// `callerIdentity`), once per function. Asked on the delivery thread (`IncidentPath.finishReport`), never on the
/// failing one: naming an Objective-C method scans the classes of its image (`csr_method_name_for_function`).
enum CallerNames {
    private static let names = Locked([UInt: String?]())
    private static let identities = Locked([UInt: String?]())
    private static let maxEntries = 4096

    /// How many functions were looked up so far (tests).
    static var knownCount: Int { names.withLock { $0.count } }

    /// Forgets every name and identity (tests: a call site named again).
    static func forgetAll() {
        names.withLock { $0.removeAll() }
        identities.withLock { $0.removeAll() }
    }

    /// The name of the function that starts at `start`: an Objective-C method of its image (the runtime's method
    /// lists), or the exported symbol that starts exactly there; nil when neither names it.
    static func function(startingAt start: UInt) -> String? {
        guard start != 0 else { return nil }
        if let known = names.withLock({ $0[start] }) { return known }
        var info = CSRImageInfo()
        var name: String?
        if csr_image_info(UnsafeRawPointer(bitPattern: start), &info), let image = info.imagePath {
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

    /// The function's name, else `<image name>!<hash of its code>` (`csr_code_hash`: the displacements a rebuild
    /// moves are masked, so an unrelated change elsewhere keeps it; a change of the function itself makes a new one).
    /// Of the three stable identities an unnamed function has, it is the one the device can compute and that an
    /// insertion before the function keeps: its ordinal among the image's functions changes with every function
    /// added before it, and the symbol file is not on the device. nil when no unwind table covers the function.
    static func identity(startingAt start: UInt) -> String? {
        if let name = function(startingAt: start) { return name }
        guard start != 0 else { return nil }
        if let known = identities.withLock({ $0[start] }) { return known }
        var identity: String?
        let code = UnsafeRawPointer(bitPattern: start)
        let hash = csr_code_hash(code, csr_function_end(code, 4096))
        if hash != 0, let image = Images.path(of: start) {
            let hex = String(hash, radix: 16)
            identity = (image as NSString).lastPathComponent + "!" + String(repeating: "0", count: 16 - hex.count) + hex
        }
        identities.withLock { if $0.count < maxEntries { $0[start] = identity } }
        return identity
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
