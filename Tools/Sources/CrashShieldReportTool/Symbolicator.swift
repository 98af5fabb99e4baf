import CrashShield
import Foundation

/// Readable frames for a report, with the binaries at hand.
///
/// Symbols come only from the build the frames ran: a binary is matched by its GNU build ID (ELF) or UUID (Mach-O),
/// as the report's context recorded them, never by name alone. The search paths come first (by file name, then any
/// file or `.dSYM` there with the right ID, and GDB's `.build-id/xx/rest.debug` layout), then the recorded path; a
/// binary whose ID differs is refused with a note, and its frames stay raw. A report written before images had IDs
/// is symbolicated by name, with a note that the symbols are unverified.
/// - ELF reports (Linux): the matching file goes to `llvm-symbolizer` (else `addr2line`) with the frames' file
///   addresses: `address - 1 - slide` (the addresses are return addresses; the slide is the image's load bias from
///   the report's context, or its load address for reports without one, which is right for shared libraries and
///   position-independent executables).
/// - Mach-O reports (Apple: frames carry an image UUID): one `atos -o <image> -l <load address> <addresses>` command
///   per image, printed with the image's UUID and slide so that the matching dSYM can be used; run when `atos` is
///   installed and the matching image or dSYM is here.
/// - Swift symbols are demangled with `swift-demangle` when it is installed.
public struct Symbolicator {
    public var tools: SymbolTools
    /// Folders searched for images (by file name) and dSYMs (`<name>.dSYM`) not found at their recorded path.
    public var searchPaths: [String]

    public init(tools: SymbolTools = .installed(), searchPaths: [String] = []) {
        self.tools = tools
        self.searchPaths = searchPaths
    }

    /// What symbolicating one report found.
    public struct Result {
        /// Function names (with file:line when known) by frame index.
        public var names: [Int: String] = [:]
        /// The `atos` commands of a Mach-O report, one per image.
        public var atosCommands: [String] = []
        /// Why some frames stayed raw (an image not found, no symbolizer installed).
        public var notes: [String] = []
    }

    public func symbolicate(_ report: CrashReport) -> Result {
        var result = Result()
        let byImage = Dictionary(grouping: report.callStack.indices.filter { report.callStack[$0].imageBase != 0 }) {
            report.callStack[$0].imageBase
        }
        for base in byImage.keys.sorted() {
            let indices = byImage[base]!
            let frame = report.callStack[indices[0]]
            let image = report.context?.image(for: frame)
            if frame.imageUUID != nil || image?.uuid != nil {
                symbolicateMachO(report, indices, image: image, into: &result)
            } else {
                symbolicateELF(report, indices, image: image, into: &result)
            }
        }
        result.names = demangled(result.names)
        return result
    }

    /// `names` with Swift names demangled (`swift-demangle --compact`, when installed); others unchanged.
    func demangled(_ names: [Int: String]) -> [Int: String] {
        guard let demangler = tools.swiftDemangle, !names.isEmpty else { return names }
        let keys = names.keys.sorted()
        guard let demangled = Self.run(demangler, ["--compact"], input: keys.map { names[$0]! }),
            demangled.count == keys.count
        else { return names }
        var out = names
        for (key, name) in zip(keys, demangled) { out[key] = name }
        return out
    }

    /// A name for every frame that has one: from the binary at hand (`symbolicate`), else the symbol the device
    /// recorded; Swift names demangled either way.
    public func frameNames(_ report: CrashReport) -> [Int: String] {
        var names = symbolicate(report).names
        var recorded: [Int: String] = [:]
        for (index, frame) in report.callStack.enumerated() where names[index] == nil {
            if let symbol = frame.symbol, !symbol.isEmpty { recorded[index] = symbol }
        }
        names.merge(demangled(recorded)) { found, _ in found }
        return names
    }

    /// The caller frame's function from the binary at hand (only when it is the build that ran), or nil.
    public func callerName(_ report: CrashReport) -> String? {
        guard let index = report.callerFrameIndex, report.callStack.indices.contains(index) else { return nil }
        var one = report
        one.callStack = [report.callStack[index]]
        one.callerFrameIndex = 0
        return symbolicate(one).names[0]
    }

