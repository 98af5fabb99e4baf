import CrashShieldRuntime.Internal

/// `-[NSNumber compare:]` given nil, the primitive NSNumber's `isEqualToNumber:` funnels into. GNUstep 1.28
/// (NSNumber.m): every concrete number class's `compare:` raises `nil argument for compare:`, and NSNumber's
/// `isEqualToNumber:` calls it; the floating-point classes' own `isEqualToNumber:` compares `[nil doubleValue]` (0)
/// and raises nothing (left alone: `isEqualToNumber:nil` is YES for a zero float). Apple: `*** -[__NSCFNumber
/// compare:]: nil argument` (text unverified on a device). NSDate's `compare:nil` raises on GNUstep too, not on
/// Apple; NSString's is `SearchHooks`'. Recovery: NSOrderedDescending (so `isEqualToNumber:nil` answers NO).
///
/// Check-first (CSRCheckFirst.h: the argument is not nil), on the concrete classes' own implementations only (NSNumber's
/// generic one, which only app subclasses reach, raises its own subclass-responsibility exception).
enum NumberHooks {
    typealias Compare = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Int

    static func install(in context: GuardContext) throws {
        guard let numbers = ClassFamily("NSNumber") else { return }
        try context.install(compare, onOwnersIn: numbers)
    }

    static let compare: GuardedMethod<Compare> = GuardedMethod(
        "compare:", .container, checkFirst: Int32(CSRHotNumberCompare),
        layers: [
            { r, cmd, other in
                compare.guarded(r, cmd, valid: other != nil, else: .nilNumberCompare, unhooked: 0, recovery: { _ in 1 })
                { $0(r, cmd, other) }
            }
        ])
}
