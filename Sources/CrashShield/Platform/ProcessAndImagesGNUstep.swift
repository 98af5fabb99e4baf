#if !canImport(Darwin)
// The Linux platform unit for the report's context, compiled only on the proving ground (a phone runs its twin,
// ProcessAndImagesApple.swift): the system from uname, the process's age from /proc, and a binary image's load bias,
// size and GNU build ID from the dynamic linker's program headers.
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The system and the process, for `ProcessContext` and the report store.
enum PlatformProcess {
    /// `getrlimit(RLIMIT_FSIZE)` (glibc types the resource as an enum).
    static func fileSizeLimit(_ limit: inout rlimit) -> Int32 {
        getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
    }

    static func system() -> (name: String, version: String, build: String?, device: String) {
        var names = utsname()
        guard uname(&names) == 0 else { return ("unknown", "unknown", nil, "unknown") }
        return (
            utsnameField(&names.sysname), utsnameField(&names.release), utsnameField(&names.version),
            utsnameField(&names.machine)
        )
    }

    private static func utsnameField<T>(_ field: inout T) -> String {
        withUnsafePointer(to: &field) {
            $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout<T>.size) { String(cString: $0) }
        }
    }

    /// From /proc: the system's uptime minus the process's start time since boot (field 22 of /proc/self/stat, in
    /// clock ticks).
    static func age() -> TimeInterval? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 19, let start = Double(fields[19]), ticks > 0,
            let up = uptime.split(separator: " ").first.flatMap({ Double($0) })
        else { return nil }
        return max(0, up - start / ticks)
    }
}

/// A binary image's load bias, size and identity, for `ImageCatalog`.
enum PlatformImages {
    #if canImport(Glibc) && (arch(x86_64) || arch(arm64))
    /// `dl_iterate_phdr`'s callback: (struct dl_phdr_info *, size, data).
    private typealias PhdrCallback = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
    /// `dl_iterate_phdr` from <link.h>, which Swift's Glibc module does not import: found by name.
    private static let iteratePhdr = dlsym(nil, "dl_iterate_phdr").map {
        unsafeBitCast($0, to: (@convention(c) (PhdrCallback, UnsafeMutableRawPointer?) -> Int32).self)
    }

    /// Load bias, span and GNU build ID from the dynamic linker's program headers (`dl_iterate_phdr`).
    static func describe(_ image: inout BinaryImage) {
        guard let iteratePhdr else { return }
        withUnsafeMutablePointer(to: &image) { pointer in
            _ = iteratePhdr(
                { info, _, data in
                    guard let info, let data else { return 0 }
                    // glibc's 64-bit struct dl_phdr_info: dlpi_addr at 0, dlpi_name at 8, dlpi_phdr at 16, dlpi_phnum at 24.
                    let image = data.assumingMemoryBound(to: BinaryImage.self)
                    let bias = UInt64(info.load(as: UInt.self))
                    let headers = UnsafeBufferPointer(
                        start: info.load(fromByteOffset: 16, as: UnsafePointer<Elf64_Phdr>?.self),
                        count: Int(info.load(fromByteOffset: 24, as: UInt16.self)))
                    let loads = headers.filter { $0.p_type == PT_LOAD }
                    guard let first = loads.map(\.p_vaddr).min(),
                        let end = loads.map({ $0.p_vaddr + $0.p_memsz }).max(),
                        bias &+ (first & ~(UInt64(getpagesize()) - 1)) == image.pointee.loadAddress
                    else { return 0 }
                    image.pointee.slide = Int64(bitPattern: bias)
                    image.pointee.size = end - first
                    for note in headers where note.p_type == PT_NOTE {
                        let start = UnsafeRawPointer(bitPattern: UInt(bias &+ note.p_vaddr))
                        let alignment = max(4, Int(note.p_align))
                        if let start,
                            let id = ELFNote.gnuBuildID(
                                in: UnsafeRawBufferPointer(start: start, count: Int(note.p_memsz)),
                                alignment: alignment)
                        {
                            image.pointee.buildID = id
                        }
                    }
                    return 1
                }, pointer)
        }
    }

    #else
    static func describe(_ image: inout BinaryImage) {}
    #endif
}
#endif
