@_spi(CrashShieldTools) import CrashShield
@_spi(CrashShieldTools) import CrashShieldUpload
import CrashShieldRuntime
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A line of a report file that is not a report.
public struct BadLine: Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var number: Int
    /// An unterminated last line: a process stopped while writing it.
    public var isTorn: Bool
    public var problem: String
    /// "line" in a JSON Lines file; "report" (the index in `reports`, 1-based) in an HTTP body.
    public var unit = "line"

    public var description: String { "\(file): \(unit) \(number): \(problem)" }
}

/// A report file that cannot be read at all (missing, a folder, no permission).
public struct ReportFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot read '\(path)': \(reason)" }
}

/// What one read of a report file found.
public struct ReportChunk {
    public var reports: [(line: Int, report: CrashReport)] = []
    public var badLines: [BadLine] = []
    /// The file was replaced or truncated since the last read (the store compacts by renaming a new file over the
    /// old one; `removeAll()` deletes it): this chunk reads it again from its first line.
    public var restarted = false
}

/// Reads a JSON Lines report file (as `JSONLinesReportStore` writes it), also while it grows: each `read` returns
/// the lines appended since the last one. A file holding one HTTP upload body (`{"schemaVersion": 1, "reports":
/// [...]}`, as `HTTPUploadSink` sends it, gzip-compressed or not) is read whole: its reports, one bad entry each
/// report that does not decode.
public final class ReportFileReader {
    public let path: String
    private var offset = 0
    private var fileID: (device: UInt64, inode: UInt64)?
    /// Bytes after the last newline: a line still being written, or torn.
    private var partial: [UInt8] = []
    private var lineNumber = 0
    private let decoder = CrashReport.makeJSONDecoder()

    public init(path: String) {
        self.path = path
    }

