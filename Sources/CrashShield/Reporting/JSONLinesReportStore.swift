import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `JSONLinesReportStore.load()` found.
public struct ReportStoreLoad: Sendable, Equatable {
    /// One report per signature (the latest line wins: it has the highest count), in order of first appearance.
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
/// file opened `O_APPEND`, under a lock. Count updates append a new line for the same signature; `load()` keeps the
/// latest line per signature. When an append would take the file past `maxBytes`, the file is compacted first: one
/// line per signature, the most recently seen reports that fit in `maxBytes / 2`, written to a temporary file in the
/// same folder, synced, and renamed over the original (a crash mid-compaction leaves the old or the new file).
///
/// Write errors never reach the app: they are counted in `writeFailures` and logged.
///
/// Typical use: at launch, `load()` the reports of earlier runs, upload them, then `removeAll()`.
public final class JSONLinesReportStore: ReportSink, @unchecked Sendable {
    /// The smallest `maxBytes` accepted.
    public static let minimumMaxBytes = 4096

    public let fileURL: URL
    public let maxBytes: Int

    private let path: String
    private let logger: Logger
    private let lock = Lock()
    private var failures = 0
    private var compactions = 0

    /// - Throws: `ReportStoreError` when `maxBytes` is below 4096, the URL is not a file URL or names a directory,
    ///   or the folder cannot be created or written. The folder is created when missing; the file is not.
    public init(
        fileURL: URL, maxBytes: Int = 1 << 20, logger: Logger = Logger(label: "CrashShield.ReportStore")
    ) throws {
        guard maxBytes >= Self.minimumMaxBytes else {
            throw ReportStoreError.maxBytesTooSmall(maxBytes, minimum: Self.minimumMaxBytes)
        }
        guard fileURL.isFileURL else { throw ReportStoreError.notAFileURL(fileURL.absoluteString) }
        let path = fileURL.path
        let folder = fileURL.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if path.hasSuffix("/") || FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue {
            throw ReportStoreError.isDirectory(path: path)
        }
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
        self.path = path
        self.logger = logger
        removeStaleTemporaryFiles(in: folder)
    }

    /// How many reports could not be written (disk full, file removed from under the store, ...).
    public var writeFailures: Int { lock.withLock { failures } }

    /// How many times the file was compacted to stay under `maxBytes`.
    public var compactionCount: Int { lock.withLock { compactions } }

    // MARK: - Appending

    public func receive(_ report: CrashReport) {
        let line: [UInt8]
        do {
            line = try encodeLine(report)
        } catch {
            lock.withLock { failures += 1 }
            logger.error("could not encode a crash report", metadata: [
                "signature": .string(report.signature), "error": .string("\(error)"),
            ])
            return
        }
        let problems = lock.withLock { appendLocked(line) }
        for problem in problems {
            logger.error("\(problem)", metadata: ["file": .string(path), "signature": .string(report.signature)])
        }
    }

    /// One line, newline included; a report whose line alone would not fit in half the cap keeps only its caller frame.
    private func encodeLine(_ report: CrashReport) throws -> [UInt8] {
        let encoder = Self.makeEncoder()
        var line = Array(try encoder.encode(report))
        if line.count + 1 > maxBytes / 2, report.callStack.count > 1 {
            var trimmed = report
            let keep = report.callerFrameIndex.flatMap { report.callStack.indices.contains($0) ? $0 : nil } ?? 0
            trimmed.callStack = [report.callStack[keep]]
            trimmed.callerFrameIndex = report.callerFrameIndex == nil ? nil : 0
            trimmed.details["callStackTrimmed"] = "kept 1 of \(report.callStack.count) frames to fit the store's maxBytes"
            line = Array(try encoder.encode(trimmed))
        }
        line.append(0x0A)
        return line
    }

    /// Appends one line; returns what went wrong, to be logged outside the lock.
    private func appendLocked(_ line: [UInt8]) -> [String] {
        var problems: [String] = []
        var opened = openForAppend()
        if case .success(let file) = opened, file.size > 0, file.size + file.prefix.count + line.count > maxBytes {
            close(file.fd)
            if let problem = compactLocked() {
                failures += 1
                problems.append("could not compact the crash report file (\(problem)); appending anyway")
            }
            opened = openForAppend()
        }
        switch opened {
        case .failure(let text):
            failures += 1
            problems.append("could not open the crash report file: \(text); a report was not stored")
        case .success(let file):
            defer { close(file.fd) }
            if let code = Self.writeAll(file.fd, file.prefix + line) {
                failures += 1
                problems.append("could not write to the crash report file: \(Self.errnoText(code)); a report was not stored")
            }
        }
        return problems
    }

    private struct AppendFile {
        var fd: Int32
        var size: Int
        /// "\n" when the file ends in a torn line, so that the next line starts on a line of its own.
        var prefix: [UInt8]
    }

    private enum Opened {
        case success(AppendFile)
        case failure(String)
    }

    private func openForAppend() -> Opened {
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return .failure(Self.errnoText(errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            return .failure(Self.errnoText(code))
        }
        let size = Int(info.st_size)
        var prefix: [UInt8] = []
        if size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(size - 1)) == 1, last != 0x0A { prefix = [0x0A] }
        }
        return .success(AppendFile(fd: fd, size: size, prefix: prefix))
    }

    // MARK: - Compaction

