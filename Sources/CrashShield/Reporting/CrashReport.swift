import Foundation

/// One stopped crash: what would have happened, where, and how often.
public struct CrashReport: Codable, Sendable, Equatable, Identifiable {
    /// What CrashShield did about it.
    public enum Action: String, Codable, Sendable {
        /// Stopped: the caller got a safe value, an invalid mutation was skipped.
        case recovered
        /// Debug mode: reported, then the original failure was let through.
        case failedLoudly
    }

    /// Identifies reports of the same bug at the same call site (guard, class, selector, caller); the dedup key.
    public var signature: String
    /// The guard that stopped it (one category), written as its name ("container", "kvo", ...).
    public var category: GuardCategory
    /// The exception the original code would have raised (NSRangeException, ...) or the signal it would have died of.
    public var exceptionName: String
    /// What the original crash would have printed.
    public var reason: String
    /// Class of the receiver.
    public var className: String
    /// The selector that was called ("objectAtIndex:").
    public var selector: String
    /// True for a class method (`+[X sel]`).
    public var isClassMethod: Bool
    /// One line on how to fix the call site.
    public var hint: String
    public var action: Action
    /// Guard-specific facts (a key path, an observer's class, where an object was deallocated).
    public var details: [String: String]
    public var thread: ThreadInfo
    /// The call stack when the crash was stopped, innermost first.
    public var callStack: [StackFrame]
    /// Index in `callStack` of the frame that made the bad call, when it could be found.
    public var callerFrameIndex: Int?
    public var firstSeen: Date
    public var lastSeen: Date
    /// How many times this signature occurred (updates are delivered at 1, 10, 100, ... and on flush).
    public var occurrences: Int
    /// Where the report came from: app, OS, device, launch, binary images (see `ReportContext`). Reports written
    /// before reports had a context decode with none.
    public var context: ReportContext?
    /// The class the app calls the method on, as Foundation declares it: the class nearest the root that implements
    /// the selector itself (`NSArray` for `__NSArrayI`'s and `GSInlineArray`'s `objectAtIndex:`, `NSObject` for KVC
    /// and KVO), or the receiver's own class when none does (a selector nothing answers). Nil in reports written
    /// before it existed.
    public var declaringClassName: String?
    /// The function that made the bad call, named as the device knows it without symbols: an Objective-C method of
    /// the app's ("-[MYListController reload]", from the runtime) or an exported symbol. Nil when the device has no
    /// name for it (a Swift or C function of a stripped binary): symbolicate `callerFrame` instead.
    public var callerFunction: String?
    /// The caller, named the same way in every build: `callerFunction` when the device names it; else the caller's
    /// image and a hash of its function's code with the displacements a rebuild moves masked (`app!1f2e3d4c5b6a7988`:
    /// an unexported C function, an internal Swift function, any function of a stripped app); for a caller that is
    /// not certain (`callerIsCertain`), what is certain: the function the frame lies in and the message it sent
    /// (`-[MYFeed reload] -> -reloadFeed: (tail call)`). Nil when nothing identifies the caller (no unwind table
    /// covers it), and in reports written before it existed.
    public var callerIdentity: String?
    /// false when the frame at `callerFrameIndex` may not be the function that made the call: an optimized build left
    /// no frame of a function that made the call as a tail call (`return [items objectAtIndex:i];`), and the code
    /// before the return address does not say which function that was (a message of another selector, an indirect
    /// call). `callerFunction` is then nil and `callerIdentity` says what is known. Nil otherwise.
    public var callerIsCertain: Bool?
    /// true when `callerFunction` made the call as a tail call and has no frame: the frame at `callerFrameIndex` is
    /// its caller's, whose direct call to it the code before the return address shows. Nil otherwise.
    public var callerMadeTailCall: Bool?
    /// The same bug at the same place, across builds and releases: guard, `appFacingMethod` and the caller
    /// (`callerIdentity`, else the caller's image name). Unlike `signature` it survives a rebuild, an unrelated edit
    /// and a new cluster class; it is what a crash service should group by (the Sentry sink sends it, see Docs/Reports.md
    /// "Grouping across releases"). Nil in reports written before it existed.
    public var groupingKey: String?

    public var id: String { signature }

