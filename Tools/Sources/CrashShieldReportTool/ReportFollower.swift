import CrashShield
import Foundation

/// Watches report files grow (`summary --follow`): each `poll()` returns one line per report line appended since
/// the last poll (a new report or a new count), one per bad line, and a note when a file was rewritten.
public final class ReportFollower {
    public private(set) var set = ReportSet()
    private let readers: [ReportFileReader]
    /// Each line a JSON object (`summary --follow --json`): `{"file", "line", "report"}`, `{"file", "line", "problem"}`
    /// or `{"file", "rewritten": true}`.
    public let json: Bool
    /// Only the reports that pass it are printed.
    public var filter = ReportFilter()

    public init(paths: [String], json: Bool = false) {
        readers = paths.map(ReportFileReader.init(path:))
        self.json = json
    }

    private struct Event: Encodable {
        var file: String
        var line: Int?
        var report: CrashReport?
        var problem: String?
        var rewritten: Bool?
    }

    private func encode(_ event: Event) -> String {
        let encoder = CrashReport.makeJSONEncoder()
        encoder.outputFormatting.insert(.sortedKeys)
        return (try? encoder.encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads what was appended to every file. A file that cannot be read (not created yet) is skipped until it can.
    public func poll() -> [String] {
        var lines: [String] = []
        for reader in readers {
            guard let chunk = try? reader.read(final: false) else { continue }
            if chunk.restarted {
                lines.append(
                    json
                        ? encode(Event(file: reader.path, rewritten: true))
                        : "\(reader.path): the file was rewritten (compacted or removed); reading it again")
            }
            set.add(chunk, from: reader.path)
            for (number, report) in chunk.reports where filter.matches(report) {
                lines.append(
                    json
                        ? encode(Event(file: reader.path, line: number, report: report))
                        : "\(reader.path):\(number): \(ReportText.followLine(report))")
            }
            lines += chunk.badLines.map {
                json ? encode(Event(file: $0.file, line: $0.number, problem: $0.problem)) : $0.description
            }
        }
        return lines
    }

    /// Polls every `interval` seconds, handing each line to `output`, until `deadline` (forever when nil).
    public func run(interval: TimeInterval, until deadline: Date?, output: (String) -> Void) {
        while true {
            poll().forEach(output)
            if let deadline, Date() >= deadline { return }
            Thread.sleep(forTimeInterval: deadline.map { min(interval, max(0, $0.timeIntervalSinceNow)) } ?? interval)
        }
    }
}
