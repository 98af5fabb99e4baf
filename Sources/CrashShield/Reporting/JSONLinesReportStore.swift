import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// What `load()` found.
    public struct Contents: Sendable, Equatable {
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

    let path: String
    let lockPath: String
    let logger: Logger
    let lock = Lock()
    var failures = 0
    var compactions = 0
    var failure: ReportStoreError?
    /// The last wait for the file lock timed out (another process holds it): try once, do not wait again.
    var lockStuck = false
    /// Whether the store could open its file, and what it keeps until it can (`openFailure`).
    var opening = Opening()

    /// The state of a store that could not open its file yet (`openFailure`).
    struct Opening {
        /// Why the last attempt failed; nil once the file opened.
        var failure: ReportStoreError?
        /// No new attempt before this.
        var nextAttempt = Date.distantPast
        var delay: TimeInterval = 0
        var attempts = 0
        /// Lines waiting for the file, by launch key, in order of first appearance, and their bytes.
        var pending: [(key: String, line: [UInt8])] = []
        var pendingBytes = 0

        /// The first retry after 1 s, then twice as long each time, at most 60 s.
        mutating func scheduleRetry(after now: Date) {
            attempts += 1
            delay = min(60, max(1, delay * 2))
            nextAttempt = now.addingTimeInterval(delay)
        }

        /// Keeps `line` (replacing an older line of the same key); false when it does not fit in `limit` bytes.
        mutating func keep(_ line: [UInt8], key: String, limit: Int) -> Bool {
            if let index = pending.firstIndex(where: { $0.key == key }) {
                pendingBytes -= pending[index].line.count
                pending.remove(at: index)
            }
            guard pendingBytes + line.count <= limit else { return false }
            pending.append((key, line))
            pendingBytes += line.count
            return true
        }
    }

    /// The sibling file every process sharing `fileURL` locks (`.<name>.lock`).
    static func lockFileURL(for fileURL: URL) -> URL {
        fileURL.deletingLastPathComponent().appendingPathComponent("." + fileURL.lastPathComponent + ".lock")
    }

    /// Deletes a store's file and its lock file, for a store no other process uses any more (a sent upload batch).
    /// Never for a shared store: a process waiting on the old lock file would then lock a different file.
    package static func removeFiles(of fileURL: URL) {
        try? FileManager.default.removeItem(at: fileURL)
        try? FileManager.default.removeItem(at: lockFileURL(for: fileURL))
    }

    /// - Parameters:
    ///   - fileURL: the store's file (a `file:` URL); keep it in Application Support, which iOS does not purge.
    ///   - maxBytes: the file's size bound, from `minimumMaxBytes` to `maximumMaxBytes`.
    ///   - maxReportBytes: the bound of one report's line, from `minimumMaxReportBytes` to `maxBytes / 2`; nil for
    ///     `defaultMaxReportBytes` (or `maxBytes / 2` if smaller).
    ///   - logger: where the store logs what it could not store.
    /// - Throws: `ReportStoreError` for a bad argument only: a bound out of range, a URL that is not a file URL or
    ///   that ends in `/`. What the disk holds does not throw: when the folder cannot be created or written, or the
    ///   path holds a directory, a symbolic link, a device or anything else that is not a regular file, the store is
    ///   made closed (`openFailure` says why; `CrashShield.start` logs it and lists it in
    ///   `CrashShield.sinkFailures`) and tries again on later reports. The folder is created when missing; the file
    ///   is not.
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
        if path.hasSuffix("/") || fileURL.absoluteString.hasSuffix("/") {
            throw ReportStoreError.isDirectory(path: path)
        }
        self.fileURL = fileURL
        self.maxBytes = maxBytes
        self.maxReportBytes = reportBound
        self.path = path
        self.lockPath = Self.lockFileURL(for: fileURL).path
        self.logger = logger
        opening.failure = Self.openProblem(path)
        if opening.failure == nil {
            removeStaleTemporaryFiles(in: fileURL.deletingLastPathComponent().path)
        } else {
            opening.scheduleRetry(after: Date())
        }
    }

    /// Makes the folder when missing and checks that the file can be written there; why not, or nil.
    static func openProblem(_ path: String) -> ReportStoreError? {
        let folder = (path as NSString).deletingLastPathComponent
        if let refusal = ReportStoreFile.refusal(ofItemAt: path) { return refusal }
        var folderIsDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &folderIsDirectory) {
            guard folderIsDirectory.boolValue else {
                return .folderNotWritable(path: folder, reason: "it is a file, not a folder")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                return .folderNotWritable(path: folder, reason: ReportStoreFile.reason(of: error))
            }
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            return .folderNotWritable(path: folder, reason: ReportStoreFile.errnoText(errno))
        }
        if FileManager.default.fileExists(atPath: path), access(path, W_OK) != 0 {
            return .fileNotWritable(path: path, reason: ReportStoreFile.errnoText(errno))
        }
        return nil
    }

    /// Why the store cannot open its file now (the folder cannot be made or written, something that is not a regular
    /// file holds its path); nil once it could. While it cannot, the reports it is given are kept in memory (the
    /// latest per signature and launch, at most `maxBytes / 2` of them; any more count in `writeFailures`), and each
    /// later report tries to open it again, at most once per `retryDelay` (doubling from 1 s to 60 s); when it
    /// opens, the kept reports are written first.
    public var openFailure: ReportStoreError? { lock.withLock { opening.failure } }

    /// `openFailure`.
    public var sinkFailure: (any Error)? { openFailure }

    /// How many reports could not be stored (disk full, too large, file replaced by a link, ...).
    public var writeFailures: Int { lock.withLock { failures } }

    /// Why the most recent report that could not be stored was not stored; nil when every report was stored.
    public var lastFailure: ReportStoreError? { lock.withLock { failure } }

    /// How many times this store compacted the file to stay under `maxBytes`.
    public var compactionCount: Int { lock.withLock { compactions } }

    // MARK: - Appending

    public func receive(_ report: CrashReport) {
        var notice: String?
        defer { if let notice { logger.notice("\(notice)", metadata: ["file": .string(path)]) } }
        do {
            let line = try encodeLine(report)
            try lock.withLock {
                guard openedLocked(notice: &notice) else {
                    let key = ReportCounting.launchKey(report, source: path)
                    guard opening.keep(line, key: key, limit: maxBytes / 2) else { throw opening.failure! }
                    return
                }
                try withFileLock(LOCK_EX) { try appendLocked(line) }
            }
        } catch {
            let problem =
                error as? ReportStoreError
                ?? .ioFailed(path: path, operation: "encode a report for", reason: "\(error)")
            lock.withLock {
                failures += 1
                failure = problem
            }
            logger.error(
                "a crash report was not stored: \(problem)",
                metadata: [
                    "file": .string(path), "signature": .string(report.signature),
                ])
        }
    }

    /// Whether the file can be written: true once it opened; while it could not, tries again when the retry delay has
    /// passed and, when it opens, writes the kept reports first and sets `notice` (logged once the lock is released: a
    /// log handler is foreign code). The in-process lock is held.
    private func openedLocked(notice: inout String?) -> Bool {
        guard let failure = opening.failure else { return true }
        let now = Date()
        guard now >= opening.nextAttempt else { return false }
        if let problem = Self.openProblem(path) {
            opening.failure = problem
            opening.scheduleRetry(after: now)
            return false
        }
        let kept = opening.pending
        notice =
            "the report store opened its file after \(opening.attempts) failed attempt\(opening.attempts == 1 ? "" : "s") "
            + "(the last: \(failure)); writing the \(kept.count) report\(kept.count == 1 ? "" : "s") kept meanwhile"
        opening = Opening()
        removeStaleTemporaryFiles(in: fileURL.deletingLastPathComponent().path)
        for entry in kept {
            do {
                try withFileLock(LOCK_EX) { try appendLocked(entry.line) }
            } catch {
                failures += 1
                self.failure =
                    error as? ReportStoreError ?? .ioFailed(path: path, operation: "write", reason: "\(error)")
            }
        }
        return true
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
            trimmed.details["callStackTrimmed"] =
                "kept 1 of \(report.callStack.count) frames to fit the store's maxReportBytes"
            line = Array(try encoder.encode(trimmed))
        }
        line.append(0x0A)
        guard line.count <= maxReportBytes else {
            throw ReportStoreError.reportTooLarge(
                signature: report.signature, bytes: line.count, maximum: maxReportBytes)
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
        try ReportStoreFile.writeAll(file.fd, file.prefix + line, startingAt: file.size, path: path)
    }

    /// Runs `body` holding an `flock` (`LOCK_EX` or `LOCK_SH`) on the sibling lock file, which serialises the
    /// processes sharing the store. Closing the descriptor releases the lock (so does the death of its process).
    /// Waits at most `lockTimeout` for another process to release it; after a timeout, tries only once until the
    /// lock is obtained again, so that a stopped process cannot make every report wait. The in-process lock is held.
    private func withFileLock<T>(_ operation: Int32, _ body: () throws -> T) throws -> T {
        let fd = try ReportStoreFile.openRegularFile(lockPath, O_RDWR | O_CREAT, operation: "open the lock file")
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(lockStuck ? 0 : Self.lockTimeout)
        while flock(fd, operation | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                throw ReportStoreError.ioFailed(
                    path: lockPath, operation: "lock", reason: ReportStoreFile.errnoText(code))
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

    // MARK: - Loading and removing

    /// The stored reports, one per signature in order of first appearance, counts summed over launches
    /// (`ReportCounting`: the latest line of each launch holds its count).
    ///
    /// A torn last line or a corrupt line is skipped with a warning. A missing or empty file loads as empty.
    /// - Throws: `ReportStoreError.unreadable` when the file is not empty but no line in it is a report (the file is
    ///   left exactly as it is); `.symbolicLink` or `.notARegularFile` when something else took the file's path;
    ///   `.lockTimedOut` when another process held the file's lock too long; `.ioFailed` when it cannot be read.
    public func load() throws -> Contents {
        let bytes = try lock.withLock { try withFileLock(LOCK_SH) { try ReportStoreFile.readAll(path) } } ?? []
        let parsed = ReportStoreLines(parsing: bytes)
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
        return Contents(reports: reports, warnings: parsed.warnings)
    }

    /// Deletes every stored report (call it after a successful upload). A missing file is not an error; a symbolic
    /// link or anything else that is not a regular file at the path is refused and left alone.
    public func removeAll() throws {
        try lock.withLock {
            try withFileLock(LOCK_EX) {
                if let refusal = ReportStoreFile.refusal(ofItemAt: path) { throw refusal }
                if unlink(path) != 0 && errno != ENOENT {
                    throw ReportStoreError.ioFailed(
                        path: path, operation: "remove", reason: ReportStoreFile.errnoText(errno))
                }
            }
        }
    }
}
