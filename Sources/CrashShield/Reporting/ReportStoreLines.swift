import Foundation

/// A JSON Lines store's bytes read as reports (`ReportCodec`), line by line: the reports with their lines, and a warning
/// naming each line that is not a report (a line torn by a killed process, a corrupt line).
struct ReportStoreLines {
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

    init(parsing bytes: [UInt8]) {
        var parsed = self
        let decoder = ReportCodec.decoder()
        let terminated = bytes.last == 0x0A
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if terminated || bytes.isEmpty { lines.removeLast() }
        var skippedComplete = 0
        var tornStartsLikeJSON = false
        for (index, line) in lines.enumerated() {
            let number = index + 1
            guard line.contains(where: { !Self.isWhitespace($0) }) else { continue }
            parsed.hasContent = true
            do {
                let report = try decoder.decode(CrashReport.self, from: Data(line))
                parsed.entries.append(Entry(report: report, line: line))
            } catch {
                parsed.skippedLines += 1
                if parsed.firstError == nil { parsed.firstError = Self.describe(error) }
                if index == lines.count - 1 && !terminated {
                    tornStartsLikeJSON = line.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "{")
                    parsed.warnings.append(
                        "line \(number) is incomplete (the process was probably stopped while writing it); skipped")
                } else {
                    skippedComplete += 1
                    parsed.warnings.append(
                        "line \(number) is not a valid crash report (\(Self.describe(error))); skipped")
                }
            }
        }
        parsed.onlyTornLine = parsed.entries.isEmpty && skippedComplete == 0 && tornStartsLikeJSON
        self = parsed
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "field '\(field)': \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}
