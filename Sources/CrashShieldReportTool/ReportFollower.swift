import CrashShield
import Foundation

/// Watches report files grow (`summary --follow`): each `poll()` returns one line per report line appended since
/// the last poll (a new report or a new count), one per bad line, and a note when a file was rewritten.
public final class ReportFollower {
    public private(set) var set = ReportSet()
    private let readers: [ReportFileReader]

    public init(paths: [String]) {
        readers = paths.map(ReportFileReader.init(path:))
    }

    /// Reads what was appended to every file. A file that cannot be read (not created yet) is skipped until it can.
    public func poll() -> [String] {
        var lines: [String] = []
        for reader in readers {
            guard let chunk = try? reader.read(final: false) else { continue }
            if chunk.restarted { lines.append("\(reader.path): the file was rewritten (compacted or removed); reading it again") }
            set.add(chunk, from: reader.path)
            for (number, report) in chunk.reports {
                lines.append("\(reader.path):\(number): \(ReportText.followLine(report))")
            }
            lines += chunk.badLines.map(\.description)
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
