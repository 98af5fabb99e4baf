// swift-tools-version:5.9
//
// CrashShield's proof and tools, apart from the product an app links (../Package.swift): the scenario catalog (real
// crashing Objective-C app code), the crash matrix, the proof kit (fuzzer, stress, churn), the bench, the report
// tool, and the tests that use them. It depends on the library by path, so it always builds this checkout.
//
//   swift build --package-path Tools --product crashshield-matrix      (scripts/demo.sh)
//   swift test --package-path Tools                                     (scripts/test.sh runs both packages' tests)
//
// The Objective-C targets need the same flags as the library's on Linux (GNUstep Base on GCC's libobjc); they are
// repeated here because a manifest cannot import another.
import PackageDescription
import Foundation

/// Compiler flags for the Objective-C targets: empty on Apple platforms.
let objcFlags: [CSetting]
/// Libraries every binary links: empty on Apple platforms (Foundation and libobjc come with the OS).
let objcLinks: [LinkerSetting]
/// The Objective-C API's targets use blocks: on Linux clang's `-fblocks` and Debian's libBlocksRuntime
/// (libblocksruntime-dev); Apple platforms have both built in.
let objcBlockFlags: [CSetting]
let objcBlockLinks: [LinkerSetting]

#if os(Linux)
/// GCC ships `objc/objc.h` in its own include folder; find it without running a process.
func gccObjCIncludeFolder() -> String {
    let root = "/usr/lib/gcc"
    let fm = FileManager.default
    for triple in ((try? fm.contentsOfDirectory(atPath: root)) ?? []).sorted() {
        let versions = ((try? fm.contentsOfDirectory(atPath: "\(root)/\(triple)")) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        for version in versions where fm.fileExists(atPath: "\(root)/\(triple)/\(version)/include/objc/objc.h") {
            return "\(root)/\(triple)/\(version)/include"
        }
    }
    return "/usr/lib/gcc/x86_64-linux-gnu/12/include"
}
objcFlags = [
    .unsafeFlags([
        "-fobjc-runtime=gcc", "-fno-blocks", "-fexceptions", "-fobjc-exceptions",
        "-DGNUSTEP", "-DGNUSTEP_BASE_LIBRARY=1", "-DGNU_RUNTIME=1", "-D_NATIVE_OBJC_EXCEPTIONS",
        "-fconstant-string-class=NSConstantString", "-fno-strict-aliasing",
        "-I/usr/include/GNUstep", "-I\(gccObjCIncludeFolder())",
        "-Wno-deprecated-objc-isa-usage", "-Wno-objc-root-class",
    ])
]
objcLinks = [.linkedLibrary("gnustep-base"), .linkedLibrary("objc"), .unsafeFlags(["-Xlinker", "--export-dynamic"])]
// The last of -fno-blocks/-fblocks wins. With blocks, GNUstep's headers include libobjc2's objc/blocks_runtime.h:
// ../Sources/CrashShieldObjC/GNUstepBlocks holds one that includes libBlocksRuntime's Block.h.
objcBlockFlags =
    objcFlags + [.unsafeFlags(["-fblocks", "-I\(Context.packageDirectory)/../Sources/CrashShieldObjC/GNUstepBlocks"])]
objcBlockLinks = objcLinks + [.linkedLibrary("BlocksRuntime")]
#else
objcFlags = []
objcLinks = [.linkedFramework("Foundation")]
objcBlockFlags = []
objcBlockLinks = objcLinks
#endif

let package = Package(
    name: "CrashShieldTools",
    platforms: [.iOS(.v13), .macOS(.v10_15)],
    products: [
        .executable(name: "crashshield-matrix", targets: ["crashshield-matrix"]),
        .executable(name: "crashshield-bench", targets: ["crashshield-bench"]),
        .executable(name: "crashshield-report", targets: ["crashshield-report"]),
        .executable(name: "crashshield-proof", targets: ["crashshield-proof"]),
    ],
    dependencies: [
        .package(name: "CrashShield", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The scenario catalog: real crashing Objective-C app code, one family per file.
        .target(name: "CrashShieldScenarios", cSettings: objcBlockFlags, linkerSettings: objcBlockLinks),
        // Runs every scenario in a child process, unprotected and protected.
        .target(
            name: "CrashShieldMatrix",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"),
                .product(name: "CrashShieldTesting", package: "CrashShield"),
                "CrashShieldScenarios",
            ]),
        .executableTarget(
            name: "crashshield-matrix",
            dependencies: [
                "CrashShieldMatrix", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Benchmark kernels in Objective-C (the calls an app makes) and the Swift driver.
        .target(name: "CrashShieldBenchKernels", cSettings: objcFlags, linkerSettings: objcLinks),
        .executableTarget(
            name: "crashshield-bench",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"), "CrashShieldBenchKernels",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The report files' reader, summary, export and symbolication; crashshield-report is its command line.
        .target(
            name: "CrashShieldReportTool",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"),
                .product(name: "CrashShieldUpload", package: "CrashShield"),  // gzip, for gzipped upload bodies
            ]),
        .executableTarget(
            name: "crashshield-report",
            dependencies: [
                "CrashShieldReportTool", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The proof tools: the fuzzer's call table, stress operations and churn cycles in Objective-C, and their
        // Swift driver (scripts/fuzz.sh, stress.sh, sanitize.sh).
        .target(name: "CrashShieldProofKit", cSettings: objcFlags, linkerSettings: objcLinks),
        .executableTarget(
            name: "crashshield-proof",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"),
                .product(name: "CrashShieldTesting", package: "CrashShield"), "CrashShieldProofKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The Objective-C API's tests: Objective-C app code using it (CrashShieldObjCScenarios), driven by XCTest.
        .target(
            name: "CrashShieldObjCScenarios",
            dependencies: [
                .product(name: "CrashShieldObjC", package: "CrashShield"), "CrashShieldScenarios",
            ], cSettings: objcBlockFlags, linkerSettings: objcBlockLinks),
        .testTarget(
            name: "CrashShieldObjCTests",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"),
                .product(name: "CrashShieldUpload", package: "CrashShield"), "CrashShieldObjCScenarios",
            ]),
        // Every guard against real crashing app code, the matrix, the proof kit and the report tool.
        .testTarget(
            name: "CrashShieldTests",
            dependencies: [
                .product(name: "CrashShield", package: "CrashShield"),
                .product(name: "CrashShieldTesting", package: "CrashShield"),
                .product(name: "CrashShieldUpload", package: "CrashShield"),
                .product(name: "CrashShieldNotifications", package: "CrashShield"),
                "CrashShieldMatrix", "CrashShieldScenarios", "CrashShieldReportTool", "CrashShieldProofKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]),
    ]
)
