import CrashShield
import Foundation

/// The tool's text: the summary table, one report in full, exports.
public enum ReportText {
    // MARK: - summary

    /// The table (one row per group, most occurrences first: `ReportSet.ranked`, at most `limit` rows), the bad lines,
    /// and the last line: `N reports (M occurrences) from K files; B unreadable lines` (of every report that passed the
    /// filter). METHOD is the app-facing method (`-[NSArray objectAtIndex:]`), CALL SITE the caller's function where
    /// the device named it, else its name from the binary at hand (`callerNames`, by group), else image+offset.
    public static func summary(_ set: ReportSet, limit: Int? = nil, callerNames: [String: String] = [:]) -> String {
        let reports = set.ranked(limit: limit)
        let sites = set.unidentifiedCallSites
        var rows = [["GUARD", "METHOD", "CALL SITE", "COUNT", "FIRST SEEN", "LAST SEEN", "GROUP"]]
        for row in reports.map({ Row($0, callerNames: callerNames, callSites: sites[$0.group] ?? 1) }) {
            rows.append([
                row.guard, row.method, row.callSite, String(row.count), row.firstSeen, row.lastSeen, row.group,
            ])
        }
        var lines = reports.isEmpty ? [] : table(rows, rightAligned: [3])
        lines += set.badLines.map(\.description)
        lines.append(summaryLine(set))
        return lines.joined(separator: "\n") + "\n"
    }

    /// One group as `summary` and `list` show it (and their --json).
    public struct Row: Codable, Equatable {
        public var `guard`: String
        public var method: String
        public var callSite: String
        public var count: Int
        public var firstSeen: String
        public var lastSeen: String
        public var group: String
        public var signature: String
        public var reason: String

        public init(_ report: CrashReport, callerNames: [String: String] = [:], callSites: Int = 1) {
            `guard` = report.category.name
            method = report.appFacingMethod
            callSite = ReportText.callSiteName(report, callerNames: callerNames, callSites: callSites)
            count = report.occurrences
            firstSeen = ReportText.date(report.firstSeen)
            lastSeen = ReportText.date(report.lastSeen)
            group = report.group
            signature = report.signature
            reason = report.reason
        }
    }

    /// The caller's function as the device named it, else as the binary at hand names it, else its identity (the
    /// caller's code hash; for a caller that is not certain, what is: `f -> -reloadFeed: (tail call)`), else
    /// image+offset; "N call sites in <image>" for a group of `callSites` call sites that nothing identifies
    /// (`ReportSet.unidentifiedCallSites`). The binary at hand names the caller frame's function: not for a caller
    /// that made a tail call (that frame is its caller's) or is not certain.
    public static func callSiteName(
        _ report: CrashReport, callerNames: [String: String] = [:], callSites: Int = 1
    ) -> String {
        if report.callerIsCertain == false, let identity = report.callerIdentity { return identity }
        if let name = report.callerFunction { return name }
        if report.callerMadeTailCall != true, let name = callerNames[report.group] { return name }
        if let identity = report.callerIdentity { return identity }
        if callSites > 1, let frame = report.callerFrame {
            return "\(callSites) call sites in \((frame.image as NSString).lastPathComponent)"
        }
        return callSite(report)
    }

    /// `summary --json`: the rows, the totals, the bad lines.
    public static func summaryJSON(
        _ set: ReportSet, limit: Int? = nil, callerNames: [String: String] = [:]
    ) throws -> String {
        struct Totals: Codable { var reports, occurrences, files, unreadableLines: Int }
        struct Summary: Codable { var reports: [Row]; var totals: Totals; var unreadableLines: [String] }
        let all = set.reports
        let sites = set.unidentifiedCallSites
        return try json(
            Summary(
                reports: set.ranked(limit: limit).map {
                    Row($0, callerNames: callerNames, callSites: sites[$0.group] ?? 1)
                },
                totals: Totals(
                    reports: all.count, occurrences: all.reduce(0) { $0 + $1.occurrences }, files: set.files.count,
                    unreadableLines: set.badLines.count),
                unreadableLines: set.badLines.map(\.description)))
    }

    // MARK: - list

