import CrashShieldRuntime.Internal

/// NSData and NSMutableData: ranges past the end, a nil search. See `ContainerGuard` for the recovery rules: an empty
/// data object for `subdataWithRange:`, {NSNotFound, 0} for `rangeOfData:options:range:`, the buffer untouched for
/// `getBytes:range:`; an invalid mutation is skipped.
///
/// A replacement or reset grows a mutable data object when its range ends past the end; both Foundations raise when
/// it starts past the end (Apple's documentation: "If the location of range isn't within the receiver's range of
/// bytes, an NSRangeException is raised"), and GNUstep's `resetBytesInRange:` for any range past the end.
///
/// GNUstep's replacements check nothing but the location, then compute the range's end in C's wrapping arithmetic,
/// and two outcomes write past the end of the data's buffer (SIGSEGV, or a corrupted heap first; `dataOverrun`,
/// stopped and reported with the signal, as the KVO guard does for what GNUstep dereferences): an end past 2^64 in
/// `replaceBytesInRange:withBytes:` (no growth, then a copy of `range.length` bytes), and any end past the end in
/// `replaceBytesInRange:withBytes:length:` (it moves the tail from the end, `length - end` bytes), which an end
/// wrapped past 2^64 (at most the location) does not reach: GNUstep accepts that one and stays in its buffer.
enum DataHooks {
    typealias IMP = ContainerIMP
    typealias GetBytesRange = @convention(c) (CSRObject?, CSRSelector?, UnsafeMutableRawPointer?, CSRRange) -> Void
    typealias RangeOfData = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange) -> CSRRange
    typealias ReplaceBytes = @convention(c) (CSRObject?, CSRSelector?, CSRRange, UnsafeRawPointer?) -> Void
    typealias ReplaceBytesLength = @convention(c) (CSRObject?, CSRSelector?, CSRRange, UnsafeRawPointer?, UInt) -> Void

    static func install(in context: GuardContext) throws {
        guard let data = ClassFamily("NSData", "NSMutableData"), let mutable = ClassFamily("NSMutableData") else {
            return
        }
        for point in [subdataWithRange, rangeOfData] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: data)
        }
        // NSData's generic implementation under the concrete classes' own (GNUstep: NSDataStatic, NSMutableDataMalloc).
        try context.install(layers: [getBytesRangeBase, getBytesRange], onOwnersIn: data)
        for point in [replaceBytes, replaceBytesLength, resetBytes] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
    }

    /// Recovery: an empty data object (the original with {0, 0}).
    static let subdataWithRange: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod(
        "subdataWithRange:", .container,
        layers: [
            { subdataWithRange(in: subdataWithRange, $0, $1, $2) },
            { subdataWithRange(in: subdataWithRange.layer(1), $0, $1, $2) },
            { subdataWithRange(in: subdataWithRange.layer(2), $0, $1, $2) },
        ])
    private static func subdataWithRange(
        in point: GuardedMethod<IMP.ObjectWithRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange
    ) -> CSRObject? {
        point.read(r, cmd, rangeFailure(r, range, method: "subdataWithRange:"), recovery: { $0(r, cmd, .empty) }) {
            $0(r, cmd, range)
        }
    }

    /// Foundation's own calls are left to it (`leavingFoundationCallersAlone`): its code would go on reading the
    /// buffer the recovery leaves unfilled (GNUstep's property-list deserializer relies on the exception).
    static let getBytesRange: GuardedMethod<GetBytesRange> = GuardedMethod("getBytes:range:", .container) {
        r, cmd, buffer, range in
        getBytesRange.mutation(r, cmd, rangeFailure(r, range, method: "getBytes:range:")) { $0(r, cmd, buffer, range) }
    }.leavingFoundationCallersAlone()
    static let getBytesRangeBase: GuardedMethod<GetBytesRange> = GuardedMethod("getBytes:range:", .container) {
        r, cmd, buffer, range in
        getBytesRangeBase.mutation(r, cmd, rangeFailure(r, range, method: "getBytes:range:")) {
            $0(r, cmd, buffer, range)
        }
    }.leavingFoundationCallersAlone()

    /// GNUstep checks the range, then the data object; under Apple's rules a nil data object is checked first.
    /// Recovery: {NSNotFound, 0}.
    static let rangeOfData: GuardedMethod<RangeOfData> = GuardedMethod(
        "rangeOfData:options:range:", .container,
        layers: [
            { rangeOfData(in: rangeOfData, $0, $1, $2, $3, $4) },
            { rangeOfData(in: rangeOfData.layer(1), $0, $1, $2, $3, $4) },
            { rangeOfData(in: rangeOfData.layer(2), $0, $1, $2, $3, $4) },
        ])
    private static func rangeOfData(
        in point: GuardedMethod<RangeOfData>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ search: CSRObject?, _ options: UInt, _ range: CSRRange
    ) -> CSRRange {
        let nilData =
            search != nil
            ? nil
            : Violation.fixed(
                ExceptionName.invalidArgument, "range of nil", method: "rangeOfData:options:range:",
                apple: "nil data argument", hint: "check the data for nil before the call")
        let violation =
            FoundationRules.isApple
            ? nilData ?? rangeFailure(r, range, method: "rangeOfData:options:range:")
            : rangeFailure(r, range, method: "rangeOfData:options:range:") ?? nilData
        return point.guarded(r, cmd, violation, unhooked: .notFound, recovery: { _ in .notFound }) {
            $0(r, cmd, search, options, range)
        }
    }

    private static func rangeFailure(_ r: CSRObject?, _ range: CSRRange, method: String) -> Violation? {
        let length = length(of: r)
        return range.fits(in: length) ? nil : .dataRange(range, length: length, method: method)
    }

    // MARK: Mutations whose range starts past the end (skipped)

    /// GNUstep: a NULL `bytes` with a non-empty range raises before anything is copied (left to Foundation).
    static let replaceBytes: GuardedMethod<ReplaceBytes> = GuardedMethod(
        "replaceBytesInRange:withBytes:", .container,
        layers: [
            { replaceBytes(in: replaceBytes, $0, $1, $2, $3) },
            { replaceBytes(in: replaceBytes.layer(1), $0, $1, $2, $3) },
            { replaceBytes(in: replaceBytes.layer(2), $0, $1, $2, $3) },
        ])
    private static func replaceBytes(
        in point: GuardedMethod<ReplaceBytes>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange, _ bytes: UnsafeRawPointer?
    ) {
        let method = "replaceBytesInRange:withBytes:"
        var violation = startFailure(r, range, method: method)
        if violation == nil && FoundationRules.platform == .gnustep && bytes != nil
            && range.location &+ range.length < range.location
        {
            violation = .dataOverrun(range, length: length(of: r), method: method)
        }
        point.mutation(r, cmd, violation) { $0(r, cmd, range, bytes) }
    }
    static let replaceBytesLength: GuardedMethod<ReplaceBytesLength> = GuardedMethod(
        "replaceBytesInRange:withBytes:length:", .container,
        layers: [
            { replaceBytesLength(in: replaceBytesLength, $0, $1, $2, $3, $4) },
            { replaceBytesLength(in: replaceBytesLength.layer(1), $0, $1, $2, $3, $4) },
            { replaceBytesLength(in: replaceBytesLength.layer(2), $0, $1, $2, $3, $4) },
        ])
    private static func replaceBytesLength(
        in point: GuardedMethod<ReplaceBytesLength>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange, _ bytes: UnsafeRawPointer?, _ count: UInt
    ) {
        let method = "replaceBytesInRange:withBytes:length:"
        var violation = startFailure(r, range, method: method)
        if violation == nil && FoundationRules.platform == .gnustep {
            let length = length(of: r)
            if !range.endFits(in: length) { violation = .dataOverrun(range, length: length, method: method) }
        }
        point.mutation(r, cmd, violation) { $0(r, cmd, range, bytes, count) }
    }
    static let resetBytes: GuardedMethod<IMP.VoidWithRange> = GuardedMethod(
        "resetBytesInRange:", .container,
        layers: [
            { resetBytes(in: resetBytes, $0, $1, $2) }, { resetBytes(in: resetBytes.layer(1), $0, $1, $2) },
            { resetBytes(in: resetBytes.layer(2), $0, $1, $2) },
        ])
    private static func resetBytes(
        in point: GuardedMethod<IMP.VoidWithRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange
    ) {
        let violation =
            FoundationRules.isApple
            ? startFailure(r, range, method: "resetBytesInRange:")
            : rangeFailure(r, range, method: "resetBytesInRange:")
        point.mutation(r, cmd, violation) { $0(r, cmd, range) }
    }

    private static func startFailure(_ r: CSRObject?, _ range: CSRRange, method: String) -> Violation? {
        let length = length(of: r)
        return range.location <= length ? nil : .dataLocation(range, length: length, method: method)
    }
}
