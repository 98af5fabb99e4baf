@testable import CrashShield
@testable import CrashShieldUpload
import Foundation
import XCTest
#if os(macOS) || os(Linux)  // the loopback server is a child process (Foundation's Process): not on iOS

/// One report codec (`ReportCodec`) for the store, the HTTP body and every other reader and writer, proven against the
/// bytes earlier releases wrote: a stored line of 0.1.0 and an HTTP body of schema version 1 (captured from 0.1.0's
/// two encoders before they became one).
final class ReportCodecTests: UploadTestCase {
    static func goldenReport() -> CrashReport {
        let first = Date(timeIntervalSince1970: 1_764_064_800.123)  // 2025-11-25T10:00:00.123Z
        let images = [
            BinaryImage(
                name: "MyApp", path: "/var/containers/Bundle/Application/MyApp.app/MyApp", loadAddress: 0x1_0000_0000,
                slide: 0x4000, size: 0x20_0000, uuid: "0123456789ABCDEF0123456789ABCDEF"),
            BinaryImage(
                name: "libgnustep-base.so.1.28", path: "/usr/lib/x86_64-linux-gnu/libgnustep-base.so.1.28",
                loadAddress: 0x7f00_0000_0000, slide: 0x7f00_0000_0000, size: 0x40_0000, buildID: "8f3a0c"),
        ]
        let stack = [
            StackFrame(
                address: 0x7f00_0001_2340, image: images[1].path, imageBase: images[1].loadAddress,
                symbol: "csr_replacement"),
            StackFrame(
                address: 0x1_0000_1f3a, image: images[0].path, imageBase: images[0].loadAddress,
                symbol: "$s5MyApp4loadyyF", imageUUID: images[0].uuid, slide: 0x4000),
        ]
        return CrashReport(
            signature: "0f1e2d3c4b5a6978", category: .container, exceptionName: "NSRangeException",
            reason: "Index 5 is out of range 2 (in 'objectAtIndex:') \"quoted\" \u{e9}t\u{e9} tab\there",
            className: "GSInlineArray", selector: "objectAtIndex:", isClassMethod: false,
            hint: "check the index against count", action: .recovered,
            details: ["index": "5", "path": "a/b", "note": "line one\nline two"],
            thread: ThreadInfo(id: 7, name: "worker", isMain: false), callStack: stack, callerFrameIndex: 1,
            firstSeen: first, lastSeen: first.addingTimeInterval(2.5), occurrences: 10,
            context: ReportContext(
                appIdentifier: "com.example.MyApp", appVersion: "1.2", appBuild: "42", osName: "iOS",
                osVersion: "17.4.1", osBuild: "21E236", device: "iPhone15,2",
                crashShieldVersion: "0.1.0", launchID: "6B0C1C58-1A1E-4E3A-9E55-2C0F0A4B9D11",
                secondsSinceLaunch: 12.5, images: images),
            declaringClassName: "NSArray", callerFunction: "-[MYListController reload]", groupingKey: "a1b2c3d4e5f60718"
        )
    }

    /// A line of a JSON Lines store written by 0.1.0 (the store's encoder: sorted keys, slashes unescaped).
    static let storedLine0_1 =
        #"{"action":"recovered","callStack":[{"address":139637976802112,"image":"/usr/lib/x86_64-linux-gnu/libgnustep-base.so.1.28","imageBase":139637976727552,"symbol":"csr_replacement"},{"address":4294975290,"image":"/var/containers/Bundle/Application/MyApp.app/MyApp","imageBase":4294967296,"imageUUID":"0123456789ABCDEF0123456789ABCDEF","slide":16384,"symbol":"$s5MyApp4loadyyF"}],"callerFrameIndex":1,"callerFunction":"-[MYListController reload]","category":"container","className":"GSInlineArray","context":{"appBuild":"42","appIdentifier":"com.example.MyApp","appVersion":"1.2","crashShieldVersion":"0.1.0","device":"iPhone15,2","images":[{"loadAddress":4294967296,"name":"MyApp","path":"/var/containers/Bundle/Application/MyApp.app/MyApp","size":2097152,"slide":16384,"uuid":"0123456789ABCDEF0123456789ABCDEF"},{"buildID":"8f3a0c","loadAddress":139637976727552,"name":"libgnustep-base.so.1.28","path":"/usr/lib/x86_64-linux-gnu/libgnustep-base.so.1.28","size":4194304,"slide":139637976727552}],"launchID":"6B0C1C58-1A1E-4E3A-9E55-2C0F0A4B9D11","osBuild":"21E236","osName":"iOS","osVersion":"17.4.1","secondsSinceLaunch":12.5},"declaringClassName":"NSArray","details":{"index":"5","note":"line one\nline two","path":"a/b"},"exceptionName":"NSRangeException","firstSeen":"2025-11-25T10:00:00.123Z","groupingKey":"a1b2c3d4e5f60718","hint":"check the index against count","isClassMethod":false,"lastSeen":"2025-11-25T10:00:02.623Z","occurrences":10,"reason":"Index 5 is out of range 2 (in 'objectAtIndex:') \"quoted\" été tab\there","selector":"objectAtIndex:","signature":"0f1e2d3c4b5a6978","thread":{"id":7,"isMain":false,"name":"worker"}}"#

