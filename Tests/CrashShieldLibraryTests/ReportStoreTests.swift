@testable import CrashShield
import Foundation
import InMemoryLogging
import Logging
import XCTest

final class ReportStoreTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ReportStoreTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private var fileURL: URL { folder.appendingPathComponent("reports.jsonl") }

    /// Dates with whole milliseconds: the file keeps millisecond precision.
    private func makeReport(
        _ n: Int, occurrences: Int = 1, action: CrashReport.Action = .recovered, frames: Int = 3
    ) -> CrashReport {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let stack = (0..<frames).map {
            StackFrame(
                address: 0x40_1000 + UInt64($0) * 16, image: "/usr/lib/libapp.so", imageBase: 0x40_0000,
                symbol: $0 == 0 ? "_$s3App5startyyF" : nil)
        }
        return CrashReport(
            signature: "container|GSInlineArray|objectAtIndex:|caller-\(n)", category: .container,
            exceptionName: "NSRangeException", reason: "Index 5 is out of range 2 (in 'objectAtIndex:')",
            className: "GSInlineArray", selector: "objectAtIndex:", isClassMethod: false,
            hint: "check the index against count before calling objectAtIndex:", action: action,
            details: ["index": "5", "count": "2", "note": "line one\nline two"],
            thread: ThreadInfo(id: 42, name: "worker", isMain: false), callStack: stack,
            callerFrameIndex: frames > 1 ? 1 : nil,
            firstSeen: base.addingTimeInterval(Double(n)), lastSeen: base.addingTimeInterval(Double(n) + 0.25),
            occurrences: occurrences)
    }

    private func lines(_ url: URL) throws -> [String] {
        try String(decoding: Data(contentsOf: url), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func assertEveryLineIsJSON(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        for (index, text) in try lines(url).enumerated() {
            XCTAssertNoThrow(
                try JSONSerialization.jsonObject(with: Data(text.utf8)),
                "line \(index + 1) is not JSON", file: file, line: line)
        }
    }

    // MARK: - Round trip and coalescing

    func testRoundTripThroughANewStoreInstance() throws {
        let reports = (0..<3).map { makeReport($0) } + [makeReport(3, action: .failedLoudly, frames: 0)]
        let store = try JSONLinesReportStore(fileURL: fileURL)
        reports.forEach(store.receive)
        XCTAssertEqual(store.writeFailures, 0)

        let reopened = try JSONLinesReportStore(fileURL: fileURL)
        let loaded = try reopened.load()
        XCTAssertEqual(loaded.reports, reports)
        XCTAssertEqual(loaded.warnings, [])

        let text = try lines(fileURL)
        XCTAssertEqual(text.count, 4, "one line per delivery; embedded newlines are escaped")
        XCTAssertTrue(text[0].contains("\"firstSeen\":\"2023-11-14T22:13:20.000Z\""), text[0])
        XCTAssertLessThan(
            text[0].range(of: "\"action\"")!.lowerBound, text[0].range(of: "\"category\"")!.lowerBound,
            "keys are sorted")
    }

    func testCoalescesBySignatureLatestWinsInFirstSeenOrder() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL)
        store.receive(makeReport(1, occurrences: 1))
        store.receive(makeReport(2, occurrences: 1))
        store.receive(makeReport(1, occurrences: 10))
        let loaded = try store.load()
        XCTAssertEqual(loaded.reports.map(\.signature), [makeReport(1).signature, makeReport(2).signature])
        XCTAssertEqual(loaded.reports.map(\.occurrences), [10, 1])
        XCTAssertEqual(try lines(fileURL).count, 3)
    }

    func testMissingFileLoadsAsEmptyAndRemoveAll() throws {
        let store = try JSONLinesReportStore(fileURL: folder.appendingPathComponent("sub/dir/reports.jsonl"))
        XCTAssertEqual(try store.load(), JSONLinesReportStore.Contents(reports: [], warnings: []))
        store.receive(makeReport(1))
        XCTAssertEqual(try store.load().reports.count, 1)
        try store.removeAll()
        XCTAssertEqual(try store.load().reports, [])
        try store.removeAll()
        store.receive(makeReport(2))
        XCTAssertEqual(try store.load().reports, [makeReport(2)])
    }

    // MARK: - Damaged files

    func testTornLastLineIsSkippedWithAWarningAndTheNextAppendIsValid() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL)
        store.receive(makeReport(1))
        store.receive(makeReport(2))
        let handle = try FileHandle(forWritingTo: fileURL)
        handle.seekToEndOfFile()
        handle.write(Data(#"{"action":"recovered","callStack":[{"addr"#.utf8))
        handle.closeFile()

        let loaded = try store.load()
        XCTAssertEqual(loaded.reports, [makeReport(1), makeReport(2)])
        XCTAssertEqual(loaded.warnings.count, 1)
        XCTAssertTrue(loaded.warnings[0].contains("line 3"), loaded.warnings[0])

        store.receive(makeReport(3))
        let after = try JSONLinesReportStore(fileURL: fileURL).load()
        XCTAssertEqual(after.reports, [makeReport(1), makeReport(2), makeReport(3)])
        XCTAssertEqual(after.warnings.count, 1, "the torn line stays a skipped line of its own")
        XCTAssertTrue(after.warnings[0].contains("line 3"), after.warnings[0])
    }

    func testTornFirstWriteLoadsAsEmptyWithAWarning() throws {
        try Data(#"{"action":"recov"#.utf8).write(to: fileURL)
        let store = try JSONLinesReportStore(fileURL: fileURL)
        let loaded = try store.load()
        XCTAssertEqual(loaded.reports, [])
        XCTAssertEqual(loaded.warnings.count, 1)
        store.receive(makeReport(1))
        XCTAssertEqual(try store.load().reports, [makeReport(1)])
    }

    func testCorruptMiddleLineIsSkippedWithItsLineNumber() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL)
        store.receive(makeReport(1))
        let handle = try FileHandle(forWritingTo: fileURL)
        handle.seekToEndOfFile()
        handle.write(Data("this is not json\n".utf8))
        handle.closeFile()
        store.receive(makeReport(2))

        let loaded = try store.load()
        XCTAssertEqual(loaded.reports, [makeReport(1), makeReport(2)])
        XCTAssertEqual(loaded.warnings.count, 1)
        XCTAssertTrue(loaded.warnings[0].contains("line 2"), loaded.warnings[0])
    }

    func testFullyCorruptFileThrowsUnreadableAndIsLeftUnchanged() throws {
        let garbage = Data("garbage line one\n{\"not\":\"a report\"}\n\u{0}\u{1}binary\n".utf8)
        try garbage.write(to: fileURL)
        let store = try JSONLinesReportStore(fileURL: fileURL)
        XCTAssertThrowsError(try store.load()) { error in
            guard case ReportStoreError.unreadable(let path, let reason)? = error as? ReportStoreError else {
                return XCTFail("expected .unreadable, got \(error)")
            }
            XCTAssertEqual(path, self.fileURL.path)
            XCTAssertFalse(reason.isEmpty)
            XCTAssertTrue("\(error)".contains("left unchanged"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: fileURL), garbage)
    }

    // MARK: - Size cap

    func testSizeCapKeepsTheNewestReportsAndEveryLineValid() throws {
        let maxBytes = 8192
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: maxBytes)
        for n in 0..<200 {
            store.receive(makeReport(n))
            let size = try Data(contentsOf: fileURL).count
            XCTAssertLessThanOrEqual(size, maxBytes, "after report \(n)")
        }
        XCTAssertEqual(store.writeFailures, 0)
        XCTAssertGreaterThan(store.compactionCount, 0)
        try assertEveryLineIsJSON(fileURL)

        let loaded = try store.load()
        XCTAssertEqual(loaded.warnings, [])
        XCTAssertEqual(loaded.reports.last, makeReport(199))
        let kept = Set(loaded.reports.map(\.signature))
        XCTAssertFalse(kept.contains(makeReport(0).signature), "the oldest reports are dropped")
        // The reports kept are the newest ones, contiguous.
        let numbers = loaded.reports.map { Int($0.signature.split(separator: "-").last!)! }.sorted()
        XCTAssertEqual(numbers, Array(numbers.first!...199))
        XCTAssertGreaterThan(numbers.count, 3)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".compacting")
        }
        XCTAssertEqual(leftovers, [])
    }

    func testCompactionCoalescesCountUpdates() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: 4096)
        var count = 1
        while store.compactionCount == 0 {
            store.receive(makeReport(7, occurrences: count))
            count += 1
            XCTAssertLessThan(count, 1000)
        }
        store.receive(makeReport(8))
        let loaded = try store.load()
        XCTAssertEqual(loaded.reports.map(\.occurrences), [count - 1, 1])
        XCTAssertEqual(try lines(fileURL).count, 3, "the compacted line, the newest update, and report 8")
    }

    func testCompactingAnUnreadableFileMovesItAsideInsteadOfDeletingIt() throws {
        let garbage = Data(String(repeating: "not a report\n", count: 400).utf8)
        try garbage.write(to: fileURL)
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(
            fileURL: fileURL, maxBytes: 4096, logger: Logger(label: "test") { _ in logs })
        store.receive(makeReport(1))
        XCTAssertEqual(store.writeFailures, 0)
        XCTAssertEqual(logs.entries.map(\.level), [.warning])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: fileURL.path + ".unreadable")), garbage)
        XCTAssertEqual(try store.load(), JSONLinesReportStore.Contents(reports: [makeReport(1)], warnings: []))
    }

    func testOversizedReportKeepsOnlyItsCallerFrame() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: 4096)
        store.receive(makeReport(1, frames: 200))
        let report = try XCTUnwrap(store.load().reports.first)
        XCTAssertEqual(report.callStack.count, 1)
        XCTAssertEqual(report.callerFrameIndex, 0)
        XCTAssertEqual(report.callerFrame, makeReport(1, frames: 200).callerFrame)
        XCTAssertNotNil(report.details["callStackTrimmed"])
    }

    /// A report whose details pad its line to `bytes` bytes.
    private func makePaddedReport(_ n: Int, bytes: Int) throws -> CrashReport {
        var report = makeReport(n)
        report.details["padding"] = ""
        report.details["padding"] = String(repeating: "x", count: bytes - (try lineBytes(of: report)))
        return report
    }

    /// The size of a report's line in the file, newline included (measured by storing it in a scratch store).
    private func lineBytes(of report: CrashReport) throws -> Int {
        let scratch = folder.appendingPathComponent("scratch-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try JSONLinesReportStore(fileURL: scratch, maxBytes: JSONLinesReportStore.maximumMaxBytes).receive(report)
        return try Data(contentsOf: scratch).count
    }

    func testAReportOverTheBoundIsRefusedAndNothingStoredIsLost() throws {
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(
            fileURL: fileURL, maxBytes: 8192, logger: Logger(label: "test") { _ in logs })
        XCTAssertEqual(store.maxReportBytes, 4096, "the default bound is maxBytes / 2 when that is below 64 KiB")
        let stored = (0..<5).map { makeReport($0) }
        stored.forEach(store.receive)
        let before = try Data(contentsOf: fileURL)

        var huge = makeReport(5, frames: 200)
        huge.reason = String(repeating: "r", count: 6000)
        store.receive(huge)
        XCTAssertEqual(try Data(contentsOf: fileURL), before, "the file is unchanged")
        XCTAssertEqual(store.writeFailures, 1)
        if case .reportTooLarge(let signature, let bytes, let maximum)? = store.lastFailure {
            XCTAssertEqual(signature, huge.signature)
            XCTAssertGreaterThan(bytes, 6000)
            XCTAssertEqual(maximum, 4096)
        } else {
            XCTFail("expected .reportTooLarge, got \(String(describing: store.lastFailure))")
        }
        XCTAssertEqual(logs.entries.map(\.level), [.error])
        XCTAssertTrue(logs.entries.first?.message.description.contains("maxReportBytes") == true, "\(logs.entries)")

        store.receive(makeReport(6))
        XCTAssertEqual(try store.load().reports, stored + [makeReport(6)], "the next append loses nothing")

        // The next compactions keep every report that fits, newest first.
        var n = 7
        while store.compactionCount < 2 {
            store.receive(makeReport(n))
            n += 1
        }
        let loaded = try store.load()
        XCTAssertFalse(loaded.reports.contains { $0.signature == huge.signature })
        XCTAssertEqual(loaded.reports.last, makeReport(n - 1))
        XCTAssertGreaterThanOrEqual(loaded.reports.count, 4096 / (try lineBytes(of: makeReport(0))))
        XCTAssertEqual(store.writeFailures, 1)
    }

    func testCompactionKeepsEveryReportThatFitsNewestFirst() throws {
        let maxBytes = 8192, budget = maxBytes / 2
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: maxBytes)
        let small = try lineBytes(of: makeReport(1, frames: 1))
        // Oldest to newest: three small reports, one large, two small. Newest first, the large one does not fit in
        // what the two newest leave of the budget; the three oldest still do.
        let large = try makePaddedReport(4, bytes: budget - 2 * small + 200)
        XCTAssertLessThanOrEqual(try lineBytes(of: large), store.maxReportBytes)
        XCTAssertLessThanOrEqual(5 * small, budget, "the test needs five small reports to fit in the budget")
        let sequence =
            [1, 2, 3].map { makeReport($0, frames: 1) } + [large] + [5, 6].map { makeReport($0, frames: 1) }
        sequence.forEach(store.receive)
        var occurrences = 1
        while store.compactionCount == 0 {
            occurrences += 1
            store.receive(makeReport(1, occurrences: occurrences, frames: 1))
        }
        XCTAssertEqual(store.writeFailures, 0)
        let loaded = try store.load()
        XCTAssertEqual(loaded.reports.map(\.signature), [1, 2, 3, 5, 6].map { makeReport($0).signature })
        XCTAssertEqual(loaded.reports.first?.occurrences, occurrences)
    }

    func testReportBoundIsConfigurableAndChecked() throws {
        XCTAssertEqual(
            try JSONLinesReportStore(fileURL: fileURL).maxReportBytes, JSONLinesReportStore.defaultMaxReportBytes)
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(
            fileURL: fileURL, maxReportBytes: 2048, logger: Logger(label: "test") { _ in logs })
        XCTAssertEqual(store.maxReportBytes, 2048)
        let fits = try makePaddedReport(1, bytes: 1900)
        let tooLarge = try makePaddedReport(2, bytes: 3000)
        store.receive(fits)
        store.receive(tooLarge)
        XCTAssertEqual(try store.load().reports, [fits])
        guard case .reportTooLarge(tooLarge.signature, let bytes, 2048)? = store.lastFailure else {
            return XCTFail("expected .reportTooLarge, got \(String(describing: store.lastFailure))")
        }
        XCTAssertGreaterThan(bytes, 2048)

        for (maxBytes, bound) in [(1 << 20, 1023), (8192, 4097)] {
            XCTAssertThrowsError(try JSONLinesReportStore(fileURL: fileURL, maxBytes: maxBytes, maxReportBytes: bound))
            {
                XCTAssertEqual(
                    $0 as? ReportStoreError,
                    .maxReportBytesOutOfRange(bound, minimum: 1024, maximum: maxBytes / 2))
            }
        }
    }

    // MARK: - What is at the store's path

    func testFilesAreCreatedOwnerOnly() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: 4096)
        store.receive(makeReport(1))
        let lockFile = folder.appendingPathComponent(".reports.jsonl.lock")
        XCTAssertEqual(try permissions(fileURL), 0o600)
        XCTAssertEqual(try permissions(lockFile), 0o600)
        var n = 2
        while store.compactionCount == 0 {
            store.receive(makeReport(n))
            n += 1
        }
        XCTAssertEqual(try permissions(fileURL), 0o600, "the compacted file too")
    }

    private func permissions(_ url: URL) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    func testASymbolicLinkIsRefusedNeverFollowedOrReplaced() throws {
        let victim = folder.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: fileURL, withDestinationURL: victim)
        // What the disk holds does not throw: the store is closed, says why, and never writes through the link.
        let closed = try JSONLinesReportStore(fileURL: fileURL)
        XCTAssertEqual(closed.openFailure, .symbolicLink(path: fileURL.path))
        XCTAssertTrue("\(closed.openFailure!)".contains("symbolic link"))
        closed.receive(makeReport(0))
        XCTAssertEqual(try Data(contentsOf: victim), Data("precious".utf8))

        // A link that appears after the store was made: every operation refuses it.
        try FileManager.default.removeItem(at: fileURL)
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(
            fileURL: fileURL, maxBytes: 4096, logger: Logger(label: "test") { _ in logs })
        store.receive(makeReport(0))
        try FileManager.default.removeItem(at: fileURL)
        try FileManager.default.createSymbolicLink(at: fileURL, withDestinationURL: victim)
        for n in 1...20 { store.receive(makeReport(n)) }
        XCTAssertEqual(store.writeFailures, 20)
        XCTAssertEqual(logs.entries.count, 20)
        XCTAssertEqual(store.lastFailure, .symbolicLink(path: fileURL.path))
        XCTAssertThrowsError(try store.load()) {
            XCTAssertEqual($0 as? ReportStoreError, .symbolicLink(path: self.fileURL.path))
        }
        XCTAssertThrowsError(try store.removeAll()) {
            XCTAssertEqual($0 as? ReportStoreError, .symbolicLink(path: self.fileURL.path))
        }
        XCTAssertEqual(try Data(contentsOf: victim), Data("precious".utf8))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: fileURL.path), victim.path)
    }

    func testADeviceOrFIFOAtThePathIsRefused() throws {
        XCTAssertEqual(
            try JSONLinesReportStore(fileURL: URL(fileURLWithPath: "/dev/null")).openFailure,
            .notARegularFile(path: "/dev/null", kind: "a character device"))
        let fifo = folder.appendingPathComponent("fifo.jsonl")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        XCTAssertEqual(
            try JSONLinesReportStore(fileURL: fifo).openFailure, .notARegularFile(path: fifo.path, kind: "a FIFO"))

        // A FIFO that takes the file's place later: refused at once, nothing blocks.
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(fileURL: fileURL, logger: Logger(label: "test") { _ in logs })
        XCTAssertEqual(mkfifo(fileURL.path, 0o600), 0)
        store.receive(makeReport(1))
        XCTAssertEqual(store.lastFailure, .notARegularFile(path: fileURL.path, kind: "a FIFO"))
        guard store.writeFailures == 1 else { return XCTFail("the report went into the FIFO") }
        XCTAssertThrowsError(try store.load()) {
            XCTAssertEqual($0 as? ReportStoreError, .notARegularFile(path: self.fileURL.path, kind: "a FIFO"))
        }
    }

    // MARK: - A folder that cannot be written (issue 31 §2)

    /// The tests run as root, which ignores permission bits (a 0500 folder is writable to root): the folder is made
    /// unwritable by a regular file holding its parent's path (mkdir fails with ENOTDIR, for root too).
    func testAStoreWhoseFolderCannotBeMadeKeepsReportsAndWritesThemOnceItCan() throws {
        let blocker = folder.appendingPathComponent("Application Support")
        try Data("not a folder".utf8).write(to: blocker)
        let url = blocker.appendingPathComponent("CrashShield/reports.jsonl")
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(fileURL: url, maxBytes: 8192, logger: Logger(label: "test") { _ in logs })
        guard case .folderNotWritable(let path, _)? = store.openFailure else {
            return XCTFail("expected .folderNotWritable, got \(String(describing: store.openFailure))")
        }
        XCTAssertEqual(path, blocker.appendingPathComponent("CrashShield").path)
        XCTAssertNotNil(store.sinkFailure, "the sink says it cannot work")
        store.receive(makeReport(1))
        store.receive(makeReport(2))
        store.receive(makeReport(1, occurrences: 10))  // the same call site: the newer count replaces the older
        XCTAssertEqual(store.writeFailures, 0, "kept in memory, not lost")
        // Kept within maxBytes / 2: a report past that counts as not stored.
        for n in 3...40 { store.receive(makeReport(n)) }
        XCTAssertGreaterThan(store.writeFailures, 0)
        let kept = 40 - store.writeFailures

        // The disk recovers. Within the retry delay (1 s) nothing is tried; after it, the next report opens the file.
        try FileManager.default.removeItem(at: blocker)
        Thread.sleep(forTimeInterval: 1.2)
        store.receive(makeReport(41))
        XCTAssertNil(store.openFailure)
        XCTAssertNil(store.sinkFailure)
        let loaded = try store.load().reports
        XCTAssertEqual(loaded.count, kept + 1, "every kept report, then the new one")
        XCTAssertEqual(loaded.first { $0.signature == makeReport(1).signature }?.occurrences, 10)
        XCTAssertTrue(loaded.contains { $0.signature == makeReport(41).signature })
        XCTAssertTrue(logs.entries.contains { "\($0.message)".contains("opened its file") }, "\(logs.entries)")
    }

    func testADirectoryThatTakesTheFilesPathClosesTheStoreUntilItGoes() throws {
        try FileManager.default.createDirectory(at: fileURL, withIntermediateDirectories: true)
        let store = try JSONLinesReportStore(
            fileURL: folder.appendingPathComponent("reports.jsonl", isDirectory: false))
        XCTAssertEqual(store.openFailure, .isDirectory(path: fileURL.path))
        store.receive(makeReport(1))
        try FileManager.default.removeItem(at: fileURL)
        Thread.sleep(forTimeInterval: 1.2)
        store.receive(makeReport(2))
        XCTAssertNil(store.openFailure)
        XCTAssertEqual(try store.load().reports.map(\.signature), [makeReport(1).signature, makeReport(2).signature])
    }

    // MARK: - Threads

    func testConcurrentAppendsFromEightThreads() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL)
        let perThread = 50
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<perThread { store.receive(self.makeReport(thread * 1000 + i)) }
        }
        XCTAssertEqual(store.writeFailures, 0)
        XCTAssertEqual(try lines(fileURL).count, 8 * perThread)
        try assertEveryLineIsJSON(fileURL)
        let loaded = try store.load()
        XCTAssertEqual(loaded.warnings, [])
        XCTAssertEqual(
            Set(loaded.reports.map(\.signature)),
            Set((0..<8).flatMap { t in (0..<perThread).map { makeReport(t * 1000 + $0).signature } }))
    }

    func testConcurrentAppendsWithCompaction() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: 16384)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<40 { store.receive(self.makeReport(thread * 1000 + i)) }
        }
        XCTAssertEqual(store.writeFailures, 0)
        XCTAssertGreaterThan(store.compactionCount, 0)
        try assertEveryLineIsJSON(fileURL)
        XCTAssertEqual(try store.load().warnings, [])
    }

    // MARK: - Bad arguments and write failures

    func testBadInitArgumentsThrow() throws {
        XCTAssertThrowsError(try JSONLinesReportStore(fileURL: fileURL, maxBytes: 4095)) {
            XCTAssertEqual($0 as? ReportStoreError, .maxBytesTooSmall(4095, minimum: 4096))
        }
        for unbounded in [Int.max, JSONLinesReportStore.maximumMaxBytes + 1] {
            XCTAssertThrowsError(try JSONLinesReportStore(fileURL: fileURL, maxBytes: unbounded)) {
                XCTAssertEqual($0 as? ReportStoreError, .maxBytesTooLarge(unbounded, maximum: 64 << 20))
                XCTAssertTrue("\($0)".contains("size bound"), "\($0)")
            }
        }
        XCTAssertThrowsError(try JSONLinesReportStore(fileURL: folder)) {
            XCTAssertEqual($0 as? ReportStoreError, .isDirectory(path: self.folder.path))
        }
        let plainFile = folder.appendingPathComponent("plain.txt")
        try Data("x".utf8).write(to: plainFile)
        // A folder that cannot be made is the disk's state, not a bad argument: the store is made closed.
        let underFile = try JSONLinesReportStore(fileURL: plainFile.appendingPathComponent("reports.jsonl"))
        guard case .folderNotWritable(let path, _)? = underFile.openFailure else {
            return XCTFail("expected .folderNotWritable, got \(String(describing: underFile.openFailure))")
        }
        XCTAssertEqual(path, plainFile.path)
        let deeper = try JSONLinesReportStore(fileURL: plainFile.appendingPathComponent("deeper/reports.jsonl"))
        guard case .folderNotWritable? = deeper.openFailure else {
            return XCTFail("expected .folderNotWritable, got \(String(describing: deeper.openFailure))")
        }
        XCTAssertThrowsError(try JSONLinesReportStore(fileURL: URL(string: "https://example.com/reports.jsonl")!)) {
            XCTAssertEqual($0 as? ReportStoreError, .notAFileURL("https://example.com/reports.jsonl"))
        }
        for error in [
            ReportStoreError.maxBytesTooSmall(1, minimum: 4096), .isDirectory(path: "/tmp"),
            .fileSizeLimit(path: "/tmp/r", bytes: 2, limit: 1),
            .ioFailed(path: "/tmp/r", operation: "lock", reason: "x"),
        ] {
            XCTAssertFalse(error.description.isEmpty)
        }
    }

    func testWriteFailureIsCountedAndLoggedNotThrown() throws {
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(fileURL: fileURL, logger: Logger(label: "test") { _ in logs })
        // A directory takes the file's name: open(2) fails with EISDIR.
        try FileManager.default.createDirectory(at: fileURL, withIntermediateDirectories: true)
        store.receive(makeReport(1))
        XCTAssertEqual(store.writeFailures, 1)
        XCTAssertEqual(logs.entries.map(\.level), [.error])
        XCTAssertTrue(logs.entries[0].message.description.contains("not stored"), logs.entries[0].message.description)
    }

    // MARK: - Counting across launches

    /// A line of launch `launch` (first seen at its start, 0 or 100 s) holding `occurrences` so far, last seen at `seen`.
    private func launchReport(_ launch: String, occurrences: Int, seen: Double) -> CrashReport {
        var report = makeReport(1, occurrences: occurrences)
        report.firstSeen = Date(timeIntervalSince1970: 1_700_000_000 + (launch == "A" ? 0 : 100))
        report.lastSeen = Date(timeIntervalSince1970: 1_700_000_000 + seen)
        report.context = ReportContext(
            appIdentifier: "app", osName: "Linux", osVersion: "6", device: "x86_64",
            launchID: launch, secondsSinceLaunch: 1)
        return report
    }

    /// Docs/Reports.md "Counting": each launch counts from 1, its latest line holds its count, and launches add up.
    /// load() kept only the latest line per signature: an earlier launch's count and first sighting were lost.
    func testLoadAndCompactionAddUpLaunchesOfOneCallSite() throws {
        let store = try JSONLinesReportStore(fileURL: fileURL, maxBytes: 4096)
        store.receive(launchReport("A", occurrences: 1, seen: 0))
        store.receive(launchReport("A", occurrences: 10, seen: 5))
        store.receive(launchReport("B", occurrences: 1, seen: 100))
        store.receive(launchReport("B", occurrences: 3, seen: 105))
        var loaded = try XCTUnwrap(store.load().reports.first)
        XCTAssertEqual(loaded.occurrences, 13, "10 in launch A and 3 in launch B")
        XCTAssertEqual(loaded.firstSeen, Date(timeIntervalSince1970: 1_700_000_000), "launch A's first sighting")
        XCTAssertEqual(loaded.context?.launchID, "B", "the rest from the latest launch")

        // Past maxBytes, compaction keeps each launch's latest line: the totals stay.
        for count in 4...40 { store.receive(launchReport("B", occurrences: count, seen: 105 + Double(count))) }
        XCTAssertGreaterThan(store.compactionCount, 0)
        loaded = try XCTUnwrap(store.load().reports.first)
        XCTAssertEqual(loaded.occurrences, 50, "10 in launch A and 40 in launch B, after compaction")
    }

    // MARK: - LogReportSink

    func testLogReportSinkLevelsMessageAndMetadata() {
        let logs = InMemoryLogHandler()
        let sink = LogReportSink(logger: Logger(label: "CrashShield") { _ in logs })
        sink.receive(makeReport(1))
        sink.receive(makeReport(2, action: .failedLoudly))
        sink.receive(makeReport(1, occurrences: 10))

        let entries = logs.entries
        XCTAssertEqual(entries.map(\.level), [.error, .critical, .notice])
        XCTAssertEqual(
            entries[0].message.description,
            "-[GSInlineArray objectAtIndex:] from libapp.so+0x1010: NSRangeException: Index 5 is out of range 2 (in 'objectAtIndex:') (stopped, 1x)"
        )
        XCTAssertTrue(entries[1].message.description.hasSuffix("(failed loudly, 1x)"), entries[1].message.description)
        XCTAssertTrue(entries[2].message.description.hasSuffix("(stopped, 10x)"), entries[2].message.description)

        let metadata = entries[0].metadata
        XCTAssertEqual(metadata["category"], "container")
        XCTAssertEqual(metadata["signature"], .string(makeReport(1).signature))
        XCTAssertEqual(metadata["occurrences"]?.description, "1")
        XCTAssertEqual(metadata["thread"], "worker #42")
        XCTAssertEqual(metadata["caller"], "libapp.so+0x1010")
        XCTAssertEqual(metadata["hint"], .string(makeReport(1).hint))
    }

    /// The loud failure's line leads with what the developer looks for: the method as called and the caller's name.
    func testLogReportSinkLeadsWithTheMethodAndTheCallersName() {
        let logs = InMemoryLogHandler()
        let sink = LogReportSink(logger: Logger(label: "CrashShield") { _ in logs })
        var report = makeReport(1, action: .failedLoudly)
        report.declaringClassName = "NSArray"
        report.callerFunction = "-[MYListController reload]"
        sink.receive(report)
        report.callerFunction = nil
        report.callStack[1].symbol = "app_reload_list"
        sink.receive(report)
        XCTAssertEqual(
            logs.entries.map(\.message.description),
            [
                "-[NSArray objectAtIndex:] (GSInlineArray) from -[MYListController reload] (libapp.so+0x1010): NSRangeException: Index 5 is out of range 2 (in 'objectAtIndex:') (failed loudly, 1x)",
                "-[NSArray objectAtIndex:] (GSInlineArray) from app_reload_list (libapp.so+0x1010): NSRangeException: Index 5 is out of range 2 (in 'objectAtIndex:') (failed loudly, 1x)",
            ])
    }

    func testLogReportSinkDefaultLabel() {
        XCTAssertEqual(LogReportSink().logger.label, "CrashShield")
    }
}