    /// Rewrites the file with one line per signature, the most recently seen that fit in `maxBytes / 2`.
    /// Returns a description of the failure, if any; on failure the original file is untouched.
    private func compactLocked() -> String? {
        let bytes: [UInt8]
        switch Self.readAll(path) {
        case .missing: return nil
        case .failure(let code): return "reading it failed: \(Self.errnoText(code))"
        case .success(let data): bytes = data
        }
        let parsed = Self.parse(bytes)
        if parsed.entries.isEmpty {
            guard parsed.hasContent else { return nil }
            // Nothing readable: keep the bytes for a person to look at rather than deleting them.
            let aside = path + ".unreadable"
            guard rename(path, aside) == 0 else { return "moving the unreadable file aside failed: \(Self.errnoText(errno))" }
            logger.warning("the crash report file had no readable line; moved it aside", metadata: ["file": .string(aside)])
            return nil
        }
        if parsed.skippedLines > 0 {
            logger.warning("compaction dropped unreadable lines of the crash report file", metadata: [
                "file": .string(path), "lines": .stringConvertible(parsed.skippedLines),
            ])
        }
        // Latest line per signature, ranked by when the report was last seen (then by position in the file).
        var latest: [String: Int] = [:]
        for (index, entry) in parsed.entries.enumerated() { latest[entry.report.signature] = index }
        let ranked = latest.values.sorted {
            let a = parsed.entries[$0], b = parsed.entries[$1]
            return a.report.lastSeen != b.report.lastSeen ? a.report.lastSeen > b.report.lastSeen : $0 > $1
        }
        var budget = maxBytes / 2
        var kept: [Int] = []
        for index in ranked {
            let size = parsed.entries[index].line.count + 1
            guard size <= budget else { break }
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
        if let problem = replaceFile(with: output) { return problem }
        compactions += 1
        return nil
    }

    /// Writes `bytes` to a temporary file in the same folder, syncs it, and renames it over the file.
    private func replaceFile(with bytes: [UInt8]) -> String? {
        let temporary = temporaryPath()
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "creating '\(temporary)' failed: \(Self.errnoText(errno))" }
        if let code = Self.writeAll(fd, bytes) {
            close(fd)
            unlink(temporary)
            return "writing '\(temporary)' failed: \(Self.errnoText(code))"
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            unlink(temporary)
            return "syncing '\(temporary)' failed: \(Self.errnoText(code))"
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            return "renaming '\(temporary)' failed: \(Self.errnoText(code))"
        }
        // Make the rename itself durable; failure here is harmless (the old or new file is intact).
        let folder = open(fileURL.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
        return nil
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

    /// The stored reports, one per signature (latest line wins), in order of first appearance.
    ///
    /// A torn last line or a corrupt line is skipped with a warning. A missing or empty file loads as empty.
    /// - Throws: `ReportStoreError.unreadable` when the file is not empty but no line in it is a report (the file is
    ///   left exactly as it is); `ReportStoreError.ioFailed` when it cannot be read.
    public func load() throws -> ReportStoreLoad {
        let bytes: [UInt8] = try lock.withLock {
            switch Self.readAll(path) {
            case .missing: return []
            case .failure(let code):
                throw ReportStoreError.ioFailed(path: path, operation: "read", reason: Self.errnoText(code))
            case .success(let data): return data
            }
        }
        let parsed = Self.parse(bytes)
        if parsed.entries.isEmpty && parsed.hasContent && !parsed.onlyTornLine {
            let reason = parsed.firstError.map { "line 1: \($0)" } ?? "no line is valid JSON"
            throw ReportStoreError.unreadable(path: path, reason: reason)
        }
        var order: [String] = []
        var bySignature: [String: CrashReport] = [:]
        for entry in parsed.entries {
            if bySignature.updateValue(entry.report, forKey: entry.report.signature) == nil {
                order.append(entry.report.signature)
            }
        }
        return ReportStoreLoad(reports: order.compactMap { bySignature[$0] }, warnings: parsed.warnings)
    }

    /// Deletes every stored report (call it after a successful upload). A missing file is not an error.
    public func removeAll() throws {
        try lock.withLock {
            if unlink(path) != 0 && errno != ENOENT {
                throw ReportStoreError.ioFailed(path: path, operation: "remove", reason: Self.errnoText(errno))
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
        let decoder = makeDecoder()
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

    // MARK: - Coding

    /// ISO 8601 with milliseconds ("2026-11-22T16:05:20.123Z"). `ISO8601DateFormatter` rather than
    /// `Date.ISO8601FormatStyle`, which needs iOS 15 / macOS 12; a formatter is made per coder, never shared.
    private static func dateFormatter(fractionalSeconds: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractionalSeconds ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }

    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let formatter = dateFormatter(fractionalSeconds: true)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        let withFraction = dateFormatter(fractionalSeconds: true), plain = dateFormatter(fractionalSeconds: false)
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = withFraction.date(from: text) ?? plain.date(from: text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO-8601 date")
        }
        return decoder
    }

    // MARK: - POSIX helpers

    private enum ReadResult {
        case missing
        case failure(Int32)
        case success([UInt8])
    }

    private static func readAll(_ path: String) -> ReadResult {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .missing : .failure(errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(errno)
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[0..<count]
        }
    }

    /// Writes everything (one `write` unless the kernel writes less); returns errno on failure.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += count
        }
        return nil
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
