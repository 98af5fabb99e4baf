import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// What apps see of CrashShield's C layer: the C API (CrashShield.h), not the runtime layer under it.
final class PublicAPITests: XCTestCase {
    /// Compiles an Objective-C file that imports the runtime module as an app would: the C API is there, a csr_*
    /// function of the runtime layer is not.
    func testTheRuntimeModuleExportsOnlyTheCAPIToApps() throws {
        let fm = FileManager.default
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        guard let clang = path.split(separator: ":").map({ "\($0)/clang" }).first(where: fm.isExecutableFile) else {
            throw XCTSkip("no clang on PATH")
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let include = root.appendingPathComponent("Sources/CrashShieldRuntime/include").path
        // GCC's objc headers (the runtime layer's own headers include <objc/runtime.h>).
        let gcc = ((try? fm.contentsOfDirectory(atPath: "/usr/lib/gcc/x86_64-linux-gnu")) ?? [])
            .map { "/usr/lib/gcc/x86_64-linux-gnu/\($0)/include" }
            .first { fm.fileExists(atPath: "\($0)/objc/runtime.h") }
        let folder = fm.temporaryDirectory.appendingPathComponent("csapi-\(UUID().uuidString)")
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: folder) }

        func compile(_ body: String) throws -> (status: Int32, output: String) {
            let source = folder.appendingPathComponent("App\(UUID().uuidString.prefix(6)).m")
            try "@import CrashShieldRuntime;\n\(body)\n".write(to: source, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: clang)
            process.arguments =
                [
                    "-fsyntax-only", "-fmodules", "-fobjc-runtime=gcc",
                    "-fmodules-cache-path=\(folder.path)/modules",
                    "-fmodule-map-file=\(include)/module.modulemap", "-I", include,
                ]
                + (gcc.map { ["-I", $0] } ?? []) + [source.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }

        let api = try compile("void f(void) { crashshield_start(false); crashshield_flush(1.0); crashshield_stop(); }")
        XCTAssertEqual(api.status, 0, "the C API compiles for an app: \(api.output)")
        let layer = try compile("int g(void) { return csr_backtrace(0, 0); }")
        XCTAssertNotEqual(layer.status, 0, "the runtime layer must not be visible to apps")
        XCTAssertTrue(layer.output.contains("csr_backtrace"), layer.output)
    }
}
#endif
