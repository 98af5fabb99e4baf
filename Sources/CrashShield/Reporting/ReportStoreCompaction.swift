import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Compaction of a `JSONLinesReportStore`'s file: when an append would pass `maxBytes`, the file is rewritten with one
/// line per signature and launch, newest first, in `maxBytes / 2`, through a temporary file renamed over it.
extension JSONLinesReportStore {
    /// Rewrites the file with one line per signature and launch: newest first, every one that still fits in
    /// `maxBytes / 2`.
    /// On failure the original file is untouched. Both locks held.
    func compactLocked() throws {
        guard let bytes = try ReportStoreFile.readAll(path) else { return }
        let parsed = ReportStoreLines(parsing: bytes)
        if parsed.entries.isEmpty {
            guard parsed.hasContent else { return }
            // Nothing readable: keep the bytes for a person to look at rather than deleting them.
            let aside = path + ".unreadable"
            guard rename(path, aside) == 0 else {
                throw ReportStoreError.ioFailed(
                    path: path, operation: "move aside the unreadable file",
                    reason: ReportStoreFile.errnoText(errno))
            }
            logger.warning(
                "the crash report file had no readable line; moved it aside", metadata: ["file": .string(aside)])
            return
        }
        if parsed.skippedLines > 0 {
            logger.warning(
                "compaction dropped unreadable lines of the crash report file",
                metadata: [
                    "file": .string(path), "lines": .stringConvertible(parsed.skippedLines),
                ])
        }
        // Latest line per signature and launch (it holds that launch's count), ranked by when the report was last
        // seen (then by position in the file).
        var latest: [String: Int] = [:]
        for (index, entry) in parsed.entries.enumerated() {
            latest[ReportCounting.launchKey(entry.report, source: path)] = index
        }
        let ranked = latest.values.sorted {
            let a = parsed.entries[$0], b = parsed.entries[$1]
            return a.report.lastSeen != b.report.lastSeen ? a.report.lastSeen > b.report.lastSeen : $0 > $1
        }
        var budget = maxBytes / 2
        var kept: [Int] = []
        for index in ranked {
            // A report that does not fit is skipped: older, smaller ones may still fit.
            let size = parsed.entries[index].line.count + 1
            guard size <= budget else { continue }
            budget -= size
            kept.append(index)
        }
        // Keep first-appearance order so that load() lists reports as they first happened.
        var firstIndex: [String: Int] = [:]
        for (index, entry) in parsed.entries.enumerated() where firstIndex[entry.report.signature] == nil {
            firstIndex[entry.report.signature] = index
        }
        kept.sort {
            firstIndex[parsed.entries[$0].report.signature]! < firstIndex[parsed.entries[$1].report.signature]!
        }
        var output: [UInt8] = []
        output.reserveCapacity(maxBytes / 2)
        for index in kept {
            output += parsed.entries[index].line
            output.append(0x0A)
        }
        try replaceFile(with: output)
        compactions += 1
    }

    /// Writes `bytes` to a new temporary file (0600) in the same folder, syncs it, and renames it over the file.
    func replaceFile(with bytes: [UInt8]) throws {
        let temporary = temporaryPath()
        let create = O_WRONLY | O_CREAT | O_EXCL
        let fd: Int32
        do {
            fd = try ReportStoreFile.openRegularFile(temporary, create, operation: "create")
        } catch {
            // Left by a killed process whose id this one reuses (no live process writes it: the file lock is held).
            guard unlink(temporary) == 0 else { throw error }
            fd = try ReportStoreFile.openRegularFile(temporary, create, operation: "create")
        }
        do {
            defer { close(fd) }
            try ReportStoreFile.writeAll(fd, bytes, startingAt: 0, path: temporary)
            guard fsync(fd) == 0 else {
                throw ReportStoreError.ioFailed(
                    path: temporary, operation: "sync", reason: ReportStoreFile.errnoText(errno))
            }
            guard rename(temporary, path) == 0 else {
                throw ReportStoreError.ioFailed(
                    path: temporary, operation: "rename", reason: ReportStoreFile.errnoText(errno))
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // Make the rename itself durable; failure here is harmless (the old or new file is intact).
        let folder = open(fileURL.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    var temporaryPrefix: String { "." + fileURL.lastPathComponent + "." }

    func temporaryPath() -> String {
        fileURL.deletingLastPathComponent().appendingPathComponent("\(temporaryPrefix)\(getpid()).compacting").path
    }

    /// Removes temporary files left by a process killed mid-compaction (older than a minute, so as not to race a
    /// live process compacting the same file).
    func removeStaleTemporaryFiles(in folder: String) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(".compacting") {
            let full = (folder as NSString).appendingPathComponent(name)
            if let modified = (try? fm.attributesOfItem(atPath: full))?[.modificationDate] as? Date,
                Date().timeIntervalSince(modified) > 60
            {
                try? fm.removeItem(atPath: full)
            }
        }
    }
}