    /// An HTTP body 0.1.0 sent for the same report (its upload encoder escaped slashes: `\/`, the same JSON string).
    static let httpBody0_1 =
        #"{"reports":[{"action":"recovered","callStack":[{"address":139637976802112,"image":"\/usr\/lib\/x86_64-linux-gnu\/libgnustep-base.so.1.28","imageBase":139637976727552,"symbol":"csr_replacement"},{"address":4294975290,"image":"\/var\/containers\/Bundle\/Application\/MyApp.app\/MyApp","imageBase":4294967296,"imageUUID":"0123456789ABCDEF0123456789ABCDEF","slide":16384,"symbol":"$s5MyApp4loadyyF"}],"callerFrameIndex":1,"callerFunction":"-[MYListController reload]","category":"container","className":"GSInlineArray","context":{"appBuild":"42","appIdentifier":"com.example.MyApp","appVersion":"1.2","crashShieldVersion":"0.1.0","device":"iPhone15,2","images":[{"loadAddress":4294967296,"name":"MyApp","path":"\/var\/containers\/Bundle\/Application\/MyApp.app\/MyApp","size":2097152,"slide":16384,"uuid":"0123456789ABCDEF0123456789ABCDEF"},{"buildID":"8f3a0c","loadAddress":139637976727552,"name":"libgnustep-base.so.1.28","path":"\/usr\/lib\/x86_64-linux-gnu\/libgnustep-base.so.1.28","size":4194304,"slide":139637976727552}],"launchID":"6B0C1C58-1A1E-4E3A-9E55-2C0F0A4B9D11","osBuild":"21E236","osName":"iOS","osVersion":"17.4.1","secondsSinceLaunch":12.5},"declaringClassName":"NSArray","details":{"index":"5","note":"line one\nline two","path":"a\/b"},"exceptionName":"NSRangeException","firstSeen":"2025-11-25T10:00:00.123Z","groupingKey":"a1b2c3d4e5f60718","hint":"check the index against count","isClassMethod":false,"lastSeen":"2025-11-25T10:00:02.623Z","occurrences":10,"reason":"Index 5 is out of range 2 (in 'objectAtIndex:') \"quoted\" été tab\there","selector":"objectAtIndex:","signature":"0f1e2d3c4b5a6978","thread":{"id":7,"isMain":false,"name":"worker"}}],"schemaVersion":1}"#

    /// The body now: the same JSON value, the report in it byte for byte the store's line.
    static let httpBody = #"{"reports":["# + storedLine0_1 + #"],"schemaVersion":1}"#

    /// Lines of earlier releases: before reports had a context, a grouping key and a declaring class, and dates
    /// without milliseconds.
    static let olderLines = [
        #"{"action":"failedLoudly","callStack":[],"category":"kvo","className":"MYModel","details":{"keyPath":"name"},"exceptionName":"NSRangeException","firstSeen":"2026-01-02T03:04:05Z","hint":"balance addObserver and removeObserver","isClassMethod":false,"lastSeen":"2026-01-02T03:04:06.500Z","occurrences":3,"reason":"Cannot remove an observer","selector":"removeObserver:forKeyPath:","signature":"kvo|MYModel|removeObserver:forKeyPath:|caller","thread":{"id":1,"isMain":true,"name":"main"}}"#
    ]

