#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import CrashShieldRuntime.Internal

/// NSFileHandle's legacy methods, which have no error return and raise NSFileHandleOperationException when the system
/// call under them fails: `writeData:` on a full disk (`*** -[NSConcreteFileHandle writeData:]: No space left on
/// device` on Apple, raised in that method itself by `_NSFileHandleRaiseOperationException`: public crash logs in
/// Docs/AppleRuntime.md §17), a read, seek, truncation or close on a closed or wrong descriptor. GNUstep 1.28
/// (GSFileHandle.m) raises the same name: `unable to write to descriptor - <NSError>`, `unable to read from
/// descriptor`, `failed to move to offset in file`, `attempt to close closed file`, `read/write not permitted`.
///
/// No check made before the call can know that the disk is full or a descriptor was closed behind the handle's back,
/// so each hook runs the original under `@try` (the C shapes of CSRException.h, no Swift frame between the `@try` and
/// the original, as `KeyedUnarchiverHooks`) and judges only what it raised: NSFileHandleOperationException ends here;
/// any other exception (a string handed to `writeData:`, an app subclass's own) goes on unchanged. A hooked call on
/// the same handle inside another (GNUstep's `truncateFileAtOffset:` sends `seekToFileOffset:`) is Foundation's own
/// and goes straight to its original, so the app's call is judged, once.
///
/// Recovery: what a call that did nothing answers: nothing for the void methods, empty data for the reads, 0 for the
/// offsets. What the system call did before it failed stays done (a write that failed halfway leaves the bytes before
/// it in the file, as without CrashShield; a read that failed halfway has consumed what it read). The hint names the
/// error-returning replacements (iOS 13, macOS 10.15), which answer NO and an NSError instead of raising.
enum FileHandleHooks {
    typealias Write = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias Seek = @convention(c) (CSRObject?, CSRSelector?, UInt64) -> Void
    typealias Offset = @convention(c) (CSRObject?, CSRSelector?) -> UInt64
    typealias ReadLength = @convention(c) (CSRObject?, CSRSelector?, UInt) -> CSRObject?
    typealias Read = @convention(c) (CSRObject?, CSRSelector?) -> CSRObject?
    typealias Operation = @convention(c) (CSRObject?, CSRSelector?) -> Void

    static let operationException = "NSFileHandleOperationException"

    static func install(in context: GuardContext) throws {
        guard let handles = ClassFamily("NSFileHandle") else { return }
        try context.install(
            [
                writeData, seekToEndOfFile, offsetInFile, seekToFileOffset, truncateFileAtOffset, readDataOfLength,
                readDataToEndOfFile, availableData, synchronizeFile, closeFile,
            ] as [AnyHookPoint], onOwnersIn: handles)
    }

    static let writeData: GuardedMethod<Write> = GuardedMethod("writeData:", .container) { r, cmd, data in
        guard let original = writeData.original(for: r) else { return }
        guard var call = Call(.writeData, r, cmd) else { return original(r, cmd, data) }
        var ended = false
        withUnsafeMutablePointer(to: &call) { csr_try_void_with_object(original, r, cmd, data, judge, $0, &ended) }
        call.end()
    }

    static let seekToEndOfFile: GuardedMethod<Offset> = GuardedMethod("seekToEndOfFile", .container) { r, cmd in
        offset(seekToEndOfFile, .seekToEndOfFile, r, cmd)
    }

    static let offsetInFile: GuardedMethod<Offset> = GuardedMethod("offsetInFile", .container) { r, cmd in
        offset(offsetInFile, .offsetInFile, r, cmd)
    }

    static let seekToFileOffset: GuardedMethod<Seek> = GuardedMethod("seekToFileOffset:", .container) { r, cmd, at in
        seek(seekToFileOffset, .seekToFileOffset, r, cmd, at)
    }

    static let truncateFileAtOffset: GuardedMethod<Seek> = GuardedMethod("truncateFileAtOffset:", .container) {
        r, cmd, at in
        seek(truncateFileAtOffset, .truncateFileAtOffset, r, cmd, at)
    }

