import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `JSONLinesReportStore.load()` found.
public struct ReportStoreLoad: Sendable, Equatable {
    /// One report per signature, in order of first appearance, counted as `ReportCounting` says: the latest line of
    /// each launch holds that launch's count, and the launches' counts are summed.
    public var reports: [CrashReport]
    /// Lines that were skipped (a line torn by a killed process, a corrupt line), each naming its line number.
    public var warnings: [String]

    public init(reports: [CrashReport], warnings: [String]) {
        self.reports = reports
        self.warnings = warnings
    }
}

/// Keeps reports in a JSON Lines file so they survive a restart and can be uploaded at the next launch.
///
/// Each delivery appends one line (JSON, sorted keys, ISO-8601 dates with milliseconds) with a single `write` on a
/// file opened `O_APPEND`. Count updates append a new line for the same signature; `load()` keeps the latest line per
/// signature and launch and sums the launches (`ReportCounting`). When an append would take the file past `maxBytes`,
/// the file is compacted first: one line per signature and launch, newest first (by `lastSeen`), every report that
/// still fits in `maxBytes / 2` (one that does not fit is
/// skipped, older smaller ones are still kept), written to a temporary file in the same folder, synced, and renamed
/// over the original (a crash mid-compaction leaves the old or the new file). The file never grows past `maxBytes`:
/// when compaction fails, the report is not stored.
///
/// One report is bounded by `maxReportBytes`: a larger one first loses its call stack but for the caller's frame;
/// if it is still too large it is refused (`ReportStoreError.reportTooLarge`), and the stored reports are unchanged.
///
/// Several processes can share one file (an app and its extensions in an app-group folder): every append, compaction,
/// load and removal holds an `flock` on a sibling lock file (`.<name>.lock`, never removed), as well as an in-process
/// lock, so nothing one process appends is lost to another's compaction. The lock is held for one operation only,
/// and waited for at most `lockTimeout`.
///
/// Files are created `0600`. The store's path must be a regular file or missing: a symbolic link, a device, a FIFO or
/// a socket there is refused (by `init`, and by every later operation: files are opened `O_NOFOLLOW` and checked).
/// A write that would pass the process's file-size limit (RLIMIT_FSIZE) is not attempted (it would raise SIGXFSZ,
/// which kills the process by default): it fails with `ReportStoreError.fileSizeLimit`. The signal disposition is
/// never changed.
///
/// Write errors never reach the app: they are counted in `writeFailures`, kept in `lastFailure` and logged.
///
/// Typical use: at launch, `load()` the reports of earlier runs, upload them, then `removeAll()`.
public final class JSONLinesReportStore: ReportSink, @unchecked Sendable {
    /// The smallest `maxBytes` accepted.
    public static let minimumMaxBytes = 4096
    /// The largest `maxBytes` accepted (64 MiB): the file is read whole to compact and load it.
    public static let maximumMaxBytes = 64 << 20
    /// The smallest `maxReportBytes` accepted.
    public static let minimumMaxReportBytes = 1024
    /// `maxReportBytes` when none is given: 64 KiB, or `maxBytes / 2` if that is smaller.
    public static let defaultMaxReportBytes = 64 << 10
    /// How long an operation waits for another process sharing the file to release its lock (seconds). A report
    /// that waited longer is not stored (`ReportStoreError.lockTimedOut`): a sink must not hold the app's thread.
    public static let lockTimeout: Double = 2

    public let fileURL: URL
    /// The file never grows past this many bytes.
    public let maxBytes: Int
    /// The largest line one report may take (at most `maxBytes / 2`, so that it fits in a compacted file).
    public let maxReportBytes: Int

    private let path: String
    private let lockPath: String
    private let logger: Logger
    private let lock = Lock()
    private var failures = 0
    private var compactions = 0
    private var failure: ReportStoreError?
    /// The last wait for the file lock timed out (another process holds it): try once, do not wait again.
    private var lockStuck = false

