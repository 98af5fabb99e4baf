#if canImport(Darwin)
// Apple's platform unit for the report's context: the system, the device and the process's age from sysctl, and a
// binary image's slide, size and UUID from dyld and its load commands. Its twin, ProcessAndImagesGNUstep.swift, reads
// the same from Linux (uname, /proc, the ELF program headers); each compiles to nothing on the other platform.
import Darwin
import Foundation
import MachO

/// The system and the process, for `ProcessContext` and the report store.
enum PlatformProcess {
    /// `getrlimit(RLIMIT_FSIZE)`.
    static func fileSizeLimit(_ limit: inout rlimit) -> Int32 { getrlimit(RLIMIT_FSIZE, &limit) }

    static func system() -> (name: String, version: String, build: String?, device: String) {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let text = "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
        #if os(macOS)
        let name = "macOS", device = sysctlString("hw.model")
        #elseif targetEnvironment(macCatalyst)
        // An iPad app built for the Mac (os(iOS) there too): ProcessInfo answers the macOS version, hw.model the Mac.
        let name = "Mac Catalyst", device = sysctlString("hw.model")
        #else
        #if os(iOS)
        let name = "iOS"
        #elseif os(tvOS)
        let name = "tvOS"
        #elseif os(watchOS)
        let name = "watchOS"
        #else
        let name = "visionOS"
        #endif
        // In a simulator hw.machine is the Mac's architecture; the simulated model is in the environment.
        let device = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] ?? sysctlString("hw.machine")
        #endif
        return (name, text, sysctlString("kern.osversion"), device ?? "unknown")
    }

    private static func sysctlString(_ name: String) -> String? {
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: size)
        guard sysctlbyname(name, &buffer, &size, nil, 0) == 0 else { return nil }
        return String(cString: buffer)
    }

    /// From the kernel's process start time (`kern.proc.pid`).
    static func age() -> TimeInterval? {
        var info = kinfo_proc()
        var size = MemoryLayout<kinfo_proc>.stride
        var mib: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, getpid()]
        guard sysctl(&mib, u_int(mib.count), &info, &size, nil, 0) == 0 else { return nil }
        let start = info.kp_proc.p_un.__p_starttime
        let started = Date(timeIntervalSince1970: TimeInterval(start.tv_sec) + TimeInterval(start.tv_usec) / 1e6)
        return Date().timeIntervalSince(started)
    }
}

/// A binary image's slide, size and identity, for `ImageCatalog`.
enum PlatformImages {
    private static func hex(_ bytes: UnsafeRawBufferPointer, uppercase: Bool) -> String {
        bytes.map { String(format: uppercase ? "%02X" : "%02x", $0) }.joined()
    }

    /// Slide, `__TEXT` size and UUID from dyld and the image's load commands.
    static func describe(_ image: inout BinaryImage) {
        for index in 0..<_dyld_image_count() {
            guard let header = _dyld_get_image_header(index),
                UInt64(UInt(bitPattern: header)) == image.loadAddress
            else { continue }
            image.slide = Int64(_dyld_get_image_vmaddr_slide(index))
            guard header.pointee.magic == MH_MAGIC_64 else { return }
            var command = UnsafeRawPointer(header) + MemoryLayout<mach_header_64>.size
            for _ in 0..<header.pointee.ncmds {
                let load = command.load(as: load_command.self)
                if load.cmd == LC_UUID {
                    var uuid = command.load(as: uuid_command.self).uuid
                    image.uuid = withUnsafeBytes(of: &uuid) { hex($0, uppercase: true) }
                } else if load.cmd == LC_SEGMENT_64 {
                    var segment = command.load(as: segment_command_64.self)
                    let name = withUnsafeBytes(of: &segment.segname) {
                        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name == "__TEXT" { image.size = segment.vmsize }
                }
                command += Int(load.cmdsize)
            }
            return
        }
    }
}
#endif
