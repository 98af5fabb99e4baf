import Foundation

extension CrashShield {
    /// This library's version; every report carries it (`ReportContext.crashShieldVersion`).
    public static let version = "0.1.0"
}

/// Where a report came from: the app, the OS, the device, this launch, and the binary images its frames point into
/// (what symbolication needs). Nothing about the user: no names, identifiers or values from the app's data.
///
/// Everything but `secondsSinceLaunch` and `images` is the same for every report of a process; it is collected once,
/// at the first report.
public struct ReportContext: Codable, Sendable, Equatable {
    /// The app's bundle identifier (Apple); elsewhere, or without one, the process name.
    public var appIdentifier: String
    /// `CFBundleShortVersionString`, when the app has one.
    public var appVersion: String?
    /// `CFBundleVersion`, when the app has one.
    public var appBuild: String?
    /// "iOS", "Mac Catalyst", "macOS", "tvOS", "watchOS", "visionOS" or, elsewhere, the kernel's name ("Linux").
    public var osName: String
    /// "17.4.1"; on Linux the kernel release ("6.1.0-18-amd64").
    public var osVersion: String
    /// Apple: the OS build ("21E236", `kern.osversion`); Linux: the kernel's version string.
    public var osBuild: String?
    /// Apple: the model ("iPhone15,2", `hw.machine`; "MacBookPro18,3" on macOS, `hw.model`; the simulated model in
    /// a simulator); Linux: the machine (`uname -m`, "x86_64").
    public var device: String
    /// `CrashShield.version` of the library that wrote the report.
    public var crashShieldVersion: String
    /// Random per process launch: every report of one process carries the same value.
    public var launchID: String
    /// Seconds from the process's start to the report's first occurrence.
    public var secondsSinceLaunch: Double
    /// The binary images the report's frames point into, in order of first use by the stack.
    public var images: [BinaryImage]

    public init(
        appIdentifier: String, appVersion: String? = nil, appBuild: String? = nil, osName: String,
        osVersion: String, osBuild: String? = nil, device: String,
        crashShieldVersion: String = CrashShield.version, launchID: String, secondsSinceLaunch: Double,
        images: [BinaryImage] = []
    ) {
        self.appIdentifier = appIdentifier
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.osName = osName
        self.osVersion = osVersion
        self.osBuild = osBuild
        self.device = device
        self.crashShieldVersion = crashShieldVersion
        self.launchID = launchID
        self.secondsSinceLaunch = secondsSinceLaunch
        self.images = images
    }

    /// This process's context for a report first seen at `date` whose stack is `callStack`.
    public static func current(callStack: [StackFrame], at date: Date = Date()) -> ReportContext {
        var context = ProcessContext.shared.context
        context.secondsSinceLaunch = max(0, date.timeIntervalSince(ProcessContext.shared.launchDate))
        context.images = ImageCatalog.shared.images(for: callStack)
        return context
    }

    /// The launch ID of this process (the one its reports carry).
    public static var currentLaunchID: String { ProcessContext.shared.context.launchID }

    /// The image a frame points into.
    public func image(for frame: StackFrame) -> BinaryImage? {
        images.first { $0.loadAddress == frame.imageBase && $0.path == frame.image }
    }
}

/// One binary image (executable or library) as loaded in the process that wrote the report.
public struct BinaryImage: Codable, Sendable, Equatable {
    /// File name ("MyApp", "libFoo.so").
    public var name: String
    /// Path at run time.
    public var path: String
    /// Where the image starts in memory (Apple: its Mach-O header; Linux: its first mapped segment).
    public var loadAddress: UInt64
    /// What was added to the addresses in the file: Apple, the ASLR slide from dyld; Linux, the load bias
    /// (`dlpi_addr`). A frame's address in the file is `address - slide`.
    public var slide: Int64?
    /// Apple: the size of the `__TEXT` segment; Linux: the span of the loaded segments.
    public var size: UInt64?
    /// Apple: the image's LC_UUID (32 uppercase hex digits, as `StackFrame.imageUUID`): it names its dSYM.
    public var uuid: String?
    /// Linux: the GNU build ID (lowercase hex, as `readelf -n` prints it).
    public var buildID: String?

