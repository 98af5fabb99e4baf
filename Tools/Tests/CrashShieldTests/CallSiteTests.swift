@testable import CrashShield
import CrashShieldReportTool
import CrashShieldRuntime.Internal
import Foundation
import XCTest

#if os(Linux)  // clang with GNUstep's flags builds the app's code (Tests/Fixtures/call-sites.m) at -O2
/// The call site in an optimized build (README "Grouping"): bad calls made as tail calls name the function that made
/// them, or say that the caller is not certain; callers without an exported name get an identity that survives a
/// rebuild. The app's code is real Objective-C built with clang -O2 into a library of its own and loaded.
final class CallSiteTests: ShieldTestCase {
    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/call-sites.m")

    private struct App {
        var handle: UnsafeMutableRawPointer
        var path: String

        func function(_ name: String) throws -> @convention(c) (UInt) -> Int32 {
            let symbol = try XCTUnwrap(dlsym(handle, name), name)
            return unsafeBitCast(symbol, to: (@convention(c) (UInt) -> Int32).self)
        }

        /// objdump's disassembly of one function of the library.
        func disassembly(of name: String) throws -> String {
            let text = try CallSiteTests.shell("objdump -d --no-show-raw-insn \(path)")
            guard let start = text.range(of: "<\(name)>:\n") else { return "" }
            let rest = text[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
        }
    }

