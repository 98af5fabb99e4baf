@testable import CrashShield
import CrashShieldMatrix
import CrashShieldReportTool
import CrashShieldScenarios
import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// `crashshield-report` and its library, on files written by the real store from reports of real stopped crashes.
final class ReportToolTests: ShieldTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ReportToolTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    var fileURL: URL { folder.appendingPathComponent("reports.jsonl") }

    /// Real bad calls, stopped by the container and string guards, written by `JSONLinesReportStore`: 12 at one call
    /// site (lines at 1, 10 and on flush), 3 at another, and one catalog scenario of each guard (fewer than the 20
    /// detailed captures a second per guard/class/selector, past which occurrences count for the last call site).
    /// Returns the reports as the pipeline counted them (latest count per signature).
    @discardableResult
    func writeRealReports(to url: URL) throws -> [CrashReport] {
        let store = try JSONLinesReportStore(fileURL: url)
        var reports: [CrashReport] = []
        withShield(Configuration(guards: [.container, .string], sinks: [store])) { sink in
            withAutoreleasePool {
                _ = css_test_storm_objectAtIndex(12)
                for _ in 0..<3 { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            }
            for category in ["container", "string"] { _ = CatalogScenario.all(category: category).first?.perform() }
            CrashShield.flush()
            reports = sink.reports
        }
        XCTAssertEqual(store.writeFailures, 0)
        XCTAssertEqual(reports.count, 4, "\(reports.map(\.method))")
        return reports
    }

    private func lines(of url: URL) throws -> [String] {
        try String(decoding: Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func append(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        handle.closeFile()
    }

    /// The real file with a corrupt line 2, a line 3 that is JSON but no report, and a torn last line.
    private func damage(_ url: URL) throws -> (corrupt: Int, notAReport: Int, torn: Int) {
        var text = try lines(of: url)
        XCTAssertGreaterThanOrEqual(text.count, 5)
        text.insert(String(text[1].prefix(text[1].count / 2)) + "#garbage", at: 1)
        text.insert(#"{"hello":"world"}"#, at: 2)
        try Data((text.joined(separator: "\n") + "\n" + text[0].prefix(60)).utf8).write(to: url)
        return (2, 3, text.count + 1)
    }

    // MARK: - summary

    func testSummaryOfATornAndCorruptFileShowsTheGoodReportsAndNamesEachBadLine() throws {
        let expected = try writeRealReports(to: fileURL)
        let bad = try damage(fileURL)
        let (set, errors) = ReportSet.load([fileURL.path])
        XCTAssertEqual(errors, [])

        XCTAssertEqual(set.badLines.map(\.number), [bad.corrupt, bad.notAReport, bad.torn])
        XCTAssertEqual(set.badLines.map(\.isTorn), [false, false, true])
        XCTAssertTrue(set.badLines[1].problem.contains("missing field"), set.badLines[1].problem)
        XCTAssertEqual(set.reports.map(\.signature), expected.map(\.signature))
        XCTAssertEqual(set.reports.map(\.occurrences), expected.map(\.occurrences), "the latest count of each report")
        XCTAssertEqual(set.reports.map(\.occurrences).sorted(), [1, 1, 3, 12])
        // The store's own reader agrees on the reports and the bad lines.
        let stored = try JSONLinesReportStore(fileURL: fileURL).load()
        XCTAssertEqual(stored.reports, set.reports)
        XCTAssertEqual(stored.warnings.map { String($0.split(separator: " ")[1]) }, set.badLines.map { "\($0.number)" })

        let text = ReportText.summary(set)
        let output = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(output.last, "4 reports (17 occurrences) from 1 file; 3 unreadable lines")
        XCTAssertTrue(output[0].hasPrefix("GUARD"), output[0])
        let storm = try XCTUnwrap(expected.first { $0.occurrences == 12 })
        XCTAssertTrue(
            output[1].hasPrefix("container  \(storm.appFacingMethod)"), "most occurrences first: \(output[1])")
        XCTAssertTrue(output[1].contains("css_test_storm_objectAtIndex") && output[1].contains(" 12  "), output[1])
        XCTAssertTrue(output[1].hasSuffix(storm.group), "one row per group (Docs/Reports.md, Grouping): \(output[1])")
        XCTAssertTrue(output.contains { $0.hasPrefix("\(fileURL.path): line 2: not a valid crash report (") }, text)
        XCTAssertTrue(
            output.contains("\(fileURL.path): line 3: not a valid crash report (missing field 'signature')"), text)
        XCTAssertTrue(
            output.contains(
                "\(fileURL.path): line \(bad.torn): incomplete last line (the process was probably stopped while writing it)"
            ), text)

        // The real command prints the same, its last line exactly.
        let run = try runProgram(toolPath, ["summary", fileURL.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(
            run.stdout, ReportText.summary(set, callerNames: callerNames(set)),
            "the same, with call sites the device did not name named from this binary")
    }

    /// Two processes (two launches) reporting the same call site add up; two copies of one launch's file do not.
    func testSummaryAddsLaunchesAndCountsCopiesOfOneLaunchOnce() throws {
        let expected = try writeRealReports(to: fileURL)
        let copy = folder.appendingPathComponent("copy.jsonl")
        try FileManager.default.copyItem(at: fileURL, to: copy)
        let both = ReportSet.load([fileURL.path, copy.path]).set
        XCTAssertEqual(ReportText.summaryLine(both), "4 reports (17 occurrences) from 2 files; 0 unreadable lines")
        XCTAssertEqual(both.reports.map(\.occurrences), expected.map(\.occurrences))

        // Two child processes stop the same bad call: same signature, two launch IDs.
        let launches = try (1...2).map { index -> URL in
            let run = try runProgram(matrixPath, ["child", "array.objectAtIndex.beyondEnd", "--protected"])
            let report = try XCTUnwrap(
                ChildOutcome(ending: .exited(run.status), stdout: run.stdout, stderr: "").reports.first)
            let url = folder.appendingPathComponent("launch\(index).jsonl")
            try Data(CrashReport.makeJSONEncoder().encode(report) + Data("\n".utf8)).write(to: url)
            return url
        }
        let children = ReportSet.load(launches.map(\.path)).set
        XCTAssertEqual(children.reports.count, 1)
        XCTAssertEqual(children.reports.first?.occurrences, 2)
        XCTAssertEqual(ReportText.summaryLine(children), "1 report (2 occurrences) from 2 files; 0 unreadable lines")

        let missing = folder.appendingPathComponent("missing.jsonl").path
        let run = try runProgram(toolPath, ["summary", fileURL.path, missing])
        XCTAssertEqual(run.status, 1, "a file that cannot be read fails the command")
        XCTAssertTrue(run.stderr.contains("cannot read '\(missing)'"), run.stderr)
        XCTAssertTrue(run.stdout.hasSuffix("4 reports (17 occurrences) from 1 file; 0 unreadable lines\n"), run.stdout)
    }

    // MARK: - show

    func testShowPrintsOneReportInFullWithTheCallerMarked() throws {
        let expected = try writeRealReports(to: fileURL)
        _ = try damage(fileURL)
        let set = ReportSet.load([fileURL.path]).set
        let storm = try XCTUnwrap(expected.first { $0.occurrences == 12 })
        XCTAssertEqual(try set.report(matching: String(storm.signature.prefix(10))).signature, storm.signature)
        XCTAssertThrowsError(try set.report(matching: "")) {
            XCTAssertEqual(($0 as? ReportLookupError)?.candidates.count, 4)
        }
        XCTAssertThrowsError(try set.report(matching: "zz")) {
            XCTAssertEqual(($0 as? ReportLookupError)?.candidates, [])
        }

        let text = ReportText.show(try set.report(matching: storm.signature))
        let output = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(output.first, storm.method)
        for field in [
            "signature", "guard", "exception", "reason", "action", "hint", "occurrences", "first seen",
            "last seen", "thread", "app", "os", "device", "crashshield", "launch",
        ] {
            XCTAssertTrue(output.contains { $0.hasPrefix("  \(field) ") }, "\(field) missing:\n\(text)")
        }
        XCTAssertTrue(text.contains(storm.reason))
        XCTAssertTrue(text.contains("occurrences  12"), text)
        let frames = output.filter { $0.hasPrefix("   #") || $0.hasPrefix(" > #") }
        XCTAssertEqual(frames.count, storm.callStack.count, "every frame")
        let caller = try XCTUnwrap(storm.callerFrameIndex)
        XCTAssertEqual(frames.firstIndex { $0.hasPrefix(" > ") }, caller, "the caller, and only it, is marked")
        XCTAssertEqual(frames.filter { $0.hasPrefix(" > ") }.count, 1)
        XCTAssertTrue(frames[caller].contains("css_test_storm_objectAtIndex"), frames[caller])
        XCTAssertTrue(output.contains("images:"))

        let run = try runProgram(toolPath, ["show", String(storm.signature.prefix(8)), fileURL.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, text)
        XCTAssertTrue(
            run.stderr.contains(": line 2: not a valid crash report"), "bad lines go to stderr: \(run.stderr)")
    }

    // MARK: - export

    func testExportJSONReadsBackAndCSVIsReadByPythonsCSVModule() throws {
        try writeRealReports(to: fileURL)
        // One report whose text needs CSV quoting: a comma, a quote, a line break.
        var odd = try XCTUnwrap(ReportSet.load([fileURL.path]).set.reports.first)
        odd.signature = "00000000feedface"
        odd.reason = "a, \"quoted\"\nsecond line"
        try append(String(decoding: try CrashReport.makeJSONEncoder().encode(odd), as: UTF8.self) + "\n", to: fileURL)
        let set = ReportSet.load([fileURL.path]).set

        // Sorted as `summary` sorts: most occurrences first, then the most recent.
        let json = try ReportText.export(set, as: .json)
        XCTAssertEqual(
            try CrashReport.makeJSONDecoder().decode([CrashReport].self, from: Data(json.utf8)), set.ranked())
        XCTAssertNotEqual(set.ranked().map(\.group), set.reports.map(\.group), "file order is not summary's order")

        let csv = try ReportText.export(set, as: .csv)
        let csvURL = folder.appendingPathComponent("reports.csv")
        try Data(csv.utf8).write(to: csvURL)
        let script = "import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='')))))"
        let parsed = try runProgram("/usr/bin/python3", ["-c", script, csvURL.path])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [[String]])
        XCTAssertEqual(rows.count, set.reports.count + 1)
        let header = rows[0]
        XCTAssertEqual(Array(header.prefix(2)), ["signature", "group"])
        for (row, report) in zip(rows.dropFirst(), set.ranked()) {
            guard row.count == header.count else { XCTFail("row of \(row.count) fields: \(row)"); continue }
            let field = { (name: String) in row[header.firstIndex(of: name)!] }
            XCTAssertEqual(field("signature"), report.signature)
            XCTAssertEqual(field("group"), report.group)
            // The declaring class, as summary shows it (-[NSArray objectAtIndex:]), not the cluster member.
            XCTAssertEqual(field("method"), "'" + report.appFacingMethod, "a cell starting with - could be a formula")
            XCTAssertEqual(field("class"), report.className)
            XCTAssertNotEqual(report.appFacingMethod, report.method, "a class-cluster member ran it")
            XCTAssertEqual(field("reason"), report.reason)
            XCTAssertEqual(field("occurrences"), String(report.occurrences))
            XCTAssertEqual(field("launch id"), report.context?.launchID)
            XCTAssertEqual(field("device"), report.context?.device)
        }

        let run = try runProgram(toolPath, ["export", "--format", "csv", fileURL.path])
        XCTAssertEqual(run.stdout, csv)
    }

    // MARK: - symbolicate

    /// `css_test_call_objectAtIndex` (in this test binary) makes one bad call; the store writes it; the tool reads it.
    func oneRealReportFromTheStore() throws -> CrashReport {
        let store = try JSONLinesReportStore(fileURL: fileURL)
        withShield(Configuration(guards: .container, sinks: [store])) { _ in
            withAutoreleasePool { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
        }
        return try XCTUnwrap(ReportSet.load([fileURL.path]).set.reports.first)
    }

    /// A real report from this test binary: the caller's return address resolves, through llvm-symbolizer and
    /// through addr2line, to the C function that made the bad call, and a Swift frame to its demangled name.
    func testSymbolicateResolvesRealFramesOfThisBuildToTheirFunctions() throws {
        try skipUnlessLinux("llvm-symbolizer and addr2line on this ELF test binary (Mach-O reports get atos commands)")
        // The line of the bad call in css_test_call_objectAtIndex, read from the source (it moves when the file does).
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CrashShieldScenarios/CSSTestSupport.m")
        let lines = try String(contentsOf: source, encoding: .utf8).components(separatedBy: "\n")
        let function = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("void *css_test_call_objectAtIndex(") })
        let callLine = "CSSTestSupport.m:\(function + 2)"  // the next line, 1-based
        XCTAssertTrue(lines[function + 1].contains("objectAtIndex: index"), lines[function + 1])
        let report = try oneRealReportFromTheStore()
        let caller = try XCTUnwrap(report.callerFrameIndex)
        XCTAssertNotEqual(report.callStack[caller].image, "?")

        let installed = SymbolTools.installed()
        XCTAssertEqual(installed.elfSymbolizer?.isLLVM, true, "llvm-symbolizer is installed here")
        XCTAssertNotNil(installed.swiftDemangle, "swift-demangle is installed here")
        for tools in [installed, SymbolTools.installed(symbolizer: "addr2line")] {
            let result = Symbolicator(tools: tools).symbolicate(report)
            let name = try XCTUnwrap(result.names[caller], "\(tools.elfSymbolizer!.path): \(result.notes)")
            XCTAssertTrue(
                name.hasPrefix("css_test_call_objectAtIndex (") && name.contains(callLine),
                "\(tools.elfSymbolizer!.path): \(name)")
            XCTAssertTrue(
                result.names.values.contains {
                    $0.hasPrefix("CrashShieldTests.ReportToolTests.testSymbolicateResolves")
                },
                "the test method's frame, demangled: \(result.names.values.sorted())")
        }
        var withoutContext = report
        withoutContext.context = nil
        XCTAssertTrue(
            Symbolicator().symbolicate(withoutContext).names[caller]?.hasPrefix("css_test_call_objectAtIndex") == true,
            "a report written before the context existed: the load address stands for the slide (PIE)")

        let run = try runProgram(toolPath, ["symbolicate", "--signature", report.signature, fileURL.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.stdout.split(separator: "\n").first { $0.hasPrefix(" > #\(caller)") })
        XCTAssertTrue(line.contains("css_test_call_objectAtIndex (") && line.contains(callLine), String(line))
    }

    /// Mach-O frames (with an image UUID): one atos command per image, with its load address, the frames' addresses,
    /// UUID and slide. atos is not installed here, so it is printed, not run.
    /// Symbols come from the build that ran, matched by GNU build ID: a rebuilt binary at the recorded path is refused
    /// with a note (its frames stay raw), and the right build is found in a search path, by name or by ID alone.
    func testSymbolicateMatchesBinariesByBuildIDAndRefusesARebuild() throws {
        try skipUnlessLinux(
            "GNU build IDs of ELF files (Mach-O: testBinaryIdentityReadsMachOUUIDsOfThinAndUniversalFiles)")
        let report = try oneRealReportFromTheStore()
        let caller = try XCTUnwrap(report.callerFrameIndex)
        let real = report.callStack[caller].image
        let image = try XCTUnwrap(report.context?.image(for: report.callStack[caller]))
        let id = try XCTUnwrap(image.buildID, "the context records the test binary's build ID")
        XCTAssertEqual(BinaryIdentity.read(real)?.buildID, id, "read from the file as from memory")

        // "A rebuild": another binary (another build ID) at the path the report names.
        let rebuilt = folder.appendingPathComponent("rebuilt", isDirectory: true)
        try FileManager.default.createDirectory(at: rebuilt, withIntermediateDirectories: true)
        let name = (real as NSString).lastPathComponent
        let moved = rebuilt.appendingPathComponent(name).path
        try FileManager.default.createSymbolicLink(atPath: moved, withDestinationPath: toolPath)
        XCTAssertNotEqual(BinaryIdentity.read(moved)?.buildID, id)
        var stale = report
        stale.callStack = report.callStack.map { frame in
            var frame = frame
            if frame.image == real { frame.image = moved }
            return frame
        }
        stale.context?.images = report.context!.images.map { image in
            var image = image
            if image.path == real { image.path = moved }
            return image
        }

        let refused = Symbolicator().symbolicate(stale)
        XCTAssertNil(refused.names[caller], "no symbol from another build: \(refused.names[caller] ?? "")")
        XCTAssertTrue(
            refused.notes.contains { $0.contains("no binary with build ID \(id)") && $0.contains("refused") },
            "\(refused.notes)")

        let byName = folder.appendingPathComponent("symbols-by-name", isDirectory: true)
        try FileManager.default.createDirectory(at: byName, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: byName.appendingPathComponent(name).path, withDestinationPath: real)
        let found = Symbolicator(searchPaths: [byName.path]).symbolicate(stale)
        XCTAssertTrue(found.names[caller]?.hasPrefix("css_test_call_objectAtIndex") == true, "\(found.notes)")

        let byID = folder.appendingPathComponent("symbols-by-id", isDirectory: true)
        try FileManager.default.createDirectory(at: byID, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: byID.appendingPathComponent("renamed").path, withDestinationPath: real)
        let foundByID = Symbolicator(searchPaths: [byID.path]).symbolicate(stale)
        XCTAssertTrue(foundByID.names[caller]?.hasPrefix("css_test_call_objectAtIndex") == true, "\(foundByID.notes)")

        var old = stale
        old.context = nil
        let unverified = Symbolicator().symbolicate(old)
        XCTAssertTrue(unverified.notes.contains { $0.contains("records no build ID") }, "\(unverified.notes)")
    }

    /// Mach-O identities as the linker writes them: a thin 64-bit file's LC_UUID, and each slice of a universal file.
    func testBinaryIdentityReadsMachOUUIDsOfThinAndUniversalFiles() throws {
        func thin(_ uuid: [UInt8]) -> Data {
            var data = Data()
            func le(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
            le(0xFEEDFACF); le(0x0100000C); le(0); le(2); le(2); le(16 + 24); le(0); le(0)  // header, 2 commands
            le(0x19); le(16); le(0); le(0)  // a command to skip
            le(0x1B); le(24); data.append(contentsOf: uuid)  // LC_UUID
            return data
        }
        let a = Array(0..<16).map(UInt8.init), b = Array(16..<32).map(UInt8.init)
        let thinURL = folder.appendingPathComponent("thin")
        try thin(a).write(to: thinURL)
        XCTAssertEqual(BinaryIdentity.read(thinURL.path)?.uuids, ["000102030405060708090A0B0C0D0E0F"])

        var fat = Data()
        func be(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { fat.append(contentsOf: $0) } }
        be(0xCAFEBABE); be(2)
        be(0x0100000C); be(0); be(64); be(UInt32(thin(a).count)); be(3)
        be(0x01000007); be(3); be(256); be(UInt32(thin(b).count)); be(3)
        fat.append(Data(count: 64 - fat.count)); fat.append(thin(a))
        fat.append(Data(count: 256 - fat.count)); fat.append(thin(b))
        let fatURL = folder.appendingPathComponent("fat")
        try fat.write(to: fatURL)
        XCTAssertEqual(
            BinaryIdentity.read(fatURL.path)?.uuids,
            ["000102030405060708090A0B0C0D0E0F", "101112131415161718191A1B1C1D1E1F"])
        XCTAssertNil(BinaryIdentity.read(fileURL.path), "a text file is no binary")
    }

    func testSymbolicatePrintsAnAtosCommandPerImageForAppleReports() throws {
        var report = try oneRealReportFromTheStore()
        let caller = try XCTUnwrap(report.callerFrameIndex)
        let binary = report.callStack[caller].image
        let uuid = "0123456789ABCDEF0123456789ABCDEF"
        for index in report.callStack.indices where report.callStack[index].image == binary {
            report.callStack[index].imageUUID = uuid
            report.callStack[index].slide = 0x4000
        }
        for index in try XCTUnwrap(report.context).images.indices where report.context!.images[index].path == binary {
            report.context!.images[index].uuid = uuid
            report.context!.images[index].slide = 0x4000
            report.context!.images[index].buildID = nil
        }
        let tools = SymbolTools.installed()
        XCTAssertNil(tools.atos)
        let result = Symbolicator(tools: tools).symbolicate(report)
        let frames = report.callStack.filter { $0.image == binary }
        let expected =
            "atos -o \(binary) -l 0x\(String(frames[0].imageBase, radix: 16)) "
            + frames.map { "0x" + String($0.address, radix: 16) }.joined(separator: " ")
            + "   # \((binary as NSString).lastPathComponent) uuid \(uuid) slide 0x4000 (image not here: use its dSYM)"
        XCTAssertEqual(result.atosCommands, [expected], "the ELF file at the path has no such UUID: not that build")
        XCTAssertTrue(result.notes.contains { $0.contains("no binary with UUID \(uuid)") }, "\(result.notes)")
        XCTAssertNil(result.names[caller], "not run without atos")
    }

    // MARK: - follow

    func testFollowReadsAppendedLinesWaitsForATornLineAndSurvivesARewrite() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL)
        let reports = try writeRealReports(to: fileURL)
        let follower = ReportFollower(paths: [fileURL.path])
        let initial = follower.poll()
        XCTAssertEqual(initial.count, try lines(of: fileURL).count, "one line per report line")
        XCTAssertEqual(follower.poll(), [], "nothing new")

        var update = reports[0]
        update.occurrences = 100
        store.receive(update)
        let next = follower.poll()
        XCTAssertEqual(next.count, 1)
        XCTAssertTrue(next[0].contains("count 100") && next[0].hasSuffix(update.signature), next[0])
        XCTAssertEqual(follower.set.reports.first?.occurrences, 100)

        try append(#"{"action":"recov"#, to: fileURL)  // a process killed mid-write
        XCTAssertEqual(follower.poll(), [], "an unterminated line waits")
        let lineCount = try lines(of: fileURL).count
        store.receive(reports[1])  // the store starts a new line after the torn one
        let afterTorn = follower.poll()
        XCTAssertEqual(afterTorn.count, 2, "\(afterTorn)")
        XCTAssertTrue(
            afterTorn.contains { $0.hasPrefix("\(fileURL.path): line \(lineCount): not a valid crash report") },
            "\(afterTorn)")

        try store.removeAll()
        store.receive(reports[2])
        let rewritten = follower.poll()
        XCTAssertEqual(
            rewritten.first, "\(fileURL.path): the file was rewritten (compacted or removed); reading it again")
        XCTAssertTrue(rewritten.last?.hasPrefix("\(fileURL.path):1: ") == true, "\(rewritten)")

        let started = Date()
        var seen: [String] = []
        follower.run(interval: 0.05, until: started.addingTimeInterval(0.3)) { seen.append($0) }
        XCTAssertEqual(seen, [])
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "bounded")
    }

    /// The command: `summary --follow --for S` prints the summary, then what is appended, and stops.
    func testFollowCommandPrintsAppendedReportsAndStops() throws {
        let reports = try writeRealReports(to: fileURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: toolPath)
        process.arguments = ["summary", "--follow", "--interval", "0.1", "--for", "3", fileURL.path]
        let output = Pipe()
        process.standardOutput = output
        let started = Date()
        try process.run()
        Thread.sleep(forTimeInterval: 0.5)
        var update = reports[1]
        update.occurrences = 1000
        try JSONLinesReportStore(fileURL: fileURL).receive(update)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertTrue(text.contains("from 1 file; 0 unreadable lines\n"), text)
        XCTAssertTrue(text.contains("count 1000  \(update.signature)") || text.contains(" 1000  "), text)
    }

    // MARK: - helpers

    var toolPath: String { productPath("crashshield-report") }
    private var matrixPath: String { productPath("crashshield-matrix") }
}
#endif
