@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// One call site, one group, release after release (Docs/Reports.md "Grouping across releases"): `groupingKey` survives
/// a rebuild with an unrelated change, `signature` (the call site's offset in its build) does not.
final class GroupingTests: ShieldTestCase {
    /// The app of two builds: `unrelated` code before the call site moves it in the binary.
    private static func appSource(unrelated: Bool, exported: Bool) -> String {
        let visibility = exported ? "" : "__attribute__((visibility(\"hidden\")))"
        let unrelatedFeature = """
            __attribute__((noinline)) int app_unrelated_feature(int x) {
                int sum = 0;
                for (int i = 0; i < x; i++) sum += i * i % 7;
                return sum + (int)[[NSString stringWithFormat: @"%d", sum] length];
            }
            """
        return """
            #import <Foundation/Foundation.h>
            \(unrelated ? unrelatedFeature : "")
            \(visibility) __attribute__((noinline)) void *app_list_item(unsigned long index) {
                NSArray *list = [NSArray arrayWithObjects: @"a", @"b", nil];
                return (void *)[list objectAtIndex: index];
            }
            void *app_entry(unsigned long index) { return app_list_item(index); }
            """
    }

    /// Builds the app as `libapp.so` in a folder of its own (the same image name in both builds, as an app keeps its
    /// name across releases) and returns its `app_entry`.
    private func build(unrelated: Bool, exported: Bool) throws -> @convention(c) (UInt) -> UnsafeMutableRawPointer? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("grouping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("app.m")
        try Self.appSource(unrelated: unrelated, exported: exported).write(
            to: source, atomically: true, encoding: .utf8)
        let library = folder.appendingPathComponent("libapp.so").path
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c",
            "gcc -std=gnu11 -shared -fPIC -O1 -fno-optimize-sibling-calls -g $(gnustep-config --objc-flags) \(source.path) -o \(library) "
                + "$(gnustep-config --base-libs) 2>&1",
        ]
        let pipe = Pipe()
        shell.standardOutput = pipe
        try shell.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        // gobjc and GNUstep Base are what CrashShield builds against here (scripts/install-deps.sh).
        XCTAssertEqual(shell.terminationStatus, 0, "the app builds with gcc: \(output)")
        let handle = try XCTUnwrap(dlopen(library, RTLD_NOW | RTLD_LOCAL), String(cString: dlerror()))
        let entry = try XCTUnwrap(dlsym(handle, "app_entry"))
        return unsafeBitCast(entry, to: (@convention(c) (UInt) -> UnsafeMutableRawPointer?).self)
    }

    private func report(of entry: @convention(c) (UInt) -> UnsafeMutableRawPointer?) throws -> CrashReport {
        var found: CrashReport?
        withShield(Configuration(guards: .container, isAppImage: { _ in true })) { sink in
            withAutoreleasePool { XCTAssertNil(entry(5), "the bad index is recovered") }
            found = sink.reports.first
        }
        return try XCTUnwrap(found, "the bad call was reported")
    }

    private func assertOneGroupAcrossBuilds(exported: Bool) throws {
        let first = try report(of: build(unrelated: false, exported: exported))
        let second = try report(of: build(unrelated: true, exported: exported))
        XCTAssertNotEqual(
            first.callerFrame?.offsetInImage, second.callerFrame?.offsetInImage,
            "the unrelated change moved the call site")
        XCTAssertNotEqual(first.signature, second.signature, "a signature is the call site of one build")
        XCTAssertNotNil(first.groupingKey)
        XCTAssertEqual(first.groupingKey, second.groupingKey, "one call site, one group across builds")
        XCTAssertEqual(first.appFacingMethod, "-[NSArray objectAtIndex:]", "not the cluster class \(first.className)")
        XCTAssertEqual(first.callerFunction, exported ? "app_list_item" : nil)
    }

    func testAnUnrelatedChangeKeepsTheGroupOfANamedCaller() throws {
        try skipUnlessLinux("the app is built with gcc against GNUstep as an ELF shared object")
        try assertOneGroupAcrossBuilds(exported: true)
    }

    func testAnUnrelatedChangeKeepsTheGroupOfACallerTheDeviceCannotName() throws {
        try skipUnlessLinux("the app is built with gcc against GNUstep as an ELF shared object")
        try assertOneGroupAcrossBuilds(exported: false)
    }

    /// The runtime names an Objective-C method without symbols; two call sites in two methods are two groups.
    func testAnObjectiveCCallerIsNamedByTheRuntime() throws {
        var reports: [CrashReport] = []
        withShield(Configuration(guards: .container, isAppImage: { _ in true })) { sink in
            withAutoreleasePool { _ = css_test_grouping_calls() }
            reports = sink.reports
        }
        let names = Set(reports.compactMap(\.callerFunction))
        XCTAssertEqual(
            names, ["-[CSSGroupingCaller firstList]", "+[CSSGroupingCaller secondList]"], "\(reports.map(\.method))")
        XCTAssertEqual(Set(reports.compactMap(\.groupingKey)).count, 2)
        XCTAssertEqual(Set(reports.map(\.appFacingMethod)), ["-[NSArray objectAtIndex:]"])
    }
}
#endif