    static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " 2>&1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(command): \(output)")
        return output
    }

    /// Builds the fixture with clang -O2 (GNUstep's flags, as Tools/Package.swift's) as `libcallsites.so` in a folder
    /// of its own (one image name for both builds, as an app keeps its name across releases); `moved`: the next
    /// release, with an unrelated function before everything.
    private func build(moved: Bool = false) throws -> App {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("callsites-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let library = folder.appendingPathComponent("libcallsites.so").path
        let flags = [
            "-fobjc-runtime=gcc", "-fno-blocks", "-fexceptions", "-fobjc-exceptions", "-DGNUSTEP",
            "-DGNUSTEP_BASE_LIBRARY=1", "-DGNU_RUNTIME=1", "-D_NATIVE_OBJC_EXCEPTIONS",
            "-fconstant-string-class=NSConstantString", "-fno-strict-aliasing", "-I/usr/include/GNUstep",
            "-I\(Self.gccObjCIncludeFolder())", "-Wno-objc-root-class",
        ].joined(separator: " ")
        _ = try Self.shell(
            "clang -O2 -shared -fPIC \(moved ? "-DCALL_SITES_MOVED=1" : "") \(flags) \(Self.fixture.path) "
                + "-o \(library) -lgnustep-base -lobjc")
        let handle = try XCTUnwrap(dlopen(library, RTLD_NOW | RTLD_LOCAL), String(cString: dlerror()))
        return App(handle: handle, path: library)
    }

    private static func gccObjCIncludeFolder() -> String {
        let root = "/usr/lib/gcc/x86_64-linux-gnu"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        let found = versions.first { FileManager.default.fileExists(atPath: "\(root)/\($0)/include/objc/objc.h") }
        return "\(root)/\(found ?? "12")/include"
    }

    private func reports(_ body: @escaping () -> Void) -> [CrashReport] {
        var found: [CrashReport] = []
        withShield(Configuration(guards: .container, isAppImage: { _ in true })) { sink in
            withAutoreleasePool { body() }
            found = sink.reports
        }
        return found
    }

    /// Four functions end in `return [items objectAtIndex:...]`, a `jmp` at -O2: four groups, each named after its
    /// function (the frame is cs_tail_calls', whose `call` says which function it called).
    func testTailCallsNameTheFunctionThatMadeThem() throws {
        let app = try build()
        let callers = ["cs_feed_title", "cs_feed_subtitle", "cs_feed_image", "cs_feed_footer"]
        for name in callers {
            let code = try app.disassembly(of: name)
            XCTAssertTrue(code.contains("jmp    *%rax"), "\(name) ends in a tail call:\n\(code)")
            XCTAssertFalse(code.contains("call   *%rax"), "\(name) keeps no frame for the read:\n\(code)")
        }
        let run = try app.function("cs_tail_calls")
        let reports = reports { XCTAssertEqual(run(5), 4, "every bad read recovered") }
        XCTAssertEqual(reports.count, 4, "\(reports.map(\.signature))")
        XCTAssertEqual(Set(reports.compactMap(\.groupingKey)).count, 4, "four call sites, four groups")
        XCTAssertEqual(Set(reports.compactMap(\.callerFunction)), Set(callers), "\(reports.map(\.callerIdentity))")
        for report in reports {
            XCTAssertNil(report.callerIsCertain, "the direct call says which function: \(report.callerIdentity ?? "-")")
            XCTAssertEqual(report.callerMadeTailCall, true)
            XCTAssertEqual(report.callerIdentity, report.callerFunction)
            XCTAssertEqual(
                report.callerFrame.flatMap {
                    CallerNames.function(startingAt: Images.function(containing: UInt($0.address) - 1))
                },
                "cs_tail_calls", "the frame is the caller's caller")
        }
    }

    /// `-reloadFeed:` ends in the bad read and is sent a message: the code before the return address shows the
    /// message, not the method's address. The caller is not certain; the group is what is: the sender, the message,
    /// the method.
    func testATailCallBehindAMessageIsNotCertain() throws {
        let app = try build()
        XCTAssertTrue(try app.disassembly(of: "_i_CSFeedController__reloadFeed_").contains("jmp    *%rax"))
        let run = try app.function("cs_tail_call_method")
        let reports = reports { XCTAssertEqual(run(5), 1) }
        let report = try XCTUnwrap(reports.first)
        XCTAssertEqual(reports.count, 1)
        XCTAssertEqual(report.callerIsCertain, false)
        XCTAssertNil(report.callerFunction, "never the name of a frame that may not be the caller")
        XCTAssertEqual(report.callerIdentity, "cs_tail_call_method -> -reloadFeed: (tail call)")
        let direct = try app.function("cs_static_calls")
        let other = self.reports { _ = direct(5) }
        XCTAssertFalse(other.contains { $0.groupingKey == report.groupingKey })
    }

    /// Two static functions (no exported name) with different bad calls: two groups, the same two in the next
    /// release, where an unrelated function moved them and every displacement in their code.
    func testUnexportedCallersKeepTheirGroupsAcrossBuilds() throws {
        var keys: [[String: String]] = []
        var signatures: [Set<String>] = []
        for moved in [false, true] {
            let app = try build(moved: moved)
            let run = try app.function("cs_static_calls")
            let reports = reports { XCTAssertEqual(run(5), 2, "both bad reads recovered") }
            XCTAssertEqual(reports.count, 2)
            XCTAssertEqual(reports.compactMap(\.callerFunction), [], "the device has no name for a static function")
            XCTAssertEqual(Set(reports.compactMap(\.groupingKey)).count, 2, "two call sites, two groups")
            XCTAssertTrue(reports.allSatisfy { $0.callerIdentity?.hasPrefix("libcallsites.so!") ?? false })
            XCTAssertTrue(reports.allSatisfy { $0.callerIsCertain == nil })
            // Which is which: the first static function is called (and reported) first.
            keys.append(
                Dictionary(uniqueKeysWithValues: zip(["first", "second"], reports.map { $0.groupingKey ?? "" })))
            signatures.append(Set(reports.map(\.signature)))
        }
        XCTAssertTrue(signatures[0].isDisjoint(with: signatures[1]), "the rebuild moved both call sites")
        XCTAssertEqual(keys[0], keys[1], "one call site, one group across builds")
    }

    /// The report tool names a group after its caller's identity, and a group whose caller nothing identifies (no
    /// unwind table covered it, or reports from before identities: here the same two real reports without one)
    /// "2 call sites", never after one of them.
    func testTheReportToolSaysHowManyCallSitesAGroupNothingIdentifiesHolds() throws {
        let run = try build().function("cs_static_calls")
        let reports = reports { XCTAssertEqual(run(5), 2) }
        XCTAssertEqual(reports.count, 2)
        func set(_ reports: [CrashReport]) throws -> ReportSet {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("callsites-\(UUID()).jsonl")
            let encoder = CrashReport.makeJSONEncoder()
            try Data(reports.map { try encoder.encode($0) + Data("\n".utf8) }.joined()).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            return ReportSet.load([file.path]).set
        }
        let identified = try set(reports)
        XCTAssertEqual(identified.reports.count, 2)
        XCTAssertEqual(
            Set(identified.reports.map { ReportText.Row($0).callSite }), Set(reports.compactMap(\.callerIdentity)))

        let unidentified = try set(
            reports.map { report in
                var old = report
                old.callerIdentity = nil
                old.groupingKey = Signature.make("group", "container", report.appFacingMethod, "libcallsites.so")
                return old
            })
        XCTAssertEqual(unidentified.reports.count, 1, "one group: nothing tells the two callers apart")
        let summary = ReportText.summary(unidentified, limit: nil)
        XCTAssertTrue(summary.contains("2 call sites in libcallsites.so"), summary)
        XCTAssertTrue(ReportText.list(unidentified).contains("2 call sites in libcallsites.so"))
        XCTAssertTrue(ReportHTML.page(unidentified).contains("2 call sites in libcallsites.so"))
        let one = try set(
            Array(reports.prefix(1)).map {
                var old = $0; old.callerIdentity = nil; return old
            })
        XCTAssertFalse(
            ReportText.summary(one, limit: nil).contains("call sites in"), "one call site is named by its frame")
    }
}
#endif