    /// Recovery: empty data.
    static let readDataOfLength: GuardedMethod<ReadLength> = GuardedMethod("readDataOfLength:", .container) {
        r, cmd, length in
        guard let original = readDataOfLength.original(for: r) else { return nil }
        guard var call = Call(.readDataOfLength, r, cmd) else { return original(r, cmd, length) }
        var ended = false
        let data = withUnsafeMutablePointer(to: &call) {
            csr_try_object_with_word(original, r, cmd, length, judge, $0, &ended)
        }
        call.end()
        return ended ? emptyData() : data
    }

    static let readDataToEndOfFile: GuardedMethod<Read> = GuardedMethod("readDataToEndOfFile", .container) { r, cmd in
        read(readDataToEndOfFile, .readDataToEndOfFile, r, cmd)
    }

    static let availableData: GuardedMethod<Read> = GuardedMethod("availableData", .container) { r, cmd in
        read(availableData, .availableData, r, cmd)
    }

    /// GNUstep's never raises (it calls sync()); Apple's raises when fsync fails.
    static let synchronizeFile: GuardedMethod<Operation> = GuardedMethod("synchronizeFile", .container) { r, cmd in
        operation(synchronizeFile, .synchronizeFile, r, cmd)
    }

    static let closeFile: GuardedMethod<Operation> = GuardedMethod("closeFile", .container) { r, cmd in
        operation(closeFile, .closeFile, r, cmd)
    }

    // MARK: The shapes

    private static func offset(
        _ point: GuardedMethod<Offset>, _ method: Method, _ r: CSRObject?, _ cmd: CSRSelector?
    )
        -> UInt64
    {
        guard let original = point.original(for: r) else { return 0 }
        guard var call = Call(method, r, cmd) else { return original(r, cmd) }
        var ended = false
        let offset = withUnsafeMutablePointer(to: &call) { csr_try_word(original, r, cmd, judge, $0, &ended) }
        call.end()
        return offset
    }

    private static func seek(
        _ point: GuardedMethod<Seek>, _ method: Method, _ r: CSRObject?, _ cmd: CSRSelector?, _ offset: UInt64
    ) {
        guard let original = point.original(for: r) else { return }
        guard var call = Call(method, r, cmd) else { return original(r, cmd, offset) }
        var ended = false
        withUnsafeMutablePointer(to: &call) { csr_try_void_with_word(original, r, cmd, offset, judge, $0, &ended) }
        call.end()
    }

    private static func read(
        _ point: GuardedMethod<Read>, _ method: Method, _ r: CSRObject?, _ cmd: CSRSelector?
    )
        -> CSRObject?
    {
        guard let original = point.original(for: r) else { return nil }
        guard var call = Call(method, r, cmd) else { return original(r, cmd) }
        var ended = false
        let data = withUnsafeMutablePointer(to: &call) { csr_try_object(original, r, cmd, judge, $0, &ended) }
        call.end()
        return ended ? emptyData() : data
    }

    private static func operation(
        _ point: GuardedMethod<Operation>, _ method: Method, _ r: CSRObject?, _ cmd: CSRSelector?
    ) {
        guard let original = point.original(for: r) else { return }
        guard var call = Call(method, r, cmd) else { return original(r, cmd) }
        var ended = false
        withUnsafeMutablePointer(to: &call) { csr_try_void(original, r, cmd, judge, $0, &ended) }
        call.end()
    }

    // MARK: The judgement

    /// The hooked methods, so that a call's record holds no reference (an exception raised on unwinds its frame).
    enum Method: Int {
        case writeData, seekToEndOfFile, offsetInFile, seekToFileOffset, truncateFileAtOffset, readDataOfLength
        case readDataToEndOfFile, availableData, synchronizeFile, closeFile

