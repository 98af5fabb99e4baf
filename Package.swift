// swift-tools-version:5.9
//
// CrashShield: crash protection for Objective-C runtimes, written in Swift.
//
// This package is what an app links: the library products and their own dependencies (swift-log, swift-atomics).
// The crash matrix, scenarios, proof kit, bench and report tool are a package of their own, Tools/Package.swift,
// which depends on this one by path.
//
// On Apple platforms the package needs no unsafe flags. On Linux it builds against GNUstep Base on GCC's
// libobjc (Debian: gobjc, libgnustep-base-dev); the flags that needs are added under `#if os(Linux)` only.
import PackageDescription
import Foundation

/// Compiler flags for the Objective-C targets: empty on Apple platforms.
let objcFlags: [CSetting]
/// Libraries every binary links: empty on Apple platforms (Foundation and libobjc come with the OS).
let objcLinks: [LinkerSetting]
/// The runtime links the blocks runtime for `_Block_copy` / `_Block_release` only (CSRWebKit.m builds its wrapper blocks by
/// the block ABI, without -fblocks). The Objective-C API's targets use blocks: on Linux clang's `-fblocks` and Debian's libBlocksRuntime
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
// Sources/CrashShieldObjC/GNUstepBlocks holds one that includes libBlocksRuntime's Block.h.
objcBlockFlags =
    objcFlags + [.unsafeFlags(["-fblocks", "-I\(Context.packageDirectory)/Sources/CrashShieldObjC/GNUstepBlocks"])]
objcBlockLinks = objcLinks + [.linkedLibrary("BlocksRuntime")]
#else
objcFlags = []
objcLinks = [.linkedFramework("Foundation")]
objcBlockFlags = []
objcBlockLinks = objcLinks
#endif

let package = Package(
    name: "CrashShield",
    platforms: [.iOS(.v13), .macOS(.v10_15)],
    products: [
        .library(name: "CrashShield", targets: ["CrashShield"]),
        .library(name: "CrashShieldTesting", targets: ["CrashShieldTesting"]),
        // Report uploads to your own endpoint (HTTPUploadSink) or to Sentry (SentrySink); links zlib.
        .library(name: "CrashShieldUpload", targets: ["CrashShieldUpload"]),
        // Closures observing notifications until their owner dies, and posting onto a chosen thread.
        .library(name: "CrashShieldNotifications", targets: ["CrashShieldNotifications"]),
        // The same library as one shared object (libCrashShieldDynamic.so), for C programs that link it directly:
        // scripts/gnustep-suite.sh runs GNUstep Base's own test suite with it.
        .library(name: "CrashShieldDynamic", type: .dynamic, targets: ["CrashShield"]),
        // The Objective-C API (CSShield, CSConfiguration, the seeds' notification categories), for Objective-C apps.
        .library(name: "CrashShieldObjC", targets: ["CrashShieldObjC"]),
    ],
    dependencies: [
        // A low floor: swift-log's newest releases declare swift-tools-version 6.2 (Xcode 26); an app on an older Xcode
        // resolves an older release. Only the tests use InMemoryLogging (in all platforms' manifests since 1.8).
        .package(url: "https://github.com/apple/swift-log", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
    ],
    targets: [
        // The thin Objective-C/C layer: runtime primitives, @try, forwarding. Every runtime difference lives here.
        .target(name: "CrashShieldRuntime", cSettings: objcFlags, linkerSettings: objcBlockLinks),
        // Public API, hook engine, guards, report pipeline.
        // PrivacyInfo.xcprivacy: App Store Connect rejects an upload whose code uses a required-reason API without a
        // declared reason (ITMS-91053). The report store's lstat/fstat and the compaction's modification dates read
        // files in the app's container (File Timestamp, C617.1); the defaults guard wraps the app's own
        // -[NSUserDefaults setObject:forKey:] calls (User Defaults, C56D.1). It collects nothing: reports stay on the
        // device unless the app adds a sink that sends them. Docs/AppleRuntime.md, "Privacy manifests";
        // scripts/check-privacy-manifest.sh checks it.
        .target(
            name: "CrashShield",
            dependencies: [
                "CrashShieldRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")]),
        // Report uploads (HTTPUploadSink, SentrySink): their own product, so an app that sends no reports links neither
        // them nor zlib. CrashShieldGzip is gzip for upload bodies through zlib's C API (libz ships with Apple's SDKs
        // and with Linux as zlib1g): the only target that links it.
        .target(name: "CrashShieldGzip", linkerSettings: [.linkedLibrary("z")]),
        // Its PrivacyInfo.xcprivacy declares the crash data it sends (not linked to the user, no tracking, app
        // functionality) and the file timestamps of its batch files (C617.1).
        .target(
            name: "CrashShieldUpload",
            dependencies: [
                "CrashShield", "CrashShieldGzip", .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")]),
        // The notification APIs an app opts into (CrashShield.observe, NotificationPoster): a product of their own.
        // The notification guard stays in CrashShield.
        .target(name: "CrashShieldNotifications", dependencies: ["CrashShield", "CrashShieldRuntime"]),
        // The Objective-C API: Objective-C classes and categories over a thin C layer of the Swift side
        // (Core/ObjCBridge.swift). Its own product, so Swift apps link none of its classes and categories.
        // It depends on CrashShieldUpload (CSConfiguration.uploadSinks and CSShield's upload statistics are part of
        // its classes: an Objective-C app links zlib) and CrashShieldNotifications (its notification categories).
        .target(
            name: "CrashShieldObjC", dependencies: ["CrashShield", "CrashShieldUpload", "CrashShieldNotifications"],
            cSettings: objcBlockFlags, linkerSettings: objcBlockLinks),
        // In-memory report sink for apps' own tests.
        .target(name: "CrashShieldTesting", dependencies: ["CrashShield"]),
        // The library's own tests: what needs no scenario catalog, crash matrix or tool (`swift test` here). The
        // rest, real crashing app code against every guard, is Tools/Tests (`swift test --package-path Tools`).
        .testTarget(
            name: "CrashShieldLibraryTests",
            dependencies: [
                "CrashShield", "CrashShieldTesting", "CrashShieldRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]),
    ]
)

// DocC: `CRASHSHIELD_DOCC=1 swift package generate-documentation --target CrashShield` (or CrashShieldUpload, CrashShieldNotifications). The plugin
// is added only when asked for, so an app that depends on CrashShield never resolves it.
if ProcessInfo.processInfo.environment["CRASHSHIELD_DOCC"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
