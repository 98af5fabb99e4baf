import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file operations of the JSON Lines store and its upload folders: regular files only (never through a
/// symbolic link), `0600`, whole reads and writes, the process's file-size limit checked before a write.
enum ReportStoreFile {
    /// Why the item at `path` cannot be the store's file; nil when it is missing or a regular file. Never follows a
    /// symbolic link.
    static func refusal(ofItemAt path: String) -> ReportStoreError? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return refusal(path: path, mode: info.st_mode)
    }

    static func refusal(path: String, mode: mode_t) -> ReportStoreError? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return .symbolicLink(path: path)
        case S_IFDIR: return .isDirectory(path: path)
        case S_IFCHR: return .notARegularFile(path: path, kind: "a character device")
        case S_IFBLK: return .notARegularFile(path: path, kind: "a block device")
        case S_IFIFO: return .notARegularFile(path: path, kind: "a FIFO")
        case S_IFSOCK: return .notARegularFile(path: path, kind: "a socket")
        default: return .notARegularFile(path: path, kind: "not a file")
        }
    }

    /// Opens `path` (created 0600 with `O_CREAT`) without following a symbolic link, and refuses anything but a
    /// regular file before a byte is read or written. `O_NONBLOCK` so that opening a FIFO cannot hang, `O_NOCTTY` so
    /// that a terminal cannot become the controlling one; neither changes how a regular file behaves.
    static func openRegularFile(_ path: String, _ flags: Int32, operation: String) throws -> Int32 {
        let fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            // ELOOP: a symbolic link; EISDIR: a directory.
            if code != ENOENT, code != EEXIST, let refusal = refusal(ofItemAt: path) { throw refusal }
            throw ReportStoreError.ioFailed(path: path, operation: operation, reason: errnoText(code))
        }
        var info = stat()
        let problem: ReportStoreError?
        if fstat(fd, &info) != 0 {
            problem = .ioFailed(path: path, operation: "inspect", reason: errnoText(errno))
        } else {
            problem = refusal(path: path, mode: info.st_mode)
        }
        if let problem {
            close(fd)
            throw problem
        }
        return fd
    }

    /// The file's bytes; nil when it does not exist.
    static func readAll(_ path: String) throws -> [UInt8]? {
        let fd: Int32
        let missing = ReportStoreError.ioFailed(path: path, operation: "open", reason: errnoText(ENOENT))
        do {
            fd = try openRegularFile(path, O_RDONLY, operation: "open")
        } catch let error as ReportStoreError where error == missing {
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReportStoreError.ioFailed(path: path, operation: "read", reason: errnoText(errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// Writes all of `bytes` to `fd`, whose writes land at `offset` (its size, for a file opened O_APPEND under the
    /// locks). First checks the process's file-size limit: a write past RLIMIT_FSIZE raises SIGXFSZ, whose default
    /// action kills the process; this way nothing is written and the store stays as it was.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], startingAt offset: Int, path: String) throws {
        if let limit = fileSizeLimit(), offset + bytes.count > limit {
            throw ReportStoreError.fileSizeLimit(path: path, bytes: offset + bytes.count, limit: limit)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReportStoreError.ioFailed(path: path, operation: "write", reason: errnoText(errno))
            }
            written += count
        }
    }

    /// The soft RLIMIT_FSIZE in bytes; nil when unlimited (RLIM_INFINITY is UInt64.max on Linux, 2^63-1 on Apple).
    static func fileSizeLimit() -> Int? {
        var limit = rlimit()
        let status = PlatformProcess.fileSizeLimit(&limit)
        guard status == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(limit.rlim_cur)
    }

    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

    static func reason(of error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return errnoText(Int32(underlying.code))
        }
        return error.localizedDescription
    }
}

extension JSONLinesReportStore {
    struct AppendFile {
        var fd: Int32
        var size: Int
        /// "\n" when the file ends in a torn line, so that the next line starts on a line of its own.
        var prefix: [UInt8]
    }

    func openForAppend() throws -> AppendFile {
        let fd = try ReportStoreFile.openRegularFile(path, O_RDWR | O_APPEND | O_CREAT, operation: "open")
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw ReportStoreError.ioFailed(path: path, operation: "inspect", reason: ReportStoreFile.errnoText(code))
        }
        let size = Int(info.st_size)
        var prefix: [UInt8] = []
        if size > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(size - 1)) == 1, last != 0x0A { prefix = [0x0A] }
        }
        return AppendFile(fd: fd, size: size, prefix: prefix)
    }
}