    public init(
        name: String, path: String, loadAddress: UInt64, slide: Int64? = nil, size: UInt64? = nil,
        uuid: String? = nil, buildID: String? = nil
    ) {
        self.name = name
        self.path = path
        self.loadAddress = loadAddress
        self.slide = slide
        self.size = size
        self.uuid = uuid
        self.buildID = buildID
    }
}

/// What stays the same for every report of this process, collected once (at the first report).
final class ProcessContext: Sendable {
    static let shared = ProcessContext()

    /// Every field but the per-report ones.
    let context: ReportContext
    let launchDate: Date

    private init() {
        let now = Date()
        launchDate = now.addingTimeInterval(-(PlatformProcess.age() ?? 0))
        let bundle = Bundle.main
        // The Info.plist as it is, not `object(forInfoDictionaryKey:)`: that one looks for a localized value first,
        // which means listing the bundle's resources (on Linux, for a binary in a crowded directory, 108 M of the
        // first start()'s 159 M instructions); a version is not localized.
        let info = bundle.infoDictionary ?? [:]
        let system = PlatformProcess.system()
        context = ReportContext(
            appIdentifier: bundle.bundleIdentifier ?? ProcessInfo.processInfo.processName,
            appVersion: info["CFBundleShortVersionString"] as? String,
            appBuild: info["CFBundleVersion"] as? String,
            osName: system.name, osVersion: system.version, osBuild: system.build, device: system.device,
            launchID: UUID().uuidString, secondsSinceLaunch: 0)
    }

}

/// The images frames point into, looked up once per image and cached (a library loaded later is found by a new
/// lookup when a frame first points into it).
final class ImageCatalog: @unchecked Sendable {
    static let shared = ImageCatalog()

    private let lock = Lock()
    private var known: [UInt64: BinaryImage] = [:]

    /// One image per distinct load address of `frames`, in stack order; frames with no image are skipped.
    func images(for frames: [StackFrame]) -> [BinaryImage] {
        var seen = Set<UInt64>()
        var result: [BinaryImage] = []
        for frame in frames where frame.imageBase != 0 && seen.insert(frame.imageBase).inserted {
            result.append(image(for: frame))
        }
        return result
    }

    private func image(for frame: StackFrame) -> BinaryImage {
        if let cached = lock.withLock({ known[frame.imageBase] }) { return cached }
        var image = BinaryImage(
            name: (frame.image as NSString).lastPathComponent, path: frame.image,
            loadAddress: frame.imageBase, slide: frame.slide, uuid: frame.imageUUID)
        PlatformImages.describe(&image)
        lock.withLock { known[frame.imageBase] = image }
        return image
    }

}

/// ELF notes, read the same way from a loaded image (`ImageCatalog`) and from a file (the report tool's build-ID
/// match).
@_spi(CrashShieldTools) public enum ELFNote {
    /// The NT_GNU_BUILD_ID note's bytes, lowercase hex as `readelf -n` prints them, among the notes of one PT_NOTE
    /// segment or SHT_NOTE section (notes padded to `alignment`).
    public static func gnuBuildID(in notes: UnsafeRawBufferPointer, alignment: Int) -> String? {
        let gnuBuildIDType: UInt32 = 3  // NT_GNU_BUILD_ID
        func aligned(_ value: Int) -> Int { (value + alignment - 1) & ~(alignment - 1) }
        var offset = 0
        while offset + 12 <= notes.count {
            let nameSize = Int(notes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let descSize = Int(notes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            let type = notes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let name = offset + 12, desc = name + aligned(nameSize)
            guard nameSize >= 0, descSize >= 0, desc + descSize <= notes.count else { return nil }
            if type == gnuBuildIDType, nameSize == 4, Array(notes[name..<name + 4]) == Array("GNU\0".utf8) {
                return notes[desc..<desc + descSize].map { String(format: "%02x", $0) }.joined()
            }
            offset = desc + aligned(descSize)
        }
        return nil
    }
}