    public init(
        signature: String, category: GuardCategory, exceptionName: String, reason: String, className: String,
        selector: String, isClassMethod: Bool, hint: String, action: Action, details: [String: String] = [:],
        thread: ThreadInfo, callStack: [StackFrame] = [], callerFrameIndex: Int? = nil,
        firstSeen: Date, lastSeen: Date, occurrences: Int, context: ReportContext? = nil,
        declaringClassName: String? = nil, callerFunction: String? = nil, groupingKey: String? = nil,
        callerIdentity: String? = nil, callerIsCertain: Bool? = nil, callerMadeTailCall: Bool? = nil
    ) {
        self.signature = signature
        self.category = category
        self.exceptionName = exceptionName
        self.reason = reason
        self.className = className
        self.selector = selector
        self.isClassMethod = isClassMethod
        self.hint = hint
        self.action = action
        self.details = details
        self.thread = thread
        self.callStack = callStack
        self.callerFrameIndex = callerFrameIndex
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.occurrences = occurrences
        self.context = context
        self.declaringClassName = declaringClassName
        self.callerFunction = callerFunction
        self.groupingKey = groupingKey
        self.callerIdentity = callerIdentity
        self.callerIsCertain = callerIsCertain
        self.callerMadeTailCall = callerMadeTailCall
    }

    /// The frame that made the bad call.
    public var callerFrame: StackFrame? {
        callerFrameIndex.flatMap { callStack.indices.contains($0) ? callStack[$0] : nil }
    }

    /// `-[Class selector]` or `+[Class selector]`.
    public var method: String { "\(isClassMethod ? "+" : "-")[\(className) \(selector)]" }

    /// The method as the app calls it: `-[NSArray objectAtIndex:]` whatever cluster class received it.
    public var appFacingMethod: String {
        "\(isClassMethod ? "+" : "-")[\(declaringClassName ?? className) \(selector)]"
    }

    /// `groupingKey`, or `signature` for a report written before grouping keys existed.
    public var group: String { groupingKey ?? signature }
}

/// The thread a crash was stopped on.
public struct ThreadInfo: Codable, Sendable, Equatable {
    public var id: UInt64
    public var name: String
    public var isMain: Bool

    public init(id: UInt64, name: String, isMain: Bool) {
        self.id = id
        self.name = name
        self.isMain = isMain
    }
}

/// One frame of a call stack, with what symbolication needs.
public struct StackFrame: Codable, Sendable, Equatable {
    /// Return address.
    public var address: UInt64
    /// Path of the binary image.
    public var image: String
    /// Load address of the image.
    public var imageBase: UInt64
    /// Nearest exported symbol (mangled), when the image exports one.
    public var symbol: String?
    /// Apple platforms: the image UUID (for dSYM lookup).
    public var imageUUID: String?
    /// Apple platforms: the ASLR slide of the image.
    public var slide: Int64?

    public init(
        address: UInt64, image: String, imageBase: UInt64, symbol: String? = nil,
        imageUUID: String? = nil, slide: Int64? = nil
    ) {
        self.address = address
        self.image = image
        self.imageBase = imageBase
        self.symbol = symbol
        self.imageUUID = imageUUID
        self.slide = slide
    }

    /// Offset of the address in its image: what symbolication tools take.
    public var offsetInImage: UInt64 { address &- imageBase }
}

/// The counting model (Docs/Reports.md "Counting"): `occurrences` counts one call site (`signature`) within one launch
/// (`ReportContext.launchID`) and grows as the launch goes on; each line a store keeps, and each report a sink
/// receives, carries the launch's total so far. So the latest report of a (signature, launch) pair holds that
/// launch's count, and a total is the sum over launches of those latest counts (over builds too, summed by
/// `groupingKey`). The store's `load()`, its compaction and the report tool all count this way.
@_spi(CrashShieldTools) public enum ReportCounting {
    /// The key of one launch's count of one call site. A report without a context (written before reports had
    /// one) counts as a launch of its own source (`source`: its file, say).
    public static func launchKey(_ report: CrashReport, source: String) -> String {
        report.signature + "|" + (report.context?.launchID ?? "source:" + source)
    }

    /// Sums launch totals: `latestPerLaunch` holds one report per (signature, launch), the latest; the result holds
    /// one report per `key` (the signature, or `CrashReport.group`), in order of first appearance, with
    /// occurrences summed, first seen the earliest and last seen the latest; the other fields come from the most
    /// recently seen report.
    public static func merge(_ latestPerLaunch: [CrashReport], by key: (CrashReport) -> String) -> [CrashReport] {
        var merged: [String: CrashReport] = [:]
        var order: [String] = []
        for report in latestPerLaunch {
            let name = key(report)
            guard var existing = merged[name] else {
                merged[name] = report
                order.append(name)
                continue
            }
            let total = existing.occurrences + report.occurrences
            let first = min(existing.firstSeen, report.firstSeen), last = max(existing.lastSeen, report.lastSeen)
            if report.lastSeen >= existing.lastSeen { existing = report }
            existing.occurrences = total
            existing.firstSeen = first
            existing.lastSeen = last
            merged[name] = existing
        }
        return order.compactMap { merged[$0] }
    }
}