    /// The sibling file every process sharing `fileURL` locks (`.<name>.lock`).
    static func lockFileURL(for fileURL: URL) -> URL {
        fileURL.deletingLastPathComponent().appendingPathComponent("." + fileURL.lastPathComponent + ".lock")
    }

    /// Deletes a store's file and its lock file, for a store no other process uses any more (a sent upload batch).
    /// Never for a shared store: a process waiting on the old lock file would then lock a different file.
    static func removeFiles(of fileURL: URL) {
        try? FileManager.default.removeItem(at: fileURL)
        try? FileManager.default.removeItem(at: lockFileURL(for: fileURL))
    }

    /// - Parameters:
    ///   - fileURL: the store's file (a `file:` URL); keep it in Application Support, which iOS does not purge.
    ///   - maxBytes: the file's size bound, from `minimumMaxBytes` to `maximumMaxBytes`.
    ///   - maxReportBytes: the bound of one report's line, from `minimumMaxReportBytes` to `maxBytes / 2`; nil for
    ///     `defaultMaxReportBytes` (or `maxBytes / 2` if smaller).
    ///   - logger: where the store logs what it could not store.
    /// - Throws: `ReportStoreError` when a bound is out of range, the URL is not a file URL, names a directory, a
    ///   symbolic link, a device or anything else that is not a regular file, or the folder cannot be created or
    ///   written. The folder is created when missing; the file is not.
    public init(
        fileURL: URL, maxBytes: Int = 1 << 20, maxReportBytes: Int? = nil,
        logger: Logger = Logger(label: "CrashShield.ReportStore")
    ) throws {
        guard maxBytes >= Self.minimumMaxBytes else {
            throw ReportStoreError.maxBytesTooSmall(maxBytes, minimum: Self.minimumMaxBytes)
        }
        guard maxBytes <= Self.maximumMaxBytes else {
            throw ReportStoreError.maxBytesTooLarge(maxBytes, maximum: Self.maximumMaxBytes)
        }
        let reportBound = maxReportBytes ?? min(Self.defaultMaxReportBytes, maxBytes / 2)
        guard reportBound >= Self.minimumMaxReportBytes && reportBound <= maxBytes / 2 else {
            throw ReportStoreError.maxReportBytesOutOfRange(
                reportBound, minimum: Self.minimumMaxReportBytes, maximum: maxBytes / 2)
        }
        guard fileURL.isFileURL else { throw ReportStoreError.notAFileURL(fileURL.absoluteString) }
        let path = fileURL.path
        let folder = fileURL.deletingLastPathComponent().path
        if path.hasSuffix("/") { throw ReportStoreError.isDirectory(path: path) }
        if let refusal = Self.refusal(ofItemAt: path) { throw refusal }
        var folderIsDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &folderIsDirectory) {
            guard folderIsDirectory.boolValue else {
                throw ReportStoreError.folderNotWritable(path: folder, reason: "it is a file, not a folder")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw ReportStoreError.folderNotWritable(path: folder, reason: Self.reason(of: error))
            }
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw ReportStoreError.folderNotWritable(path: folder, reason: Self.errnoText(errno))
        }
        if FileManager.default.fileExists(atPath: path), access(path, W_OK) != 0 {
            throw ReportStoreError.fileNotWritable(path: path, reason: Self.errnoText(errno))
        }
        self.fileURL = fileURL
        self.maxBytes = maxBytes
        self.maxReportBytes = reportBound
        self.path = path
        self.lockPath = Self.lockFileURL(for: fileURL).path
        self.logger = logger
        removeStaleTemporaryFiles(in: folder)
    }

    /// How many reports could not be stored (disk full, too large, file replaced by a link, ...).
    public var writeFailures: Int { lock.withLock { failures } }

    /// Why the most recent report that could not be stored was not stored; nil when every report was stored.
    public var lastFailure: ReportStoreError? { lock.withLock { failure } }

    /// How many times this store compacted the file to stay under `maxBytes`.
    public var compactionCount: Int { lock.withLock { compactions } }

    // MARK: - Appending

    public func receive(_ report: CrashReport) {
        do {
            let line = try encodeLine(report)
            try lock.withLock { try withFileLock(LOCK_EX) { try appendLocked(line) } }
        } catch {
            let problem = error as? ReportStoreError
                ?? .ioFailed(path: path, operation: "encode a report for", reason: "\(error)")
            lock.withLock {
                failures += 1
                failure = problem
            }
            logger.error("a crash report was not stored: \(problem)", metadata: [
                "file": .string(path), "signature": .string(report.signature),
            ])
        }
    }

    /// One line, newline included. A report whose line would pass `maxReportBytes` keeps only its caller frame; if
    /// it still does not fit, it is refused.
    private func encodeLine(_ report: CrashReport) throws -> [UInt8] {
        let encoder = ReportCodec.encoder()
        var line = Array(try encoder.encode(report))
        if line.count + 1 > maxReportBytes, report.callStack.count > 1 {
            var trimmed = report
            let keep = report.callerFrameIndex.flatMap { report.callStack.indices.contains($0) ? $0 : nil } ?? 0
            trimmed.callStack = [report.callStack[keep]]
            trimmed.callerFrameIndex = report.callerFrameIndex == nil ? nil : 0
            trimmed.details["callStackTrimmed"] = "kept 1 of \(report.callStack.count) frames to fit the store's maxReportBytes"
            line = Array(try encoder.encode(trimmed))
        }
        line.append(0x0A)
        guard line.count <= maxReportBytes else {
            throw ReportStoreError.reportTooLarge(signature: report.signature, bytes: line.count, maximum: maxReportBytes)
        }
        return line
    }

    /// Appends one line, compacting first when the file would pass `maxBytes`. Both locks held.
    private func appendLocked(_ line: [UInt8]) throws {
        var file = try openForAppend()
        if file.size > 0, file.size + file.prefix.count + line.count > maxBytes {
            close(file.fd)
            try compactLocked()
            file = try openForAppend()
        }
        defer { close(file.fd) }
        try Self.writeAll(file.fd, file.prefix + line, startingAt: file.size, path: path)
    }

    private struct AppendFile {
        var fd: Int32
        var size: Int
        /// "\n" when the file ends in a torn line, so that the next line starts on a line of its own.
        var prefix: [UInt8]
    }

    private func openForAppend() throws -> AppendFile {
        let fd = try Self.openRegularFile(path, O_RDWR | O_APPEND | O_CREAT, operation: "open")
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw ReportStoreError.ioFailed(path: path, operation: "inspect", reason: Self.errnoText(code))
        }
        let size = Int(info.st_size)
        var prefix: [UInt8] = []
        if size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(size - 1)) == 1, last != 0x0A { prefix = [0x0A] }
        }
        return AppendFile(fd: fd, size: size, prefix: prefix)
    }

    /// Runs `body` holding an `flock` (`LOCK_EX` or `LOCK_SH`) on the sibling lock file, which serialises the
    /// processes sharing the store. Closing the descriptor releases the lock (so does the death of its process).
    /// Waits at most `lockTimeout` for another process to release it; after a timeout, tries only once until the
    /// lock is obtained again, so that a stopped process cannot make every report wait. The in-process lock is held.
    private func withFileLock<T>(_ operation: Int32, _ body: () throws -> T) throws -> T {
        let fd = try Self.openRegularFile(lockPath, O_RDWR | O_CREAT, operation: "open the lock file")
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(lockStuck ? 0 : Self.lockTimeout)
        while flock(fd, operation | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                throw ReportStoreError.ioFailed(path: lockPath, operation: "lock", reason: Self.errnoText(code))
            }
            guard Date() < deadline else {
                lockStuck = true
                throw ReportStoreError.lockTimedOut(path: lockPath, seconds: Self.lockTimeout)
            }
            usleep(1000)
        }
        lockStuck = false
        return try body()
    }

    // MARK: - Compaction

    /// Rewrites the file with one line per signature and launch: newest first, every one that still fits in
    /// `maxBytes / 2`.
    /// On failure the original file is untouched. Both locks held.
    private func compactLocked() throws {
        guard let bytes = try Self.readAll(path) else { return }
        let parsed = Self.parse(bytes)
        if parsed.entries.isEmpty {
            guard parsed.hasContent else { return }
            // Nothing readable: keep the bytes for a person to look at rather than deleting them.
            let aside = path + ".unreadable"
            guard rename(path, aside) == 0 else {
                throw ReportStoreError.ioFailed(path: path, operation: "move aside the unreadable file",
                                                reason: Self.errnoText(errno))
            }
            logger.warning("the crash report file had no readable line; moved it aside", metadata: ["file": .string(aside)])
            return
        }
        if parsed.skippedLines > 0 {
            logger.warning("compaction dropped unreadable lines of the crash report file", metadata: [
                "file": .string(path), "lines": .stringConvertible(parsed.skippedLines),
            ])
        }
        // Latest line per signature and launch (it holds that launch's count), ranked by when the report was last
        // seen (then by position in the file).
        var latest: [String: Int] = [:]
        for (index, entry) in parsed.entries.enumerated() { latest[ReportCounting.launchKey(entry.report, source: path)] = index }
        let ranked = latest.values.sorted {
            let a = parsed.entries[$0], b = parsed.entries[$1]
            return a.report.lastSeen != b.report.lastSeen ? a.report.lastSeen > b.report.lastSeen : $0 > $1
        }
        var budget = maxBytes / 2
        var kept: [Int] = []
        for index in ranked {
            // A report that does not fit is skipped: older, smaller ones may still fit.
            let size = parsed.entries[index].line.count + 1
            guard size <= budget else { continue }
            budget -= size
            kept.append(index)
        }
        // Keep first-appearance order so that load() lists reports as they first happened.
        var firstIndex: [String: Int] = [:]
        for (index, entry) in parsed.entries.enumerated() where firstIndex[entry.report.signature] == nil {
            firstIndex[entry.report.signature] = index
        }
        kept.sort { firstIndex[parsed.entries[$0].report.signature]! < firstIndex[parsed.entries[$1].report.signature]! }
        var output: [UInt8] = []
        output.reserveCapacity(maxBytes / 2)
        for index in kept {
            output += parsed.entries[index].line
            output.append(0x0A)
        }
        try replaceFile(with: output)
        compactions += 1
    }

    /// Writes `bytes` to a new temporary file (0600) in the same folder, syncs it, and renames it over the file.
    private func replaceFile(with bytes: [UInt8]) throws {
        let temporary = temporaryPath()
        let create = O_WRONLY | O_CREAT | O_EXCL
        let fd: Int32
        do {
            fd = try Self.openRegularFile(temporary, create, operation: "create")
        } catch {
            // Left by a killed process whose id this one reuses (no live process writes it: the file lock is held).
            guard unlink(temporary) == 0 else { throw error }
            fd = try Self.openRegularFile(temporary, create, operation: "create")
        }
        do {
            defer { close(fd) }
            try Self.writeAll(fd, bytes, startingAt: 0, path: temporary)
            guard fsync(fd) == 0 else {
                throw ReportStoreError.ioFailed(path: temporary, operation: "sync", reason: Self.errnoText(errno))
            }
            guard rename(temporary, path) == 0 else {
                throw ReportStoreError.ioFailed(path: temporary, operation: "rename", reason: Self.errnoText(errno))
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // Make the rename itself durable; failure here is harmless (the old or new file is intact).
        let folder = open(fileURL.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    private var temporaryPrefix: String { "." + fileURL.lastPathComponent + "." }

    private func temporaryPath() -> String {
        fileURL.deletingLastPathComponent().appendingPathComponent("\(temporaryPrefix)\(getpid()).compacting").path
    }

    /// Removes temporary files left by a process killed mid-compaction (older than a minute, so as not to race a
    /// live process compacting the same file).
    private func removeStaleTemporaryFiles(in folder: String) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(".compacting") {
            let full = (folder as NSString).appendingPathComponent(name)
            if let modified = (try? fm.attributesOfItem(atPath: full))?[.modificationDate] as? Date,
               Date().timeIntervalSince(modified) > 60 {
                try? fm.removeItem(atPath: full)
            }
        }
    }

    // MARK: - Loading and removing

    /// The stored reports, one per signature in order of first appearance, counts summed over launches
    /// (`ReportCounting`: the latest line of each launch holds its count).
    ///
    /// A torn last line or a corrupt line is skipped with a warning. A missing or empty file loads as empty.
    /// - Throws: `ReportStoreError.unreadable` when the file is not empty but no line in it is a report (the file is
    ///   left exactly as it is); `.symbolicLink` or `.notARegularFile` when something else took the file's path;
    ///   `.lockTimedOut` when another process held the file's lock too long; `.ioFailed` when it cannot be read.
    public func load() throws -> ReportStoreLoad {
        let bytes = try lock.withLock { try withFileLock(LOCK_SH) { try Self.readAll(path) } } ?? []
        let parsed = Self.parse(bytes)
        if parsed.entries.isEmpty && parsed.hasContent && !parsed.onlyTornLine {
            let reason = parsed.firstError.map { "line 1: \($0)" } ?? "no line is valid JSON"
            throw ReportStoreError.unreadable(path: path, reason: reason)
        }
        var order: [String] = []
        var latest: [String: CrashReport] = [:]
        for entry in parsed.entries {
            let key = ReportCounting.launchKey(entry.report, source: path)
            if latest.updateValue(entry.report, forKey: key) == nil { order.append(key) }
        }
        let reports = ReportCounting.merge(order.compactMap { latest[$0] }, by: \.signature)
        return ReportStoreLoad(reports: reports, warnings: parsed.warnings)
    }

    /// Deletes every stored report (call it after a successful upload). A missing file is not an error; a symbolic
    /// link or anything else that is not a regular file at the path is refused and left alone.
    public func removeAll() throws {
        try lock.withLock {
            try withFileLock(LOCK_EX) {
                if let refusal = Self.refusal(ofItemAt: path) { throw refusal }
                if unlink(path) != 0 && errno != ENOENT {
                    throw ReportStoreError.ioFailed(path: path, operation: "remove", reason: Self.errnoText(errno))
                }
            }
        }
    }

    // MARK: - Parsing

    private struct Parsed {
        struct Entry {
            var report: CrashReport
            var line: ArraySlice<UInt8>
        }
        var entries: [Entry] = []
        var warnings: [String] = []
        var skippedLines = 0
        /// The file has something other than whitespace.
        var hasContent = false
        /// The only non-blank content is an unterminated last line that starts like one of ours: a first write torn
        /// by a killed process, not a foreign or corrupt file.
        var onlyTornLine = false
        var firstError: String?
    }

    private static func parse(_ bytes: [UInt8]) -> Parsed {
        var parsed = Parsed()
        let decoder = ReportCodec.decoder()
        let terminated = bytes.last == 0x0A
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if terminated || bytes.isEmpty { lines.removeLast() }
        var skippedComplete = 0
        var tornStartsLikeJSON = false
        for (index, line) in lines.enumerated() {
            let number = index + 1
            guard line.contains(where: { !isWhitespace($0) }) else { continue }
            parsed.hasContent = true
            do {
                let report = try decoder.decode(CrashReport.self, from: Data(line))
                parsed.entries.append(Parsed.Entry(report: report, line: line))
            } catch {
                parsed.skippedLines += 1
                if parsed.firstError == nil { parsed.firstError = describe(error) }
                if index == lines.count - 1 && !terminated {
                    tornStartsLikeJSON = line.first(where: { !isWhitespace($0) }) == UInt8(ascii: "{")
                    parsed.warnings.append(
                        "line \(number) is incomplete (the process was probably stopped while writing it); skipped")
                } else {
                    skippedComplete += 1
                    parsed.warnings.append("line \(number) is not a valid crash report (\(describe(error))); skipped")
                }
            }
        }
        parsed.onlyTornLine = parsed.entries.isEmpty && skippedComplete == 0 && tornStartsLikeJSON
        return parsed
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "field '\(field)': \(context.debugDescription)"
        default: return "\(error)"
        }
    }

    // MARK: - POSIX helpers

    /// Why the item at `path` cannot be the store's file; nil when it is missing or a regular file. Never follows a
    /// symbolic link.
    private static func refusal(ofItemAt path: String) -> ReportStoreError? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return refusal(path: path, mode: info.st_mode)
    }

    private static func refusal(path: String, mode: mode_t) -> ReportStoreError? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return .symbolicLink(path: path)
        case S_IFDIR: return .isDirectory(path: path)
        case S_IFCHR: return .notARegularFile(path: path, kind: "a character device")
        case S_IFBLK: return .notARegularFile(path: path, kind: "a block device")
        case S_IFIFO: return .notARegularFile(path: path, kind: "a FIFO")
        case S_IFSOCK: return .notARegularFile(path: path, kind: "a socket")
        default: return .notARegularFile(path: path, kind: "not a file")
        }
    }

    /// Opens `path` (created 0600 with `O_CREAT`) without following a symbolic link, and refuses anything but a
    /// regular file before a byte is read or written. `O_NONBLOCK` so that opening a FIFO cannot hang, `O_NOCTTY` so
    /// that a terminal cannot become the controlling one; neither changes how a regular file behaves.
    private static func openRegularFile(_ path: String, _ flags: Int32, operation: String) throws -> Int32 {
        let fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            // ELOOP: a symbolic link; EISDIR: a directory.
            if code != ENOENT, code != EEXIST, let refusal = refusal(ofItemAt: path) { throw refusal }
            throw ReportStoreError.ioFailed(path: path, operation: operation, reason: errnoText(code))
        }
        var info = stat()
        let problem: ReportStoreError?
        if fstat(fd, &info) != 0 {
            problem = .ioFailed(path: path, operation: "inspect", reason: errnoText(errno))
        } else {
            problem = refusal(path: path, mode: info.st_mode)
        }
        if let problem {
            close(fd)
            throw problem
        }
        return fd
    }

    /// The file's bytes; nil when it does not exist.
    private static func readAll(_ path: String) throws -> [UInt8]? {
        let fd: Int32
        let missing = ReportStoreError.ioFailed(path: path, operation: "open", reason: errnoText(ENOENT))
        do {
            fd = try openRegularFile(path, O_RDONLY, operation: "open")
        } catch let error as ReportStoreError where error == missing {
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReportStoreError.ioFailed(path: path, operation: "read", reason: errnoText(errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Writes all of `bytes` to `fd`, whose writes land at `offset` (its size, for a file opened O_APPEND under the
    /// locks). First checks the process's file-size limit: a write past RLIMIT_FSIZE raises SIGXFSZ, whose default
    /// action kills the process; this way nothing is written and the store stays as it was.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], startingAt offset: Int, path: String) throws {
        if let limit = fileSizeLimit(), offset + bytes.count > limit {
            throw ReportStoreError.fileSizeLimit(path: path, bytes: offset + bytes.count, limit: limit)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReportStoreError.ioFailed(path: path, operation: "write", reason: errnoText(errno))
            }
            written += count
        }
    }

    /// The soft RLIMIT_FSIZE in bytes; nil when unlimited (RLIM_INFINITY is UInt64.max on Linux, 2^63-1 on Apple).
    private static func fileSizeLimit() -> Int? {
        var limit = rlimit()
#if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
#else
        let status = getrlimit(RLIMIT_FSIZE, &limit)
#endif
        guard status == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(limit.rlim_cur)
    }

    private static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

    private static func reason(of error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain {
            return errnoText(Int32(underlying.code))
        }
        return error.localizedDescription
    }
}