        var point: AnyHookPoint {
            switch self {
            case .writeData: FileHandleHooks.writeData
            case .seekToEndOfFile: FileHandleHooks.seekToEndOfFile
            case .offsetInFile: FileHandleHooks.offsetInFile
            case .seekToFileOffset: FileHandleHooks.seekToFileOffset
            case .truncateFileAtOffset: FileHandleHooks.truncateFileAtOffset
            case .readDataOfLength: FileHandleHooks.readDataOfLength
            case .readDataToEndOfFile: FileHandleHooks.readDataToEndOfFile
            case .availableData: FileHandleHooks.availableData
            case .synchronizeFile: FileHandleHooks.synchronizeFile
            case .closeFile: FileHandleHooks.closeFile
            }
        }

        /// The error-returning replacement (Objective-C, Swift).
        var hint: String {
            switch self {
            case .writeData: FileHandleHooks.hint("writeData:error:", "write(contentsOf:)")
            case .seekToEndOfFile: FileHandleHooks.hint("seekToEndReturningOffset:error:", "seekToEnd()")
            case .offsetInFile: FileHandleHooks.hint("getOffset:error:", "offset()")
            case .seekToFileOffset: FileHandleHooks.hint("seekToOffset:error:", "seek(toOffset:)")
            case .truncateFileAtOffset: FileHandleHooks.hint("truncateAtOffset:error:", "truncate(atOffset:)")
            // availableData has no error-returning form of its own: the bounded read.
            case .readDataOfLength, .availableData:
                FileHandleHooks.hint("readDataUpToLength:error:", "read(upToCount:)")
            case .readDataToEndOfFile: FileHandleHooks.hint("readDataToEndOfFileAndReturnError:", "readToEnd()")
            case .synchronizeFile: FileHandleHooks.hint("synchronizeAndReturnError:", "synchronize()")
            case .closeFile: FileHandleHooks.hint("closeAndReturnError:", "close()")
            }
        }
    }

    /// The handle whose hooked call is running on this thread (a pthread key's value, no allocation): a hooked call
    /// on the same handle inside it is Foundation's own (GNUstep's `truncateFileAtOffset:` ends in a tail call of
    /// `seekToFileOffset:`, so no Foundation frame shows it) and goes straight to its original, so the app's call
    /// is judged, once.
    private static let running: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// One call, for the decision taken while its exception is caught: plain words only.
    private struct Call {
        let receiver: CSRObject?
        let cmd: CSRSelector?
        let method: Method
        /// The handle running before this call on this thread, restored when it ends.
        let outer: UnsafeMutableRawPointer?
        var ended = false

        /// Nil when the same handle's hooked call is already running on this thread.
        init?(_ method: Method, _ receiver: CSRObject?, _ cmd: CSRSelector?) {
            let outer = pthread_getspecific(FileHandleHooks.running)
            if outer == receiver { return nil }
            self.receiver = receiver
            self.cmd = cmd
            self.method = method
            self.outer = outer
            pthread_setspecific(FileHandleHooks.running, receiver)
        }

        /// The original has returned or raised: the outer handle runs again.
        mutating func end() {
            guard !ended else { return }
            ended = true
            pthread_setspecific(FileHandleHooks.running, outer)
        }
    }

    /// Whether the exception the original raised ends here: Foundation's NSFileHandleOperationException, recovered by
    /// the incident path.
    private static let judge: CSRCaught = { exception, context in
        let call = context!.assumingMemoryBound(to: Call.self)
        call.pointee.end()
        guard let (name, reason) = ObjCException.describe(exception), name == operationException else { return false }
        let incident = Incident(
            .container, receiver: call.pointee.receiver, selector: call.pointee.cmd,
            .caught(name, reason, hint: call.pointee.method.hint), point: call.pointee.method.point)
        return IncidentPath.handle(incident) == .recover
    }

    /// The hint: the error-returning replacement (Objective-C, Swift).
    static func hint(_ objectiveC: String, _ swift: String) -> String {
        "the disk may be full or the descriptor closed: use \(objectiveC) (Swift: \(swift), iOS 13), which answers "
            + "NO and an NSError instead of raising"
    }

    private static let dataClass = ObjCClass(named: "NSData")
    private static let dataSelector = ObjCSelector("data")

    /// `[NSData data]` (autoreleased, as the original's answer).
    private static func emptyData() -> CSRObject? {
        Messaging.sendObject(dataClass?.pointer, dataSelector.pointer)
    }
}
