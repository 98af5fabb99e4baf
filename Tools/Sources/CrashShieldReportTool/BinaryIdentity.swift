@_spi(CrashShieldTools) import CrashShield
import Foundation

/// What identifies a binary file's build: its GNU build ID (ELF) or its UUIDs (Mach-O, one per slice of a universal
/// file). Symbols come only from the build a report's frames ran: the symbolicator matches by these, never by name.
public struct BinaryIdentity: Equatable {
    /// ELF: the NT_GNU_BUILD_ID note (lowercase hex).
    public var buildID: String?
    /// Mach-O: each slice's LC_UUID (32 uppercase hex digits, as reports write them).
    public var uuids: [String] = []

    /// Reads the identity of the file at `path`; nil when it is neither ELF nor Mach-O, or cannot be read.
    public static func read(_ path: String) -> BinaryIdentity? {
        // Mapped, not read: a binary may be large, and only its headers and notes are looked at.
        guard let file = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        func bytes(_ offset: UInt64, _ count: Int) -> Data? {
            guard count > 0, offset <= UInt64(file.count), UInt64(count) <= UInt64(file.count) - offset else {
                return nil
            }
            let start = file.startIndex + Int(offset)
            return file.subdata(in: start..<start + count)
        }
        guard let head = bytes(0, 64) else { return nil }
        if head.starts(with: [0x7F, 0x45, 0x4C, 0x46]) { return elf(head, bytes) }
        if let uuids = machO(head, at: 0, bytes) { return BinaryIdentity(uuids: uuids) }
        return nil
    }

    // MARK: ELF (64-bit, little-endian: what CrashShield runs on)

    private static func elf(_ head: Data, _ bytes: (UInt64, Int) -> Data?) -> BinaryIdentity? {
        guard head[4] == 2, head[5] == 1 else { return BinaryIdentity() }  // ELFCLASS64, ELFDATA2LSB
        let phoff = head.le(UInt64.self, 0x20), phentsize = Int(head.le(UInt16.self, 0x36))
        let phnum = Int(head.le(UInt16.self, 0x38))
        let shoff = head.le(UInt64.self, 0x28), shentsize = Int(head.le(UInt16.self, 0x3A))
        let shnum = Int(head.le(UInt16.self, 0x3C))
        // PT_NOTE segments (a loaded binary), then SHT_NOTE sections (a separate debug file has no segments).
        var notes: [(offset: UInt64, size: UInt64, align: UInt64)] = []
        if phentsize >= 56, let table = bytes(phoff, phentsize * phnum) {
            for index in 0..<phnum where table.le(UInt32.self, index * phentsize) == 4 {
                let base = index * phentsize
                notes.append(
                    (
                        table.le(UInt64.self, base + 8), table.le(UInt64.self, base + 32),
                        table.le(UInt64.self, base + 48)
                    ))
            }
        }
        if notes.isEmpty, shentsize >= 64, let table = bytes(shoff, shentsize * shnum) {
            for index in 0..<shnum where table.le(UInt32.self, index * shentsize + 4) == 7 {
                let base = index * shentsize
                notes.append(
                    (
                        table.le(UInt64.self, base + 24), table.le(UInt64.self, base + 32),
                        table.le(UInt64.self, base + 48)
                    ))
            }
        }
        for note in notes {
            guard let data = bytes(note.offset, Int(clamping: note.size)) else { continue }
            let id = data.withUnsafeBytes { ELFNote.gnuBuildID(in: $0, alignment: max(4, Int(clamping: note.align))) }
            if let id { return BinaryIdentity(buildID: id) }
        }
        return BinaryIdentity()
    }

    // MARK: Mach-O (thin 64-bit, or universal)

    private static func machO(_ head: Data, at start: UInt64, _ bytes: (UInt64, Int) -> Data?) -> [String]? {
        if head.starts(with: [0xCA, 0xFE, 0xBA, 0xBE]) {  // FAT_MAGIC, big-endian
            let count = Int(head.be(UInt32.self, 4))
            guard count > 0, count < 32, let table = bytes(8, 20 * count) else { return [] }
            return (0..<count).flatMap { index -> [String] in
                let offset = UInt64(table.be(UInt32.self, index * 20 + 8))
                guard let slice = bytes(offset, 32) else { return [] }
                return machO(slice, at: offset, bytes) ?? []
            }
        }
        guard head.le(UInt32.self, 0) == 0xFEEDFACF else { return nil }  // MH_MAGIC_64
        let commands = Int(head.le(UInt32.self, 16)), size = Int(head.le(UInt32.self, 20))
        guard let table = bytes(start + 32, size) else { return [] }
        var offset = 0
        for _ in 0..<commands where offset + 8 <= table.count {
            let command = table.le(UInt32.self, offset), length = Int(table.le(UInt32.self, offset + 4))
            if command == 0x1B, offset + 24 <= table.count {  // LC_UUID
                return [
                    table[table.startIndex + offset + 8..<table.startIndex + offset + 24]
                        .map { String(format: "%02X", $0) }.joined()
                ]
            }
            guard length >= 8 else { break }
            offset += length
        }
        return []
    }
}

private extension Data {
    func le<T: FixedWidthInteger>(_ type: T.Type, _ offset: Int) -> T {
        guard offset >= 0, offset + MemoryLayout<T>.size <= count else { return 0 }
        return withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }

    func be<T: FixedWidthInteger>(_ type: T.Type, _ offset: Int) -> T {
        guard offset >= 0, offset + MemoryLayout<T>.size <= count else { return 0 }
        return withUnsafeBytes { T(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
