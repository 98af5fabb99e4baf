import CrashShieldRuntime.Internal

/// `-[NSDate compare:nil]`, GNUstep's rules only. GNUstep 1.28 (NSDate.m) raises in both implementations: NSGDate's
/// (the concrete dates, the distant past and future) `nil argument for compare:`, NSDate's generic one (other date
/// classes, app subclasses) `other time nil` (its `otherTime()` helper). Apple's NSDate does not raise there (the
/// issue's finding; documented as undefined): not hooked under Apple's rules. Recovery: NSOrderedDescending, as
/// for NSNumber. Check-first at the concrete layer (CSRCheckFirst.h: the argument is not nil).
enum DateHooks {
    typealias Compare = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Int

    static func install(in context: GuardContext) throws {
        guard !FoundationRules.isApple, let dates = ClassFamily("NSDate") else { return }
        try context.install(compare, onOwnersIn: dates)
    }

    /// Two layers (the concrete classes' own `compare:` under NSDate's generic one); the text is that of the
    /// implementation the receiver runs.
    static let compare: GuardedMethod<Compare> = GuardedMethod(
        "compare:", .container, checkFirst: Int32(CSRHotDateCompare),
        layers: [
            { r, cmd, other in compare(in: compare, r, cmd, other) },
            { r, cmd, other in compare(in: compare.layer(1), r, cmd, other) },
        ])
    private static func compare(
        in point: GuardedMethod<Compare>, _ r: CSRObject?, _ cmd: CSRSelector?, _ other: CSRObject?
    ) -> Int {
        point.guarded(
            r, cmd, valid: other != nil, else: .nilDateCompare(generic: runsGenericCompare(r)), unhooked: 0,
            recovery: { _ in 1 }
        ) { $0(r, cmd, other) }
    }

    private static let dateClass = ObjCClass(named: "NSDate")
    private static let compareSelector = ObjCSelector("compare:")

    /// Whether the receiver's `compare:` is NSDate's own (the nearest class defining it is NSDate).
    private static func runsGenericCompare(_ receiver: CSRObject?) -> Bool {
        guard let dateClass, let cls = ObjCClass(of: receiver) else { return false }
        return cls.owner(of: compareSelector) == dateClass
    }
}