    func testTheStoreWritesExactlyTheLineEarlierReleasesWrote() throws {
        let report = Self.goldenReport()
        XCTAssertEqual(String(decoding: try ReportCodec.encoder().encode(report), as: UTF8.self), Self.storedLine0_1)
        let url = folder.appendingPathComponent("reports.jsonl")
        let store = try JSONLinesReportStore(fileURL: url)
        store.receive(report)
        XCTAssertEqual(store.writeFailures, 0)
        XCTAssertEqual(String(decoding: try Data(contentsOf: url), as: UTF8.self), Self.storedLine0_1 + "\n")
    }

    func testFilesOfEarlierReleasesReadBackWithTypedCategories() throws {
        let url = folder.appendingPathComponent("old.jsonl")
        try Data(([Self.storedLine0_1] + Self.olderLines).map { $0 + "\n" }.joined().utf8).write(to: url)
        let load = try JSONLinesReportStore(fileURL: url).load()
        XCTAssertEqual(load.warnings, [])
        XCTAssertEqual(load.reports.count, 2)
        XCTAssertEqual(load.reports.first, Self.goldenReport(), "every field, dates to the millisecond")
        let older = try XCTUnwrap(load.reports.last)
        XCTAssertEqual(older.category, .kvo)
        XCTAssertEqual(older.action, .failedLoudly)
        XCTAssertNil(older.context)
        XCTAssertNil(older.groupingKey)
        XCTAssertEqual(older.firstSeen, Date(timeIntervalSince1970: 1_767_323_045))
        XCTAssertEqual(older.lastSeen.timeIntervalSince1970, 1_767_323_046.5, accuracy: 0.0005)
        // What the store reads, every other reader reads: the report tool's decoder is the same codec.
        XCTAssertEqual(
            try CrashReport.makeJSONDecoder().decode(CrashReport.self, from: Data(Self.storedLine0_1.utf8)),
            Self.goldenReport())
    }

    /// Schema version 1, as Docs/Reports.md "The HTTP body" documents it, sent by the real sink to a real server (gzip
    /// off, so the recorded bytes are the body).
    func testTheHTTPBodyIsSchemaVersion1AndTheSameJSONAsEarlierReleasesSent() throws {
        let server = try server()
        let sink = try HTTPUploadSink(
            endpoint: server.url, folder: folder.appendingPathComponent("sink"),
            options: fastOptions { $0.gzip = false })
        sink.receive(Self.goldenReport())
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        let request = try XCTUnwrap(server.requests.first { $0.processed })
        XCTAssertEqual(request.header("Content-Type"), "application/json")
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), Self.httpBody)
        let sent = try JSONSerialization.jsonObject(with: request.body) as? NSDictionary
        let earlier = try JSONSerialization.jsonObject(with: Data(Self.httpBody0_1.utf8)) as? NSDictionary
        XCTAssertNotNil(sent)
        XCTAssertEqual(sent, earlier, "the same JSON value as 0.1.0's body")
        XCTAssertEqual(try deliveredReports(server).flatMap(\.reports), [Self.goldenReport()])
    }

    func testACategoryIsWrittenAsItsGuardsName() throws {
        for category in GuardCategory.allCategories {
            var report = Self.goldenReport()
            report.category = category
            let text = String(decoding: try ReportCodec.encoder().encode(report), as: UTF8.self)
            XCTAssertTrue(text.contains(#""category":"\#(category.name)""#), text)
            XCTAssertEqual(try ReportCodec.decoder().decode(CrashReport.self, from: Data(text.utf8)).category, category)
        }
        let unknown = Self.storedLine0_1.replacingOccurrences(
            of: #""category":"container""#, with: #""category":"teleport""#)
        XCTAssertThrowsError(try ReportCodec.decoder().decode(CrashReport.self, from: Data(unknown.utf8))) { error in
            XCTAssertTrue("\(error)".contains("'teleport' names no guard"), "\(error)")
        }
        let url = folder.appendingPathComponent("unknown.jsonl")
        try Data((Self.storedLine0_1 + "\n" + unknown + "\n").utf8).write(to: url)
        let load = try JSONLinesReportStore(fileURL: url).load()
        XCTAssertEqual(load.reports.count, 1)
        XCTAssertEqual(load.warnings.count, 1)
        XCTAssertTrue(
            load.warnings[0].contains("line 2") && load.warnings[0].contains("names no guard"), load.warnings[0])
    }
}
#endif
