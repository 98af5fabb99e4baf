import CrashShield
import Foundation

/// `crashshield-report html`: one self-contained page (no network: inline CSS, JS and SVG, and a Content Security
/// Policy that forbids loading anything) with the occurrences per guard over time as a stacked bar chart, a table of
/// call sites sortable by any column (by count, most first, when it opens), and each report's stack with the caller
/// marked. Every text from a report (reasons, class names, symbols, paths) is app data and is HTML-escaped.
public enum ReportHTML {
    /// The chart's colours, one per guard in order of most occurrences (the first is `palette[0]`).
    public static let palette = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
        "#7f7f7f", "#bcbd22", "#17becf",
    ]

    /// - Parameters:
    ///   - callerNames: the caller's name by group, where the device did not name it (`Files.callerNames`).
    ///   - frameNames: every frame's name by group and frame index (`Symbolicator.frameNames`: from the binary at
    ///     hand, else the recorded symbol, demangled); frames without one show their recorded symbol.
    public static func page(
        _ set: ReportSet, limit: Int? = nil, callerNames: [String: String] = [:],
        frameNames: [String: [Int: String]] = [:], title: String = "CrashShield reports"
    ) -> String {
        let ranked = set.ranked(limit: limit)
        let shown = Set(ranked.map(\.group))
        let spread = Spread.byGroup(set.launchReports)
        // Rows in order of first appearance: the page's script sorts them by count when it opens.
        let rows = set.reports.filter { shown.contains($0.group) }
        let total = set.reports.reduce(0) { $0 + $1.occurrences }
        let sites = set.unidentifiedCallSites
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
            <title>\(escape(title))</title>
            <style>\(css)</style>
            </head><body>
            <h1>\(escape(title))</h1>
            <p class="totals">\(ReportText.counted(set.reports.count, "report")) (\(ReportText.counted(total, "occurrence"))) \
            from \(ReportText.counted(set.files.count, "file")); \(ReportText.counted(set.badLines.count, "unreadable line"))</p>
            <h2>Occurrences per guard over time</h2>
            \(chart(set.launchReports.filter { shown.contains($0.group) }))
            <h2>Call sites</h2>
            <table id="callsites"><thead><tr>
            """
        for (index, column) in columns.enumerated() {
            // The sort column's header says so (aria-sort, and an arrow); the script keeps both current.
            html += "<th data-type=\"\(column.type)\" onclick=\"sortCallSites(\(index))\" aria-sort=\"none\">"
            html += "\(column.title)<span class=\"arrow\" aria-hidden=\"true\"></span></th>"
        }
        html += "</tr></thead><tbody>\n"
        for report in rows {
            let row = ReportText.Row(report, callerNames: callerNames, callSites: sites[report.group] ?? 1)
            let counts = spread[report.group] ?? Spread()
            html += "<tr class=\"callsite\" data-group=\"\(escape(row.group))\">"
            html += [row.guard, row.method, row.callSite].map { "<td>\(escape($0))</td>" }.joined()
            html += "<td class=\"reason\">\(escape(report.reason))</td>"
            for (name, value) in [
                ("count", row.count), ("launches", counts.launches.count), ("releases", counts.releases.count),
                ("devices", counts.devices.count),
            ] {
                let kind = name == "count" ? "count" : "count \(name)"
                html += "<td class=\"\(kind)\" data-value=\"\(value)\">\(value)</td>"
            }
            html += "<td>\(escape(row.firstSeen))</td><td>\(escape(row.lastSeen))</td>"
            html += "<td><a href=\"#report-\(escape(row.group))\"><code>\(escape(row.group))</code></a></td></tr>\n"
        }
        html += "</tbody></table>\n<h2>Reports</h2>\n"
        for report in ranked {
            html += section(
                report, callerNames: callerNames, frameNames: frameNames[report.group] ?? [:],
                spread: spread[report.group] ?? Spread(), callSites: sites[report.group] ?? 1)
        }
        html += "<script>\(script)</script>\n</body></html>\n"
        return html
    }

    /// The call-site table's columns: title and sort type. `Count` is the column the page opens sorted by.
    public static let columns: [(title: String, type: String)] = [
        ("Guard", "text"), ("Method", "text"), ("Call site", "text"), ("Reason", "text"), ("Count", "number"),
        ("Launches", "number"), ("Releases", "number"), ("Devices", "number"), ("First seen", "text"),
        ("Last seen", "text"), ("Group", "text"),
    ]

    /// How far one call site spread: the launches, app releases (`version+build`) and devices (`context.device`: the
    /// model, `iPhone15,2`; reports keep no per-device identifier) that reported it, among the launches that pass the
    /// filter. Reports without a context count as one launch of the file that holds them.
    struct Spread {
        var launches = Set<String>()
        var releases = Set<String>()
        var devices = Set<String>()

        static func byGroup(_ launchReports: [CrashReport]) -> [String: Spread] {
            var spread: [String: Spread] = [:]
            for report in launchReports {
                var entry = spread[report.group] ?? Spread()
                if let context = report.context {
                    entry.launches.insert(context.launchID)
                    entry.releases.insert((context.appVersion ?? "?") + "+" + (context.appBuild ?? "?"))
                    entry.devices.insert(context.device)
                } else {
                    entry.launches.insert("signature:" + report.signature)
                }
                spread[report.group] = entry
            }
            return spread
        }
    }

    /// Text as HTML text or an attribute value: `& < > " '` escaped.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    // MARK: - the chart

    /// Stacked bars: each launch's count of a call site at the time bucket of its last sighting (an hour when the
    /// reports span at most two days, else a day, else a week), one colour per guard, with a legend.
    static func chart(_ reports: [CrashReport]) -> String {
        let width = 1000.0, height = 320.0, left = 60.0, right = 20.0, top = 20.0, bottom = 50.0
        guard let first = reports.map(\.lastSeen).min(), let last = reports.map(\.lastSeen).max() else {
            return "<p class=\"empty\">No reports.</p>"
        }
        let span = last.timeIntervalSince(first)
        let bucket: Double = span <= 2 * 86_400 ? 3_600 : span <= 120 * 86_400 ? 86_400 : 7 * 86_400
        func start(_ date: Date) -> Double { (date.timeIntervalSince1970 / bucket).rounded(.down) * bucket }
        let firstBucket = start(first)
        let bucketCount = Int((start(last) - firstBucket) / bucket) + 1
        var totals: [String: Int] = [:]
        var counts: [[String: Int]] = Array(repeating: [:], count: bucketCount)
        for report in reports {
            let index = Int((start(report.lastSeen) - firstBucket) / bucket)
            counts[index][report.category.name, default: 0] += report.occurrences
            totals[report.category.name, default: 0] += report.occurrences
        }
        let guards = totals.keys.sorted { (totals[$0]!, $1) > (totals[$1]!, $0) }
        let colour = Dictionary(uniqueKeysWithValues: guards.enumerated().map { ($1, palette[$0 % palette.count]) })
        let maxStack = max(1, counts.map { $0.values.reduce(0, +) }.max() ?? 1)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let slot = plotWidth / Double(bucketCount)
        let barWidth = min(60, max(1, slot * 0.8))
        var svg =
            "<svg id=\"chart\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"Occurrences per guard over time\">"
        svg +=
            "<line x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(width - right)\" y2=\"\(top + plotHeight)\" stroke=\"#333\"/>"
        svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(top + plotHeight)\" stroke=\"#333\"/>"
        svg += "<text x=\"\(left - 6)\" y=\"\(top + 4)\" text-anchor=\"end\">\(maxStack)</text>"
        svg += "<text x=\"\(left - 6)\" y=\"\(top + plotHeight)\" text-anchor=\"end\">0</text>"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = bucket < 86_400 ? [.withInternetDateTime] : [.withFullDate]
        for (index, stack) in counts.enumerated() {
            let x = left + slot * Double(index) + (slot - barWidth) / 2
            var y = top + plotHeight
            let label = formatter.string(from: Date(timeIntervalSince1970: firstBucket + bucket * Double(index)))
            for name in guards {
                guard let count = stack[name], count > 0 else { continue }
                let h = plotHeight * Double(count) / Double(maxStack)
                y -= h
                svg +=
                    "<rect class=\"bar\" data-guard=\"\(escape(name))\" x=\"\(x)\" y=\"\(y)\" width=\"\(barWidth)\" height=\"\(h)\" fill=\"\(colour[name]!)\"><title>\(escape(name)) \(escape(label)): \(count)</title></rect>"
            }
        }
        let firstLabel = formatter.string(from: Date(timeIntervalSince1970: firstBucket))
        let lastLabel = formatter.string(
            from: Date(timeIntervalSince1970: firstBucket + bucket * Double(bucketCount - 1)))
        svg +=
            "<text x=\"\(left + slot / 2)\" y=\"\(height - bottom + 18)\" text-anchor=\"\(bucketCount > 1 ? "start" : "middle")\">\(escape(firstLabel))</text>"
        if bucketCount > 1 {
            svg +=
                "<text x=\"\(left + slot * (Double(bucketCount) - 0.5))\" y=\"\(height - bottom + 18)\" text-anchor=\"end\">\(escape(lastLabel))</text>"
        }
        var legendX = left
        for name in guards {
            svg += "<rect x=\"\(legendX)\" y=\"\(height - 18)\" width=\"14\" height=\"14\" fill=\"\(colour[name]!)\"/>"
            let text = "\(name) (\(totals[name]!))"
            svg += "<text x=\"\(legendX + 20)\" y=\"\(height - 6)\">\(escape(text))</text>"
            legendX += 40 + Double(text.count) * 8
        }
        return svg + "</svg>"
    }

    // MARK: - a report

    static func section(
        _ report: CrashReport, callerNames: [String: String], frameNames: [Int: String] = [:],
        spread: Spread = Spread(), callSites: Int = 1
    ) -> String {
        var html = "<section class=\"report\" id=\"report-\(escape(report.group))\">"
        html += "<h3>\(escape(report.appFacingMethod))</h3>"
        html += "<p class=\"reason\"><b>\(escape(report.exceptionName))</b>: \(escape(report.reason))</p>"
        if !report.hint.isEmpty { html += "<p class=\"hint\">Hint: \(escape(report.hint))</p>" }
        var fields = [
            ("guard", report.category.name), ("method", report.method), ("action", report.action.rawValue),
            ("occurrences", String(report.occurrences)),
            ("launches", String(spread.launches.count)),
            ("releases", spread.releases.sorted().joined(separator: ", ")),
            ("devices", spread.devices.sorted().joined(separator: ", ")),
            ("call site", ReportText.callSiteName(report, callerNames: callerNames, callSites: callSites)),
            ("first seen", ReportText.date(report.firstSeen)), ("last seen", ReportText.date(report.lastSeen)),
            ("signature", report.signature), ("group", report.group),
        ]
        // The details: what the bad call passed (the KVC key, the index and count, ...).
        fields += report.details.sorted { $0.key < $1.key }.map { ("detail: \($0.key)", $0.value) }
        if let context = report.context {
            fields.append(
                (
                    "app",
                    [context.appIdentifier, context.appVersion, context.appBuild.map { "(\($0))" }]
                        .compactMap { $0 }.joined(separator: " ")
                ))
            fields.append(("os", "\(context.osName) \(context.osVersion)"))
        }
        html += "<dl>" + fields.map { "<dt>\(escape($0.0))</dt><dd>\(escape($0.1))</dd>" }.joined() + "</dl>"
        html += "<ol class=\"stack\" start=\"0\">"
        for (index, frame) in report.callStack.enumerated() {
            let isCaller = index == report.callerFrameIndex
            let name = frameNames[index] ?? (isCaller ? callerNames[report.group] : nil) ?? frame.symbol ?? ""
            html +=
                isCaller
                ? "<li class=\"frame caller\" data-caller=\"true\"><span class=\"marker\">&#9654; caller</span> "
                : "<li class=\"frame\">"
            html += "<code>\(ReportText.hex(frame.address))  \(escape(ReportText.location(frame)))"
            html += name.isEmpty ? "" : "  \(escape(name))"
            html += "</code></li>"
        }
        return html + "</ol></section>\n"
    }

    // MARK: - style and script

    static let css = """
        body{font:14px -apple-system,system-ui,sans-serif;margin:24px;color:#222;background:#fff}
        h1{font-size:22px}h2{font-size:18px;margin-top:28px}
        table{border-collapse:collapse;width:100%;table-layout:auto}td:nth-child(3){word-break:break-all}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;overflow-wrap:break-word}
        th{background:#eef;cursor:pointer;white-space:nowrap}th:hover{background:#dde}td.count{text-align:right}
        th .arrow{margin-left:4px;color:#225}td.reason{max-width:28em}.hint{color:#225}
        tr:nth-child(even) td{background:#f7f7f7}
        #chart text{font-size:12px;fill:#333}
        .report{border-top:1px solid #ccc;margin-top:16px}.reason{white-space:pre-wrap}
        dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dt{color:#666}dd{margin:0}
        ol.stack{font-size:12px}li.caller{background:#ffe9a8;font-weight:bold}.marker{color:#b00}
        """

    /// `sortCallSites(column, descending)`: sorts the table by a column (a number column numerically), toggling the
    /// order on each click; on load, by count, most first.
    /// The index of `Count` in `columns`.
    public static let countColumn = columns.firstIndex { $0.title == "Count" }!

    static let script = """
        function sortCallSites(column, descending) {
          var table = document.getElementById('callsites');
          var body = table.tBodies[0];
          var numeric = table.tHead.rows[0].cells[column].getAttribute('data-type') === 'number';
          if (descending === undefined) {
            descending = !(table.getAttribute('data-sort-column') === String(column) &&
                           table.getAttribute('data-sort-order') === 'desc');
          }
          var rows = Array.prototype.slice.call(body.rows);
          rows.sort(function (a, b) {
            var x = a.cells[column].getAttribute('data-value') || a.cells[column].textContent;
            var y = b.cells[column].getAttribute('data-value') || b.cells[column].textContent;
            var order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
            return descending ? -order : order;
          });
          rows.forEach(function (row) { body.appendChild(row); });
          table.setAttribute('data-sort-column', String(column));
          table.setAttribute('data-sort-order', descending ? 'desc' : 'asc');
          Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, index) {
            var sorted = index === column;
            cell.setAttribute('aria-sort', sorted ? (descending ? 'descending' : 'ascending') : 'none');
            cell.querySelector('.arrow').textContent = sorted ? (descending ? '\\u25BC' : '\\u25B2') : '';
          });
        }
        sortCallSites(\(countColumn), true);
        """
}