    /// One line per group, most occurrences first, no header: signature, count, guard, method, call site, last seen.
    public static func list(_ set: ReportSet, limit: Int? = nil, callerNames: [String: String] = [:]) -> String {
        let sites = set.unidentifiedCallSites
        return set.ranked(limit: limit).map { report in
            let row = Row(report, callerNames: callerNames, callSites: sites[report.group] ?? 1)
            return [row.signature, String(row.count), row.guard, row.method, row.callSite, row.lastSeen].joined(
                separator: "  ") + "\n"
        }.joined()
    }

    public static func listJSON(
        _ set: ReportSet, limit: Int? = nil, callerNames: [String: String] = [:]
    ) throws -> String {
        let sites = set.unidentifiedCallSites
        return try json(
            set.ranked(limit: limit).map { Row($0, callerNames: callerNames, callSites: sites[$0.group] ?? 1) })
    }

    /// Pretty JSON, keys sorted, with a final newline.
    public static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = CrashReport.makeJSONEncoder()
        encoder.outputFormatting.formUnion([.prettyPrinted, .sortedKeys])
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// `N reports (M occurrences) from K files; B unreadable lines`. METHOD is the app-facing method
    /// (`-[NSArray objectAtIndex:]`), CALL SITE the caller's function where the device named it, else image+offset.
    public static func summary(_ set: ReportSet) -> String {
        let reports = set.reports.sorted {
            ($0.occurrences, $0.lastSeen, $1.group) > ($1.occurrences, $1.lastSeen, $0.group)
        }
        var rows = [["GUARD", "METHOD", "CALL SITE", "COUNT", "FIRST SEEN", "LAST SEEN", "GROUP"]]
        for report in reports {
            rows.append([
                report.category.name, report.appFacingMethod, report.callerFunction ?? callSite(report),
                String(report.occurrences), date(report.firstSeen), date(report.lastSeen), report.group,
            ])
        }
        var lines = reports.isEmpty ? [] : table(rows, rightAligned: [3])
        lines += set.badLines.map(\.description)
        lines.append(summaryLine(set))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `N reports (M occurrences) from K files; B unreadable lines`, each noun singular for 1.
    public static func summaryLine(_ set: ReportSet) -> String {
        let reports = set.reports
        return
            "\(counted(reports.count, "report")) (\(counted(reports.reduce(0) { $0 + $1.occurrences }, "occurrence"))) "
            + "from \(counted(set.files.count, "file")); \(counted(set.badLines.count, "unreadable line"))"
    }

    /// `1 file`, `2 files`, `0 files`: a count and its noun, plural unless the count is 1.
    public static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `image+0xoffset` of the caller, with its symbol when the report has one; "?" without a caller.
    public static func callSite(_ report: CrashReport) -> String {
        guard let frame = report.callerFrame else { return "?" }
        return location(frame) + (frame.symbol.map { " (\($0))" } ?? "")
    }

    static func location(_ frame: StackFrame) -> String {
        "\((frame.image as NSString).lastPathComponent)+0x\(String(frame.offsetInImage, radix: 16))"
    }

    /// One line per appended report line when following a file.
    static func followLine(_ report: CrashReport) -> String {
        "\(date(report.lastSeen))  \(report.category.name)  \(report.method)  \(callSite(report))  "
            + "count \(report.occurrences)  \(report.signature)"
    }

    // MARK: - show

    /// Every field of one report, its group and call site (named as `summary` names it: `callerNames` by group), its
    /// stack with the caller marked, and its images.
    public static func show(_ report: CrashReport, callerNames: [String: String] = [:]) -> String {
        var fields: [(String, String)] = [
            ("signature", report.signature), ("group", report.group), ("guard", report.category.name),
            ("call site", callSiteName(report, callerNames: callerNames)),
            ("exception", report.exceptionName), ("reason", report.reason), ("action", report.action.rawValue),
            ("hint", report.hint), ("occurrences", String(report.occurrences)),
            ("first seen", date(report.firstSeen)), ("last seen", date(report.lastSeen)),
            (
                "thread",
                "\(report.thread.name.isEmpty ? "(unnamed)" : report.thread.name) (id \(report.thread.id)"
                    + (report.thread.isMain ? ", main thread)" : ")")
            ),
        ]
        fields += report.details.sorted { $0.key < $1.key }.map { ("detail \($0.key)", $0.value) }
        if let context = report.context {
            let version = [context.appVersion, context.appBuild.map { "(\($0))" }].compactMap { $0 }.joined(
                separator: " ")
            fields += [
                ("app", context.appIdentifier + (version.isEmpty ? "" : " " + version)),
                ("os", "\(context.osName) \(context.osVersion)" + (context.osBuild.map { " (\($0))" } ?? "")),
                ("device", context.device), ("crashshield", context.crashShieldVersion),
                ("launch", "\(context.launchID), \(String(format: "%.3f", context.secondsSinceLaunch)) s after launch"),
            ]
        }
        let width = fields.map(\.0.count).max() ?? 0
        var lines = [report.method]
        lines += fields.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + oneLine($0.1) }
        lines.append("stack (innermost first; > marks the caller):")
        lines += stack(
            report,
            names: report.callerFrameIndex.flatMap { index in callerNames[report.group].map { [index: $0] } } ?? [:])
        if let images = report.context?.images, !images.isEmpty {
            lines.append("images:")
            lines += table(
                images.map { image in
                    [
                        "  " + image.name, hex(image.loadAddress),
                        image.slide.map { "slide " + hex(UInt64(bitPattern: $0)) } ?? "",
                        image.uuid.map { "uuid " + $0 } ?? image.buildID.map { "build-id " + $0 } ?? "", image.path,
                    ]
                }, rightAligned: [])
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `   #3  0x...  image+0x...  symbol`, the caller's line starting with `>`; `names` replaces the symbols.
    static func stack(_ report: CrashReport, names: [Int: String] = [:]) -> [String] {
        report.callStack.enumerated().map { index, frame in
            let marker = index == report.callerFrameIndex ? " > " : "   "
            let name = names[index] ?? frame.symbol ?? ""
            return "\(marker)#\(index)".padding(toLength: 7, withPad: " ", startingAt: 0)
                + "  \(hex(frame.address))  \(location(frame))" + (name.isEmpty ? "" : "  \(name)")
        }
    }

    // MARK: - export

    public enum ExportFormat: String, CaseIterable, Sendable {
        case json, csv
    }

    /// Every report, in `summary`'s order (most occurrences first, then the most recent: `ReportSet.ranked`), at most
    /// `limit`. The CSV's method is the app-facing one, as `summary` shows it (`-[NSArray objectAtIndex:]`, the
    /// class that declares the method, not the class-cluster member that ran it), and its group column is
    /// `summary`'s GROUP.
    public static func export(_ set: ReportSet, as format: ExportFormat, limit: Int? = nil) throws -> String {
        let reports = set.ranked(limit: limit)
        switch format {
        case .json:
            let encoder = CrashReport.makeJSONEncoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            return String(decoding: try encoder.encode(reports), as: UTF8.self) + "\n"
        case .csv:
            let header = [
                "signature", "group", "guard", "method", "class", "exception", "reason", "call site", "occurrences",
                "first seen", "last seen", "action", "thread", "app", "app version", "app build", "os",
                "os version", "device", "crashshield version", "launch id",
            ]
            let rows = reports.map { report -> [String] in
                let context = report.context
                return [
                    report.signature, report.group, report.category.name, report.appFacingMethod, report.className,
                    report.exceptionName, report.reason,
                    callSite(report), String(report.occurrences), date(report.firstSeen), date(report.lastSeen),
                    report.action.rawValue, report.thread.name, context?.appIdentifier ?? "",
                    context?.appVersion ?? "", context?.appBuild ?? "", context?.osName ?? "",
                    context?.osVersion ?? "", context?.device ?? "", context?.crashShieldVersion ?? "",
                    context?.launchID ?? "",
                ]
            }
            return ([header] + rows).map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
        }
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled. A cell a spreadsheet could
    /// take for a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's CSV injection rule)
    /// starts with `'`, which spreadsheets show as text.
    static func csvField(_ cell: String) -> String {
        let text = cell.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } == true ? "'" + cell : cell
        // Scalars, not characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: - helpers

    static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Columns padded to their widest cell, two spaces apart; `rightAligned` columns padded on the left.
    static func table(_ rows: [[String]], rightAligned: Set<Int>) -> [String] {
        let widths = rows.reduce(into: [Int]()) { widths, row in
            for (column, cell) in row.enumerated() {
                if column < widths.count {
                    widths[column] = max(widths[column], cell.count)
                } else {
                    widths.append(cell.count)
                }
            }
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                if column == row.count - 1 && !rightAligned.contains(column) { return cell }
                return rightAligned.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
    }
}
