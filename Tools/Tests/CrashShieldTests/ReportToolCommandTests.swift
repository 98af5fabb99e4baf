@testable import CrashShield
@_spi(CrashShieldTools) import CrashShieldUpload
import CrashShieldReportTool
import CrashShieldRuntime
import CrashShieldScenarios
import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// `crashshield-report`'s filters, list, --json, --version, --limit, HTTP bodies, CSV formula cells, named call
/// sites, and the html page in a real headless browser.
extension ReportToolTests {
    private func line(_ report: CrashReport) throws -> String {
        String(decoding: try CrashReport.makeJSONEncoder().encode(report), as: UTF8.self) + "\n"
    }

    private func tool(
        _ arguments: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let run = try runProgram(toolPath, arguments)
        XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)", file: file, line: line)
        return run.stdout
    }

    // MARK: - filters

    /// Each filter on the library's set, and on every command: a second launch of the storm's call site, of
    /// release 2.0 (7), seen on 2026-01-01.
    func testFiltersSelectLaunchesBeforeCountingInEveryCommand() throws {
        let real = try writeRealReports(to: fileURL)
        let storm = try XCTUnwrap(real.first { $0.occurrences == 12 })
        let string = try XCTUnwrap(real.first { $0.category == .string })
        var other = storm
        XCTAssertNotNil(other.context)
        other.context?.launchID = "launch-two"
        other.context?.appVersion = "2.0"
        other.context?.appBuild = "7"
        other.firstSeen = try XCTUnwrap(ReportFilter.date("2026-01-01T10:00:00Z"))
        other.lastSeen = try XCTUnwrap(ReportFilter.date("2026-01-01T11:00:00.5Z"))
        other.occurrences = 5
        let second = folder.appendingPathComponent("second.jsonl")
        try Data(try line(other).utf8).write(to: second)
        let paths = [fileURL.path, second.path]

        func reports(_ filter: ReportFilter) -> [CrashReport] {
            var set = ReportSet.load(paths).set
            set.filter = filter
            return set.reports
        }
        XCTAssertEqual(reports(ReportFilter()).first { $0.group == storm.group }?.occurrences, 17, "both launches")
        XCTAssertEqual(reports(ReportFilter(launches: ["launch-two"])).map(\.occurrences), [5])
        XCTAssertEqual(reports(ReportFilter(releases: ["2.0"])).map(\.occurrences), [5])
        XCTAssertEqual(reports(ReportFilter(releases: ["2.0+7"])).map(\.occurrences), [5])
        XCTAssertEqual(reports(ReportFilter(releases: ["2.0+8", "1.9"])).count, 0)
        let since = reports(ReportFilter(since: ReportFilter.date("2026-01-02")))
        XCTAssertEqual(since.count, 4)
        XCTAssertEqual(since.first { $0.group == storm.group }?.occurrences, 12, "the January launch is left out")
        XCTAssertEqual(
            reports(ReportFilter(until: ReportFilter.date("2026-01-01", endOfDay: true))).map(\.occurrences), [5])
        XCTAssertEqual(reports(ReportFilter(until: ReportFilter.date("2026-01-01T10:59:00Z"))).count, 1)
        XCTAssertEqual(reports(ReportFilter(until: ReportFilter.date("2026-01-01T09:59:00Z"))).count, 0)
        XCTAssertEqual(reports(ReportFilter(guards: ["string"])).map(\.signature), [string.signature])
        let bySignature = reports(ReportFilter(signatures: [String(storm.signature.prefix(6))]))
        XCTAssertEqual(bySignature.map(\.occurrences), [17])
        XCTAssertEqual(
            reports(ReportFilter(signatures: [String(storm.group.prefix(6))])).map(\.group), [storm.group],
            "a grouping key prefix")
        XCTAssertNil(ReportFilter.date("yesterday"))

        // Every command takes the filters.
        let launch = ["--launch", "launch-two"]
        XCTAssertTrue(
            try tool(["summary"] + launch + paths).hasSuffix(
                "\n1 report (5 occurrences) from 2 files; 0 unreadable lines\n"))
        let listed = try tool(["list", "--release", "2.0+7"] + paths).split(separator: "\n")
        XCTAssertEqual(listed.count, 1)
        XCTAssertTrue(listed[0].hasPrefix("\(storm.signature)  5  container  "), String(listed[0]))
        let exported = try CrashReport.makeJSONDecoder().decode(
            [CrashReport].self, from: Data(try tool(["export", "--until", "2026-01-01"] + paths).utf8))
        XCTAssertEqual(exported.map(\.occurrences), [5])
        XCTAssertTrue(try tool(["show", storm.signature] + launch + paths).contains("occurrences  5\n"))
        let hidden = try runProgram(toolPath, ["show", storm.signature, "--guard", "string"] + paths)
        XCTAssertEqual(hidden.status, 64, "filtered out: no such report")
        let symbolicated =
            try JSONSerialization.jsonObject(
                with: Data(try tool(["symbolicate", "--json", "--guard", "string"] + paths).utf8)) as? [[String: Any]]
        XCTAssertEqual(symbolicated?.map { $0["signature"] as? String }, [string.signature])
        let page = folder.appendingPathComponent("filtered.html").path
        let written =
            try JSONSerialization.jsonObject(
                with: Data(try tool(["html", "--json", "-o", page, "--since", "2026-01-02"] + paths).utf8))
            as? [String: Any]
        XCTAssertEqual(written?["reports"] as? Int, 4)
        XCTAssertEqual(written?["occurrences"] as? Int, 17)
        let bad = try runProgram(toolPath, ["summary", "--since", "last week"] + paths)
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--since 'last week' is no ISO-8601 date"), bad.stderr)
    }

    // MARK: - HTTP bodies

    /// The bodies a real `HTTPUploadSink` sent (as its server received them), plain and gzipped, read like the store.
    func testHTTPUploadBodiesPlainAndGzippedAreReadLikeTheStore() throws {
        let server = try LoopbackServer(recordURL: folder.appendingPathComponent("server.jsonl"))
        defer { server.stop() }
        let sink = try HTTPUploadSink(
            endpoint: server.url, folder: folder.appendingPathComponent("sink"),
            options: UploadOptions(
                maxBatchSize: 10, batchDelay: 0.1, requestTimeout: 5,
                initialBackoff: 0.05, maxBackoff: 1))
        let store = try JSONLinesReportStore(fileURL: fileURL)
        withShield(Configuration(guards: [.container, .string], sinks: [store, sink])) { _ in
            withAutoreleasePool {
                _ = css_test_storm_objectAtIndex(12)
                for _ in 0..<3 { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            }
            CrashShield.flush()
            XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        }
        let bodies = server.requests.filter(\.processed).map(\.body)
        XCTAssertGreaterThanOrEqual(bodies.count, 1)
        let bodyURLs = try bodies.enumerated().map { index, body -> URL in
            let url = folder.appendingPathComponent("body\(index).json")
            try body.write(to: url)
            return url
        }
        let fromStore = ReportSet.load([fileURL.path]).set
        let (fromBodies, errors) = ReportSet.load(bodyURLs.map(\.path))
        XCTAssertEqual(errors, [])
        XCTAssertEqual(fromBodies.badLines, [])
        XCTAssertEqual(fromBodies.reports, fromStore.reports, "the same reports and counts as the store's file")
        XCTAssertEqual(fromBodies.reports.map(\.occurrences).sorted(), [3, 12])

        // Gzipped (as the sink sends it), with a bad entry: the others still count.
        let last = bodyURLs.last!
        var text = try String(contentsOf: last, encoding: .utf8)
        let open = try XCTUnwrap(text.range(of: "\"reports\":["))
        text.replaceSubrange(open, with: "\"reports\":[{\"bogus\":1},")
        let gz = folder.appendingPathComponent("body.json.gz")
        let packed = try XCTUnwrap(Gzip.compress(Data(text.utf8)))
        try packed.write(to: gz)
        let zipped = ReportSet.load([gz.path]).set
        XCTAssertEqual(zipped.reports, ReportSet.load([last.path]).set.reports)
        XCTAssertEqual(
            zipped.badLines.map(\.description),
            ["\(gz.path): report 1: not a valid crash report (missing field 'signature')"])
        let run = try runProgram(toolPath, ["summary", gz.path])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, ReportText.summary(zipped, callerNames: callerNames(zipped)))
        XCTAssertTrue(run.stdout.contains("\(gz.path): report 1: not a valid crash report"), run.stdout)

        let torn = folder.appendingPathComponent("torn.json.gz")
        try packed.prefix(packed.count / 2).write(to: torn)
        XCTAssertEqual(
            ReportSet.load([torn.path]).set.badLines.map(\.problem),
            ["gzip data that does not decompress (truncated or corrupt)"])
    }

    // MARK: - options

    func testVersionLimitJSONShowUsageAndExportDefaults() throws {
        let real = try writeRealReports(to: fileURL)
        let storm = try XCTUnwrap(real.first { $0.occurrences == 12 })
        XCTAssertEqual(try tool(["--version"]), CrashShield.version + "\n")

        // --limit: the most occurrences first.
        let summary = try tool(["summary", "--limit", "1", fileURL.path]).split(separator: "\n")
        XCTAssertEqual(summary.count, 3, "header, one row, the totals line: \(summary)")
        XCTAssertTrue(summary[1].hasSuffix(storm.group))
        XCTAssertEqual(
            summary[2], "4 reports (17 occurrences) from 1 file; 0 unreadable lines", "totals are of every report")
        XCTAssertEqual(try tool(["list", "--limit", "2", fileURL.path]).split(separator: "\n").count, 2)
        XCTAssertEqual(try tool(["list", fileURL.path]).split(separator: "\n").count, 4)
        XCTAssertEqual(
            try CrashReport.makeJSONDecoder().decode(
                [CrashReport].self, from: Data(try tool(["export", "--limit", "1", fileURL.path]).utf8)
            ).map(\.signature),
            [storm.signature])

        // --json everywhere.
        let set = ReportSet.load([fileURL.path]).set
        let summaryJSON = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try tool(["summary", "--json", fileURL.path]).utf8))
                as? [String: Any])
        XCTAssertEqual((summaryJSON["totals"] as? [String: Int])?["occurrences"], 17)
        XCTAssertEqual((summaryJSON["reports"] as? [[String: Any]])?.first?["count"] as? Int, 12)
        let listJSON = try JSONDecoder().decode(
            [ReportText.Row].self, from: Data(try tool(["list", "--json", fileURL.path]).utf8))
        XCTAssertEqual(listJSON, set.ranked().map { ReportText.Row($0, callerNames: callerNames(set)) })
        let shown = try CrashReport.makeJSONDecoder().decode(
            CrashReport.self, from: Data(try tool(["show", "--json", storm.signature, fileURL.path]).utf8))
        XCTAssertEqual(shown, try set.report(matching: storm.signature))
        XCTAssertEqual(
            try CrashReport.makeJSONDecoder().decode(
                [CrashReport].self, from: Data(try tool(["export", "--json", fileURL.path]).utf8)), set.ranked())
        let symbols = try JSONDecoder().decode(
            [Symbolicator.JSONReport].self,
            from: Data(try tool(["symbolicate", "--json", "--signature", storm.signature, fileURL.path]).utf8))
        XCTAssertEqual(symbols.count, 1)
        let caller = try XCTUnwrap(symbols.first?.frames.first { $0.isCaller })
        XCTAssertEqual(caller.index, storm.callerFrameIndex)
        XCTAssertTrue(caller.name?.hasPrefix("css_test_storm_objectAtIndex") == true, "\(caller)")
        let followed = try tool(["summary", "--json", "--follow", "--for", "0.2", fileURL.path])
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(followed.utf8)), followed)

        // Export is JSON unless asked for CSV.
        XCTAssertEqual(try tool(["export", fileURL.path]), try ReportText.export(set, as: .json))

        // show's errors print show's usage.
        for arguments in [["show", "zz", fileURL.path], ["show", "", fileURL.path]] {
            let run = try runProgram(toolPath, arguments)
            XCTAssertEqual(run.status, 64)
            XCTAssertTrue(run.stderr.contains("Usage: crashshield-report show <report>"), run.stderr)
            XCTAssertTrue(run.stderr.contains("See 'crashshield-report show --help'"), run.stderr)
        }
        XCTAssertTrue(
            try runProgram(toolPath, ["show", "zz", fileURL.path]).stderr.contains("no report has the signature 'zz'"))
    }

    /// OWASP's CSV injection rule, read back by Python's csv module.
    func testCSVCellsThatCouldStartAFormulaAreEscaped() throws {
        let base = try XCTUnwrap(try writeRealReports(to: fileURL).first)
        let reasons = [
            "=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-3", "@SUM(A1)", "\tTAB", "\r\nCRLF", "plain, text", "a=b",
        ]
        var text = ""
        for (index, reason) in reasons.enumerated() {
            var report = base
            report.signature = String(format: "%016x", 0xF00 + index)
            report.groupingKey = nil
            report.reason = reason
            text += try line(report)
        }
        let odd = folder.appendingPathComponent("odd.jsonl")
        try Data(text.utf8).write(to: odd)
        let csvURL = folder.appendingPathComponent("odd.csv")
        try Data(try tool(["export", "--format", "csv", odd.path]).utf8).write(to: csvURL)
        let script = "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))"
        let parsed = try runProgram("/usr/bin/python3", ["-c", script, csvURL.path])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [[String]])
        let column = try XCTUnwrap(rows.first?.firstIndex(of: "reason"))
        XCTAssertEqual(
            rows.dropFirst().map { $0[column] },
            [
                "'=HYPERLINK(\"http://x\",\"y\")", "'+1+2", "'-3", "'@SUM(A1)", "'\tTAB", "'\r\nCRLF", "plain, text",
                "a=b",
            ])
    }

    /// A call site the device did not name (a stripped caller) is named from the binary at hand.
    func testSummaryNamesAnUnnamedCallSiteFromTheBinaryAtHand() throws {
        try skipUnlessLinux("names from the ELF binary at hand with llvm-symbolizer or addr2line")
        var report = try oneRealReportFromTheStore()
        report.callerFunction = nil
        for index in report.callStack.indices { report.callStack[index].symbol = nil }
        let unnamed = folder.appendingPathComponent("unnamed.jsonl")
        try Data(try line(report).utf8).write(to: unnamed)
        let set = ReportSet.load([unnamed.path]).set
        XCTAssertFalse(
            ReportText.summary(set).contains("css_test_call_objectAtIndex"), "the file alone has image+offset")
        let row = try tool(["summary", unnamed.path]).split(separator: "\n")[1]
        XCTAssertTrue(row.contains("  css_test_call_objectAtIndex (") && row.contains("CSSTestSupport.m:"), String(row))
        let listed = try JSONDecoder().decode(
            [ReportText.Row].self, from: Data(try tool(["list", "--json", unnamed.path]).utf8))
        XCTAssertTrue(listed.first?.callSite.hasPrefix("css_test_call_objectAtIndex (") == true, "\(listed)")
    }

    // MARK: - html

    /// Chromium from Debian (installed here when missing), headless: the page's DOM after its script ran, and a
    /// screenshot decoded and checked (size, colours, the chart's bars).
    func testHTMLPageRendersInHeadlessChromium() throws {
        try skipUnlessLinux("Debian's chromium and GNU timeout")
        let real = try writeRealReports(to: fileURL)
        let storm = try XCTUnwrap(real.first { $0.occurrences == 12 })
        // App data that is HTML: a reason with a script, a class name with an image whose error handler runs code.
        var hostile = storm
        hostile.signature = "00000000deadbeef"
        hostile.groupingKey = "00000000deadbeef"
        hostile.reason = "<script>document.body.setAttribute('data-pwned','1')</script>"
        hostile.className = "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">"
        hostile.occurrences = 500
        hostile.context?.launchID = "hostile-launch"
        try append(try line(hostile), to: fileURL)
        let set = ReportSet.load([fileURL.path]).set
        XCTAssertEqual(
            set.reports.last?.group, hostile.group, "first appearance: last (the page's script sorts it first)")

        let page = folder.appendingPathComponent("report.html")
        XCTAssertTrue(
            try tool(["html", fileURL.path, "-o", page.path]).hasPrefix(
                "wrote \(page.path): 5 reports (517 occurrences)"))
        let html = try String(contentsOf: page, encoding: .utf8)
        XCTAssertFalse(html.contains("<script>document") || html.contains("<img"), "app data is escaped")
        XCTAssertTrue(
            html.contains("&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;1&#39;)&lt;/script&gt;"))
        XCTAssertEqual(html.components(separatedBy: "<script").count, 2, "one script: the page's own")
        XCTAssertFalse(
            html.contains("http:") || html.contains("https:") || html.contains("//"), "self-contained: no URL")
        XCTAssertTrue(html.contains("Content-Security-Policy\" content=\"default-src 'none'"))

        let chromium = try headlessChromium()
        let profile = folder.appendingPathComponent("chromium-profile").path
        let common = [
            "120", chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--user-data-dir=\(profile)", "--window-size=1200,1600",
        ]
        let dump = try runProgram("/usr/bin/timeout", common + ["--dump-dom", page.absoluteString])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let dom = dump.stdout
        let groups = matches(#"<tr class="callsite" data-group="([0-9a-f|]+)""#, in: dom)
        let byCount = set.reports.enumerated().sorted {
            ($0.element.occurrences, $1.offset) > ($1.element.occurrences, $0.offset)
        }
        XCTAssertEqual(
            groups, byCount.map(\.element.group), "rows by count, most first (ties in file order), after the script ran"
        )
        XCTAssertEqual(groups.first, hostile.group)
        XCTAssertTrue(
            dom.contains(#"data-sort-column="\#(ReportHTML.countColumn)" data-sort-order="desc""#), "sortCallSites ran")
        XCTAssertTrue(dom.contains("function sortCallSites(column, descending)"))
        XCTAssertFalse(dom.contains("data-pwned=\""), "no injected code ran")
        let callers = matches(
            #"<li class="frame caller" data-caller="true"><span class="marker">▶ caller</span> <code>([^<]*)</code>"#,
            in: dom)
        XCTAssertEqual(
            callers.count, set.reports.filter { $0.callerFrameIndex != nil }.count, "one marked caller per report")
        let stormSection = try XCTUnwrap(dom.range(of: "id=\"report-\(storm.group)\""))
        let stormCaller = try XCTUnwrap(
            dom.range(of: "data-caller=\"true\"", range: stormSection.upperBound..<dom.endIndex))
        let frameText = dom[stormCaller.upperBound...].prefix(300)
        XCTAssertTrue(frameText.contains("css_test_storm_objectAtIndex"), String(frameText))

        let screenshot = folder.appendingPathComponent("report.png")
        let shot = try runProgram(
            "/usr/bin/timeout", common + ["--screenshot=\(screenshot.path)", page.absoluteString])
        XCTAssertEqual(shot.status, 0, shot.stderr)
        let evidence = FileManager.default.temporaryDirectory.appendingPathComponent("crashshield-report-html.png")
        try? FileManager.default.removeItem(at: evidence)
        try FileManager.default.copyItem(at: screenshot, to: evidence)
        print("screenshot: \(evidence.path)")
        let pixels = try decodePNG(screenshot, colour: ReportHTML.palette[0])
        XCTAssertEqual(pixels["width"], 1200)
        XCTAssertEqual(pixels["height"], 1600)
        XCTAssertGreaterThan(pixels["colours"] ?? 0, 50, "text, bars, table: not a blank page")
        XCTAssertGreaterThan(pixels["nonWhite"] ?? 0, 1200 * 1600 / 50, "more than 2% of the page drawn")
        // The container bar (517 of 518 occurrences: the chart's full height, 60 px wide) in the first colour.
        XCTAssertGreaterThan(pixels["colour"] ?? 0, 8_000, "the chart's bar is drawn: \(pixels)")
    }

    /// Issue 31 §3: what triage needs, on the page as Chromium shows it: the reason, the hint and the details (the
    /// KVC key) of a real KVC report; launches, releases and devices per call site; every frame named (the binary at
    /// hand) and Swift names demangled; the sort column marked (aria-sort and an arrow), also after a click; "1 file".
    func testHTMLPageShowsReasonHintDetailsSpreadAndEveryFrameNamed() throws {
        let real = try writeRealReports(to: fileURL)
        let storm = try XCTUnwrap(real.first { $0.occurrences == 12 })
        let store = try JSONLinesReportStore(fileURL: fileURL)
        var kvc: [CrashReport] = []
        withShield(Configuration(guards: [.kvc], sinks: [store])) { sink in
            _ = CatalogScenario.all(category: "kvc").first?.perform()
            CrashShield.flush()
            kvc = sink.reports
        }
        let key = try XCTUnwrap(kvc.first?.details["key"], "a KVC report names its key: \(kvc)")
        // The storm's call site in a second launch of another release on another device.
        var other = storm
        other.context?.launchID = "launch-two"
        other.context?.appVersion = "2.0"
        other.context?.appBuild = "7"
        other.context?.device = "iPhone15,2"
        other.occurrences = 5
        try append(try line(other), to: fileURL)

        let page = folder.appendingPathComponent("triage.html")
        XCTAssertTrue(try tool(["html", fileURL.path, "-o", page.path]).hasPrefix("wrote \(page.path): 5 reports ("))
        // Text as Chromium's DOM dump writes it: only & < > escaped.
        func domText(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let chromium = try headlessChromium()
        let common = [
            "120", chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--user-data-dir=\(folder.appendingPathComponent("chromium-profile").path)",
        ]
        let dump = try runProgram("/usr/bin/timeout", common + ["--dump-dom", page.absoluteString])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let dom = dump.stdout
        let totals = try XCTUnwrap(matches(#"<p class="totals">([^<]*)</p>"#, in: dom).first)
        XCTAssertTrue(totals.hasSuffix(" from 1 file; 0 unreadable lines"), totals)

        // The sort column: Count, descending, marked for screen readers and with an arrow; the others are not.
        let headers = matches(#"(<th [^>]*>[^<]*<span class="arrow"[^>]*>[^<]*</span></th>)"#, in: dom)
        XCTAssertEqual(headers.count, ReportHTML.columns.count)
        XCTAssertEqual(headers.filter { $0.contains(#"aria-sort="descending""#) }.count, 1, "\(headers)")
        XCTAssertTrue(headers[ReportHTML.countColumn].contains(#"aria-sort="descending">Count<span"#))
        XCTAssertTrue(headers[ReportHTML.countColumn].contains("▼</span>"), headers[ReportHTML.countColumn])
        XCTAssertEqual(headers.filter { $0.contains(#"aria-sort="none""#) }.count, ReportHTML.columns.count - 1)

        // The storm's row: its reason, 2 launches, 2 releases, 2 devices; the others 1 each.
        let row = try XCTUnwrap(
            matches(#"(<tr class="callsite" data-group="\#(storm.group)".*?</tr>)"#, in: dom).first)
        XCTAssertTrue(row.contains(domText(storm.reason)), row)
        XCTAssertTrue(row.contains(#"class="count launches" data-value="2""#), row)
        XCTAssertTrue(row.contains(#"class="count releases" data-value="2""#), row)
        XCTAssertTrue(row.contains(#"class="count devices" data-value="2""#), row)
        XCTAssertTrue(row.contains(#"<td class="count" data-value="17">"#), row)
        XCTAssertEqual(
            matches(#"class="count launches" data-value="(\d+)""#, in: dom).sorted(), ["1", "1", "1", "1", "2"])

        // The KVC report's section: reason, hint, and the key it was asked for.
        let kvcReport = try XCTUnwrap(kvc.first)
        let section = try XCTUnwrap(
            matches(#"(<section class="report" id="report-\#(kvcReport.group)".*?</section>)"#, in: dom).first)
        XCTAssertTrue(section.contains(domText(kvcReport.reason)), section)
        XCTAssertTrue(section.contains("Hint: " + domText(kvcReport.hint)), section)
        XCTAssertTrue(section.contains("<dt>detail: key</dt><dd>\(domText(key))</dd>"), section)
        XCTAssertTrue(section.contains("<dt>launches</dt><dd>1</dd>"), section)

        // Every frame of the test binary (its build is at hand) is named, not only the caller; Swift names demangled.
        let stormSection = try XCTUnwrap(
            matches(#"(<section class="report" id="report-\#(storm.group)".*?</section>)"#, in: dom).first)
        let frames = matches(
            #"<li class="frame[^"]*"[^>]*>(?:<span class="marker">[^<]*</span> )?<code>([^<]*)</code>"#,
            in: stormSection)
        XCTAssertEqual(frames.count, storm.callStack.count)
        let own = zip(frames, storm.callStack).filter { $0.1.image.hasSuffix(".xctest") }.map(\.0)
        XCTAssertGreaterThan(own.count, 5)
        for frame in own {
            XCTAssertGreaterThanOrEqual(
                frame.components(separatedBy: "  ").count, 3, "a name after the location: \(frame)")
        }
        XCTAssertFalse(stormSection.contains("$s16CrashShieldTests"), "no mangled Swift name is left")
        XCTAssertTrue(stormSection.contains("ReportToolTests.writeRealReports"), "demangled")
        XCTAssertTrue(stormSection.contains("css_test_storm_objectAtIndex"))

        // Two clicks on Method sort by it, descending then ascending, and move the mark.
        let clicked = folder.appendingPathComponent("clicked.html")
        let html = try String(contentsOf: page, encoding: .utf8)
        try Data(html.replacingOccurrences(of: "</script>", with: "sortCallSites(1); sortCallSites(1);</script>").utf8)
            .write(to: clicked)
        let after = try runProgram("/usr/bin/timeout", common + ["--dump-dom", clicked.absoluteString])
        let afterHeaders = matches(#"(<th [^>]*>[^<]*<span class="arrow"[^>]*>[^<]*</span></th>)"#, in: after.stdout)
        XCTAssertTrue(afterHeaders[1].contains(#"aria-sort="ascending">Method<span"#), "\(afterHeaders)")
        XCTAssertTrue(afterHeaders[1].contains("▲</span>"))
        XCTAssertTrue(afterHeaders[ReportHTML.countColumn].contains(#"aria-sort="none""#))
    }

    // MARK: - --guard, show, export (issue 31 §3)

    func testGuardFilterTakesTheGuardNamesInAnyCaseAndRefusesOthers() throws {
        _ = try writeRealReports(to: fileURL)
        let kvc = try tool(["summary", "--guard", "CONTAINER", fileURL.path])  // the storm, 3 calls, a scenario
        XCTAssertTrue(kvc.hasSuffix("3 reports (16 occurrences) from 1 file; 0 unreadable lines\n"), kvc)
        XCTAssertEqual(try tool(["list", "--guard", "String", fileURL.path]).split(separator: "\n").count, 1)
        XCTAssertEqual(try tool(["list", "--guard", "nsnull", fileURL.path]), "", "a guard with no reports: none")
        for unknown in ["nosuch", "nsnul", ""] {
            let run = try runProgram(toolPath, ["summary", "--guard", unknown, fileURL.path])
            XCTAssertNotEqual(run.status, 0, "--guard '\(unknown)'")
            XCTAssertEqual(run.stdout, "")
            XCTAssertTrue(
                run.stderr.contains(
                    "--guard '\(unknown)' is no guard; the guards are: container, string, unrecognizedSelector, nsNull, kvc,"
                ), run.stderr)
        }
    }

    func testShowOpensAnEarlierBuildsSignatureAndNamesTheGroupAndAStaticCaller() throws {
        // A caller the device could not name (a static function of a stripped app: no symbol on any frame) ...
        var report = try oneRealReportFromTheStore()
        report.callerFunction = nil
        for index in report.callStack.indices { report.callStack[index].symbol = nil }
        // ... reported by an earlier build too: another signature, the same group.
        var earlier = report
        earlier.signature = "0123456789abcdef"
        earlier.context?.launchID = "earlier-build"
        earlier.context?.appBuild = "6"
        earlier.lastSeen = report.firstSeen.addingTimeInterval(-3600)
        earlier.firstSeen = earlier.lastSeen
        let file = folder.appendingPathComponent("builds.jsonl")
        try Data((try line(earlier) + line(report)).utf8).write(to: file)
        XCTAssertEqual(ReportSet.load([file.path]).set.reports.map(\.signature), [report.signature], "one group")

        let shown = try tool(["show", "0123456789abcdef", file.path])
        let fields = shown.split(separator: "\n").map(String.init)
        XCTAssertTrue(fields.contains { $0.hasPrefix("  signature ") && $0.hasSuffix(report.signature) }, shown)
        XCTAssertTrue(fields.contains { $0.hasPrefix("  group ") && $0.hasSuffix(report.group) }, shown)
        let callSite = try XCTUnwrap(fields.first { $0.hasPrefix("  call site") }, shown)
        XCTAssertTrue(callSite.contains("css_test_call_objectAtIndex ("), callSite)
        let marked = try XCTUnwrap(fields.first { $0.hasPrefix(" > ") }, shown)
        XCTAssertTrue(marked.contains("css_test_call_objectAtIndex"), marked)
        XCTAssertFalse(try tool(["show", "--json", "0123456789ab", file.path]).isEmpty, "a prefix of it too")
    }

    /// The names `crashshield-report` gives call sites the device did not name.
    func callerNames(_ set: ReportSet) -> [String: String] {
        var names: [String: String] = [:]
        for report in set.reports where report.callerFunction == nil {
            names[report.group] = Symbolicator().callerName(report)
        }
        return names
    }

    private func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }

    /// Debian's chromium, installed with apt-get when missing (as root, as CI runs); a clear failure otherwise.
    private func headlessChromium() throws -> String {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        if let found = candidates.first(where: FileManager.default.isExecutableFile) { return found }
        if getuid() == 0 {
            _ = try runProgram("/usr/bin/apt-get", ["update", "-qq"])
            _ = try runProgram(
                "/usr/bin/env", ["DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "chromium"])
        }
        guard let found = candidates.first(where: FileManager.default.isExecutableFile) else {
            XCTFail(
                "chromium is not installed and could not be installed (apt-get install chromium, or scripts/install-deps.sh as root): the html page cannot be checked in a browser"
            )
            throw XCTSkip("no browser")  // already failed above
        }
        return found
    }

    /// Decodes an 8-bit RGB(A) PNG with Python's zlib (filters undone row by row): width, height, distinct colours,
    /// pixels not white, and pixels of exactly `colour` (#rrggbb).
    private func decodePNG(_ url: URL, colour: String) throws -> [String: Int] {
        let script = #"""
            import json, struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
            pos, idat = 8, b''
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                chunk = data[pos + 8:pos + 8 + length]
                pos += 12 + length
                if kind == b'IHDR':
                    width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', chunk)
                elif kind == b'IDAT':
                    idat += chunk
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
            raw = zlib.decompress(idat)
            stride = width * bpp
            target = bytes.fromhex(sys.argv[2].lstrip('#'))
            prev = bytearray(stride)
            colours, nonwhite, hits, i = set(), 0, 0, 0
            for y in range(height):
                kind = raw[i]
                line = bytearray(raw[i + 1:i + 1 + stride])
                i += 1 + stride
                if kind == 1:
                    for x in range(bpp, stride): line[x] = (line[x] + line[x - bpp]) & 255
                elif kind == 2:
                    for x in range(stride): line[x] = (line[x] + prev[x]) & 255
                elif kind == 3:
                    for x in range(stride):
                        a = line[x - bpp] if x >= bpp else 0
                        line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
                elif kind == 4:
                    for x in range(stride):
                        a = line[x - bpp] if x >= bpp else 0
                        b = prev[x]
                        c = prev[x - bpp] if x >= bpp else 0
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                for x in range(0, stride, bpp):
                    pixel = bytes(line[x:x + 3])
                    colours.add(pixel)
                    if pixel != b'\xff\xff\xff': nonwhite += 1
                    if pixel == target: hits += 1
                prev = line
            print(json.dumps({'width': width, 'height': height, 'colours': len(colours), 'nonWhite': nonwhite, 'colour': hits}))
            """#
        let run = try runProgram("/usr/bin/python3", ["-c", script, url.path, colour])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try JSONDecoder().decode([String: Int].self, from: Data(run.stdout.utf8))
    }
}
#endif