    /// The complete lines appended since the last call. With `final`, an unterminated last line is read too: a
    /// report when it parses, otherwise a torn line. Without it (following a file), that line waits for its newline.
    public func read(final: Bool) throws -> ReportChunk {
        var chunk = ReportChunk()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            // A followed file that disappears (removeAll) starts again when it is recreated.
            if code == ENOENT && fileID != nil { reset(); return chunk }
            throw ReportFileError(path: path, reason: String(cString: strerror(code)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ReportFileError(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw ReportFileError(path: path, reason: "it is a folder") }
        let id = (UInt64(info.st_dev), UInt64(info.st_ino))
        if let known = fileID, known != id || Int(info.st_size) < offset {
            reset()
            chunk.restarted = true
        }
        fileID = id
        let bytes = try readToEnd(fd, from: offset)
        if offset == 0 && partial.isEmpty {
            switch Self.body(bytes, decoder: decoder) {
            case .notABody: break
            case .body(let entries):
                offset = bytes.count
                for (index, entry) in entries.enumerated() {
                    switch entry.result {
                    case .success(let report): chunk.reports.append((index + 1, report))
                    case .failure(let error):
                        chunk.badLines.append(
                            BadLine(
                                file: path, number: index + 1, isTorn: false,
                                problem: "not a valid crash report (\(Self.describe(error)))", unit: "report"))
                    }
                }
                return chunk
            case .bad(let problem):
                offset = bytes.count
                chunk.badLines.append(BadLine(file: path, number: 1, isTorn: false, problem: problem))
                return chunk
            }
        }
        offset += bytes.count
        var start = partial.count
        partial += bytes
        var lineStart = 0
        while let newline = partial[start...].firstIndex(of: 0x0A) {
            parse(partial[lineStart..<newline], torn: false, into: &chunk)
            lineStart = newline + 1
            start = lineStart
        }
        partial.removeFirst(lineStart)
        if final && !partial.isEmpty {
            parse(partial[...], torn: true, into: &chunk)
            partial = []
        }
        return chunk
    }

    // MARK: HTTP bodies

    private enum Body {
        case notABody
        case body([Entry])
        case bad(String)
    }

    private struct Envelope: Decodable {
        var reports: [Entry]
    }

    /// One element of `reports`: a report, or why it is none (the other elements still count).
    private struct Entry: Decodable {
        var result: Result<CrashReport, Error>
        init(from decoder: Decoder) throws {
            do { result = .success(try CrashReport(from: decoder)) } catch { result = .failure(error) }
        }
    }

    /// Bodies decompress to at most this (the sink's batches are far smaller).
    static let maxBodyBytes = 512 * 1024 * 1024

    private static func body(_ bytes: [UInt8], decoder: JSONDecoder) -> Body {
        var text = bytes
        if bytes.starts(with: [0x1F, 0x8B]) {
            guard let inflated = Gzip.decompress(bytes, limit: maxBodyBytes)
            else { return .bad("gzip data that does not decompress (truncated or corrupt)") }
            text = inflated
            guard case .body(let entries) = body(text, decoder: decoder) else {
                return .bad("a gzip file that holds no upload body ({\"reports\": [...]})")
            }
            return .body(entries)
        }
        guard text.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "{"),
            let envelope = try? decoder.decode(Envelope.self, from: Data(text))
        else { return .notABody }
        return .body(envelope.reports)
    }

    private func reset() {
        offset = 0
        partial = []
        lineNumber = 0
        fileID = nil
    }

    private func parse(_ line: ArraySlice<UInt8>, torn: Bool, into chunk: inout ReportChunk) {
        lineNumber += 1
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        do {
            chunk.reports.append((lineNumber, try decoder.decode(CrashReport.self, from: Data(line))))
        } catch {
            let problem =
                torn
                ? "incomplete last line (the process was probably stopped while writing it)"
                : "not a valid crash report (\(Self.describe(error)))"
            chunk.badLines.append(BadLine(file: path, number: lineNumber, isTorn: torn, problem: problem))
        }
    }

    private func readToEnd(_ fd: Int32, from start: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress, $0.count, off_t(start + bytes.count))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReportFileError(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return
                "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// The reports of one or more files.
///
/// The store appends a line each time a report's count is delivered (1, 10, 100, ... and on flush), and each launch
/// counts from 1 again: the latest line of a signature within one launch (its `context.launchID`; for reports
/// without context, within one file) holds that launch's count. Reports are then merged by group
/// (`CrashReport.group`: the grouping key, which one call site keeps across builds; the signature for reports from
/// before grouping keys): a group's occurrences are the sum over launches and builds, its first and last seen the
/// earliest and the latest; the other fields come from the most recent launch.
public struct ReportSet {
    /// The files read, in order.
    public private(set) var files: [String] = []
    public private(set) var badLines: [BadLine] = []
    private var latest: [String: CrashReport] = [:]
    private var keyOrder: [String] = []
    /// Which launches' reports count (every command's --guard, --since, --until, --release, --launch, --signature).
    public var filter = ReportFilter()

    public init() {}

    /// Reads whole files; files that cannot be read are returned as errors (and not counted).
    public static func load(_ paths: [String]) -> (set: ReportSet, errors: [ReportFileError]) {
        var set = ReportSet()
        var errors: [ReportFileError] = []
        for path in paths {
            do {
                set.add(try ReportFileReader(path: path).read(final: true), from: path)
            } catch let error as ReportFileError {
                errors.append(error)
            } catch {
                errors.append(ReportFileError(path: path, reason: "\(error)"))
            }
        }
        return (set, errors)
    }

    public mutating func add(_ chunk: ReportChunk, from path: String) {
        if !files.contains(path) { files.append(path) }
        badLines += chunk.badLines
        for (_, report) in chunk.reports {
            let key = ReportCounting.launchKey(report, source: "file:" + path)
            if latest.updateValue(report, forKey: key) == nil { keyOrder.append(key) }
        }
    }

    /// One report per group, in order of first appearance, counts summed over launches and builds
    /// (`ReportCounting`).
    public var reports: [CrashReport] {
        ReportCounting.merge(launchReports, by: \.group)
    }

    /// The latest report of each call site in each launch that passes the filter, unmerged (the chart's points).
    public var launchReports: [CrashReport] {
        keyOrder.compactMap { latest[$0] }.filter(filter.matches)
    }

    /// `reports`, most occurrences first (then the most recent), at most `limit` of them.
    public func ranked(limit: Int? = nil) -> [CrashReport] {
        let sorted = reports.sorted {
            ($0.occurrences, $0.lastSeen, $1.group) > ($1.occurrences, $1.lastSeen, $0.group)
        }
        return limit.map { Array(sorted.prefix(max(0, $0))) } ?? sorted
    }

    /// For each group whose caller has no identity (`CrashReport.callerIdentity`: no unwind table covered its
    /// function, or a report from before identities), how many call sites it holds: the most distinct signatures of
    /// one build (a signature is a call site of one build). Such a group is named "N call sites", never after one.
    public var unidentifiedCallSites: [String: Int] {
        var sites: [String: Set<String>] = [:]
        for report in launchReports where report.callerIdentity == nil && report.callerFunction == nil {
            let build =
                report.callerFrame?.imageUUID ?? report.context.map { "\($0.appVersion ?? "")+\($0.appBuild ?? "")" }
            sites[report.group + "|" + (build ?? ""), default: []].insert(report.signature)
        }
        var counts: [String: Int] = [:]
        for (key, signatures) in sites {
            let group = String(key[..<(key.lastIndex(of: "|") ?? key.endIndex)])
            counts[group] = max(counts[group] ?? 0, signatures.count)
        }
        return counts
    }

    /// The group (counts summed over launches and builds) whose grouping key, or the signature of any of its
    /// launches' reports (an earlier build's signature too: a rebuild changes the signature, not the group), is
    /// `signature` or starts with it.
    /// - Throws: `ReportLookupError` when no group does, or more than one.
    public func report(matching signature: String) throws -> CrashReport {
        let all = reports
        var signatures: [String: Set<String>] = [:]
        for report in launchReports { signatures[report.group, default: []].insert(report.signature) }
        func names(_ report: CrashReport) -> Set<String> {
            signatures[report.group, default: []].union([report.signature, report.group])
        }
        if let exact = all.first(where: { names($0).contains(signature) }) { return exact }
        let matches = all.filter { names($0).contains { $0.hasPrefix(signature) } }
        guard matches.count == 1 else {
            throw ReportLookupError(signature: signature, candidates: matches.map(\.signature))
        }
        return matches[0]
    }
}

/// `show`/`symbolicate` named a signature that no report has, or a prefix that several share.
public struct ReportLookupError: Error, CustomStringConvertible {
    public var signature: String
    public var candidates: [String]
    public var description: String {
        candidates.isEmpty
            ? "no report has the signature '\(signature)' (`summary` lists them)"
            : "'\(signature)' starts \(candidates.count) signatures (\(candidates.joined(separator: ", "))); give more digits"
    }
}

/// Which reports count. Each option's values are alternatives; the options together must all hold. Applied to each
/// launch's report before launches are added up, so `--launch` or `--release` counts only those launches.
public struct ReportFilter: Sendable, Equatable {
    /// Guards (`category`: container, string, ...).
    public var guards: [String] = []
    /// Seen at or after (the report's last sighting in the launch).
    public var since: Date?
    /// Seen at or before (its first sighting in the launch).
    public var until: Date?
    /// `version` or `version+build`, matched against the context's appVersion and appBuild.
    public var releases: [String] = []
    /// Launch IDs (`context.launchID`).
    public var launches: [String] = []
    /// Prefixes of the signature or of the grouping key.
    public var signatures: [String] = []

    public init(
        guards: [String] = [], since: Date? = nil, until: Date? = nil, releases: [String] = [],
        launches: [String] = [], signatures: [String] = []
    ) {
        (self.guards, self.since, self.until, self.releases, self.launches, self.signatures) = (
            guards, since, until, releases, launches, signatures
        )
    }

    public func matches(_ report: CrashReport) -> Bool {
        if !guards.isEmpty && !guards.contains(report.category.name) { return false }
        if let since, report.lastSeen < since { return false }
        if let until, report.firstSeen > until { return false }
        if !releases.isEmpty {
            guard let version = report.context?.appVersion else { return false }
            let full = version + (report.context?.appBuild.map { "+" + $0 } ?? "")
            if !releases.contains(where: { $0 == version || $0 == full }) { return false }
        }
        if !launches.isEmpty && !launches.contains(report.context?.launchID ?? "") { return false }
        if !signatures.isEmpty
            && !signatures.contains(where: { prefix in
                report.signature.hasPrefix(prefix) || (report.groupingKey?.hasPrefix(prefix) ?? false)
            })
        {
            return false
        }
        return true
    }

    /// An ISO-8601 date and time (`2026-11-25T10:00:00Z`, fractional seconds and offsets allowed) or a date
    /// (`2026-11-25`, UTC): its start, or with `endOfDay` its last instant. Nil when it is neither.
    public static func date(_ text: String, endOfDay: Bool = false) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        formatter.formatOptions = [.withFullDate]
        guard text.count == 10, let day = formatter.date(from: text) else { return nil }
        return endOfDay ? day.addingTimeInterval(86_400 - 0.001) : day
    }
}