    /// `symbolicate --json`: one report's frames, named where the binary at hand names them.
    public struct JSONReport: Codable {
        public struct Frame: Codable {
            public var index: Int
            public var address: String
            public var location: String
            public var name: String?
            public var isCaller: Bool
        }
        public var signature: String
        public var method: String
        public var frames: [Frame]
        public var atosCommands: [String]
        public var notes: [String]
    }

    public func json(_ report: CrashReport) -> JSONReport {
        let result = symbolicate(report)
        return JSONReport(
            signature: report.signature, method: report.method,
            frames: report.callStack.enumerated().map { index, frame in
                JSONReport.Frame(
                    index: index, address: ReportText.hex(frame.address), location: ReportText.location(frame),
                    name: result.names[index] ?? frame.symbol, isCaller: index == report.callerFrameIndex)
            },
            atosCommands: result.atosCommands, notes: result.notes)
    }

    /// The text `symbolicate` prints for one report.
    public func text(_ report: CrashReport) -> String {
        let result = symbolicate(report)
        var lines = ["\(report.method)  \(report.signature)"]
        lines += result.atosCommands
        lines += result.notes.map { "note: " + $0 }
        lines += ReportText.stack(report, names: result.names)
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - ELF

    private func symbolicateELF(_ report: CrashReport, _ indices: [Int], image: BinaryImage?, into result: inout Result)
    {
        let frame = report.callStack[indices[0]]
        guard
            let file = locate(
                frame.image, id: image?.buildID, kind: "build ID", into: &result,
                identity: { $0.buildID.map { [$0] } ?? [] })
        else { return }
        guard let symbolizer = tools.elfSymbolizer else {
            return result.notes.append("neither llvm-symbolizer nor addr2line is installed")
        }
        let slide = image?.slide.map { UInt64(bitPattern: $0) } ?? frame.imageBase
        let addresses = indices.map { ReportText.hex(report.callStack[$0].address &- 1 &- slide) }
        let arguments =
            symbolizer.isLLVM
            ? ["--obj=" + file, "--output-style=GNU", "--no-inlines", "--functions=linkage", "--demangle"] + addresses
            : ["-f", "-C", "-e", file] + addresses
        guard let output = Self.run(symbolizer.path, arguments), output.count >= 2 * indices.count else {
            return result.notes.append("\(symbolizer.path) failed on \(file)")
        }
        for (position, index) in indices.enumerated() {
            let function = output[2 * position], place = output[2 * position + 1]
            guard function != "??" else { continue }
            let known = !place.hasPrefix("??") && !place.hasSuffix(":0") && !place.hasSuffix(":?")
            result.names[index] = function + (known ? " (\(place))" : "")
        }
    }

    // MARK: - Mach-O

    private func symbolicateMachO(
        _ report: CrashReport, _ indices: [Int], image: BinaryImage?,
        into result: inout Result
    ) {
        let frame = report.callStack[indices[0]]
        let name = (frame.image as NSString).lastPathComponent
        let uuid = image?.uuid ?? frame.imageUUID
        var lookup = Result()
        let local = locate(frame.image, id: uuid, kind: "UUID", into: &lookup, identity: \.uuids, dSYMs: true)
        let load = image?.loadAddress ?? frame.imageBase
        let addresses = indices.map { ReportText.hex(report.callStack[$0].address) }
        let arguments = ["-o", local ?? frame.image, "-l", ReportText.hex(load)] + addresses
        let slide = (image?.slide ?? frame.slide).map { ReportText.hex(UInt64(bitPattern: $0)) } ?? "?"
        result.atosCommands.append(
            (["atos"] + arguments).map(Self.shellQuoted).joined(separator: " ")
                + "   # \(name) uuid \(uuid ?? "?") slide \(slide)"
                + (local == nil ? " (image not here: use its dSYM)" : ""))
        result.notes += lookup.notes
        guard local != nil, let atos = tools.atos else { return }
        guard let output = Self.run(atos, arguments), output.count >= indices.count else {
            return result.notes.append("atos failed on \(frame.image)")
        }
        for (position, index) in indices.enumerated() where !output[position].hasPrefix("0x") {
            result.names[index] = output[position]
        }
    }

    // MARK: - Files and processes

    /// The binary of the build that ran `path`: the first candidate whose identity has `id` (search paths before the
    /// recorded path; see the type's documentation). Without `id` (an old report), the first candidate that exists,
    /// noted as unverified. nil, with a note, when none matches.
    private func locate(
        _ path: String, id: String?, kind: String, into result: inout Result,
        identity: (BinaryIdentity) -> [String], dSYMs: Bool = false
    ) -> String? {
        let name = (path as NSString).lastPathComponent
        var candidates: [String] = []
        for folder in searchPaths {
            if dSYMs { candidates.append("\(folder)/\(name).dSYM/Contents/Resources/DWARF/\(name)") }
            candidates.append((folder as NSString).appendingPathComponent(name))
            if let id, id.count > 2, !dSYMs {
                candidates.append("\(folder)/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug")
            }
        }
        candidates.append(path)
        let existing = candidates.filter { FileManager.default.isReadableFile(atPath: $0) }
        guard let id else {
            guard let first = existing.first else {
                result.notes.append("\(path) is not here (give its folder with --search-path)")
                return nil
            }
            result.notes.append("\(name): the report records no \(kind), symbols from \(first) are unverified")
            return first
        }
        if let match = existing.first(where: { BinaryIdentity.read($0).map(identity)?.contains(id) == true }) {
            return match
        }
        // Any file (or dSYM) of the search paths with that ID, whatever its name.
        for folder in searchPaths {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for entry in entries.sorted() {
                var file = (folder as NSString).appendingPathComponent(entry)
                if dSYMs, entry.hasSuffix(".dSYM") {
                    let dwarf = "\(file)/Contents/Resources/DWARF"
                    guard let inner = try? FileManager.default.contentsOfDirectory(atPath: dwarf).first else {
                        continue
                    }
                    file = "\(dwarf)/\(inner)"
                }
                if BinaryIdentity.read(file).map(identity)?.contains(id) == true { return file }
            }
        }
        let seen = existing.map { file in
            "\(file) has \(BinaryIdentity.read(file).map(identity)?.joined(separator: ", ") ?? "none")"
        }
        result.notes.append(
            "\(name): no binary with \(kind) \(id) here"
                + (seen.isEmpty ? "" : " (refused: " + seen.joined(separator: "; ") + ")")
                + "; give the folder of that build with --search-path")
        return nil
    }

    static func shellQuoted(_ text: String) -> String {
        guard text.isEmpty || text.contains(where: { !($0.isLetter || $0.isNumber || "/._-+:,=@".contains($0)) })
        else { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The output lines of `executable arguments` (stdin from `input`), nil when it cannot run or fails.
    static func run(_ executable: String, _ arguments: [String], input: [String]? = nil) -> [String]? {
        #if os(Linux) || os(macOS)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        do { try process.run() } catch { return nil }
        if let input {
            // Written from another thread: a large input must not block while the output pipe fills.
            let writer = Thread {
                stdin.fileHandleForWriting.write(Data((input.joined(separator: "\n") + "\n").utf8))
                try? stdin.fileHandleForWriting.close()
            }
            writer.start()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
        #else
        // iOS, tvOS, watchOS: an app cannot start processes; the atos commands are printed, never run.
        return nil
        #endif
    }
}

/// The symbolication programs found on this machine.
public struct SymbolTools {
    public struct ELFSymbolizer {
        public var path: String
        /// llvm-symbolizer (else addr2line: other options).
        public var isLLVM: Bool
    }

    public var elfSymbolizer: ELFSymbolizer?
    public var atos: String?
    public var swiftDemangle: String?

    public init(elfSymbolizer: ELFSymbolizer? = nil, atos: String? = nil, swiftDemangle: String? = nil) {
        self.elfSymbolizer = elfSymbolizer
        self.atos = atos
        self.swiftDemangle = swiftDemangle
    }

    /// Looks the programs up in `PATH`; `symbolizer` (a path or name of llvm-symbolizer or addr2line) wins.
    public static func installed(
        symbolizer: String? = nil,
        path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    ) -> SymbolTools {
        let folders = path.split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
            return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let elf: ELFSymbolizer?
        if let symbolizer {
            elf = find(symbolizer).map { ELFSymbolizer(path: $0, isLLVM: !symbolizer.hasSuffix("addr2line")) }
        } else {
            elf =
                find("llvm-symbolizer").map { ELFSymbolizer(path: $0, isLLVM: true) }
                ?? find("addr2line").map { ELFSymbolizer(path: $0, isLLVM: false) }
        }
        return SymbolTools(elfSymbolizer: elf, atos: find("atos"), swiftDemangle: find("swift-demangle"))
    }
}
