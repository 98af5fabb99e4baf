/// Errors from `JSONLinesReportStore`. Each says what to change; none deletes or rewrites reports already stored.
///
/// `init` and `load()`/`removeAll()` throw them; a report that could not be stored (`receive`) never throws: the error
/// is counted in `writeFailures`, kept in `lastFailure` and logged.
public enum ReportStoreError: Error, Equatable, CustomStringConvertible {
    /// `maxBytes` is below the smallest useful cap.
    case maxBytesTooSmall(Int, minimum: Int)
    /// `maxBytes` is above the largest cap: the store would in effect have no size bound (the file is read whole to
    /// compact and load it, so the cap also bounds the memory those take).
    case maxBytesTooLarge(Int, maximum: Int)
    /// `maxReportBytes` is below the smallest useful bound or above `maxBytes / 2` (a report must fit in a compacted file).
    case maxReportBytesOutOfRange(Int, minimum: Int, maximum: Int)
    /// The URL is not a `file:` URL.
    case notAFileURL(String)
    /// The path names a directory, not a file.
    case isDirectory(path: String)
    /// The path is a symbolic link. The store never follows one (it would write, and replace, whatever the link names).
    case symbolicLink(path: String)
    /// The path is a device, a FIFO, a socket: anything but a regular file. `kind` says which.
    case notARegularFile(path: String, kind: String)
    /// The folder that should hold the file cannot be created or written.
    case folderNotWritable(path: String, reason: String)
    /// The file exists but is not writable.
    case fileNotWritable(path: String, reason: String)
    /// The file is not empty, yet no line in it is a report. It was left exactly as it is.
    case unreadable(path: String, reason: String)
    /// One report is larger than `maxReportBytes` even with its call stack cut to the caller's frame: it was not
    /// stored, and nothing already stored was changed.
    case reportTooLarge(signature: String, bytes: Int, maximum: Int)
    /// Writing would take a file past the process's file-size limit (RLIMIT_FSIZE): nothing was written (a write past
    /// it would raise SIGXFSZ, which kills the process unless the app handles it).
    case fileSizeLimit(path: String, bytes: Int, limit: Int)
    /// Another process sharing the store held its lock file longer than `seconds` (it is stopped or stuck while
    /// writing): the operation was not done, rather than making the app wait.
    case lockTimedOut(path: String, seconds: Double)
    /// A file operation failed (reading the file, writing, compacting, locking it, removing it).
    case ioFailed(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .maxBytesTooSmall(let value, let minimum):
            return "maxBytes is \(value); pass at least \(minimum) bytes so that a few reports fit"
        case .maxBytesTooLarge(let value, let maximum):
            return "maxBytes is \(value), which leaves the report file without a useful size bound; pass at most "
                + "\(maximum) bytes (the file is read whole to compact and load it)"
        case .maxReportBytesOutOfRange(let value, let minimum, let maximum):
            return
                "maxReportBytes is \(value); pass a bound from \(minimum) to \(maximum) bytes (maxBytes / 2, so that "
                + "a report always fits in a compacted file)"
        case .notAFileURL(let url):
            return "'\(url)' is not a file URL; pass a URL made with URL(fileURLWithPath:)"
        case .isDirectory(let path):
            return "'\(path)' is a directory; pass the URL of a file inside it, such as '\(path)/crash-reports.jsonl'"
        case .symbolicLink(let path):
            return "'\(path)' is a symbolic link; the report store does not follow links: pass the path of a regular "
                + "file (or of one that does not exist yet)"
        case .notARegularFile(let path, let kind):
            return "'\(path)' is \(kind), not a regular file; pass the path of a regular file (or of one that does not "
                + "exist yet)"
        case .folderNotWritable(let path, let reason):
            return "the folder '\(path)' cannot be created or written (\(reason)); choose a folder the app can write, "
                + "such as its caches or application support folder"
        case .fileNotWritable(let path, let reason):
            return "the report file '\(path)' is not writable (\(reason)); fix its permissions or choose another file"
        case .unreadable(let path, let reason):
            return "no line of '\(path)' is a crash report (\(reason)); the file was left unchanged: move it aside "
                + "or remove it (removeAll()) to start a new one"
        case .reportTooLarge(let signature, let bytes, let maximum):
            return "the report '\(signature)' takes \(bytes) bytes with its call stack cut to the caller's frame, more "
                + "than maxReportBytes (\(maximum)); it was not stored and the stored reports are unchanged: raise "
                + "maxReportBytes or shorten the report's reason and details"
        case .fileSizeLimit(let path, let bytes, let limit):
            return "writing '\(path)' would make a file of \(bytes) bytes, past the process's file-size limit "
                + "(RLIMIT_FSIZE, \(limit) bytes); nothing was written: raise the limit or lower maxBytes"
        case .lockTimedOut(let path, let seconds):
            return "another process held the report store's lock '\(path)' for more than \(seconds) s (a process "
                + "sharing the store is stopped or stuck while writing); the operation was not done, rather than "
                + "making the app wait: try again later"
        case .ioFailed(let path, let operation, let reason):
            return "could not \(operation) '\(path)': \(reason)"
        }
    }
}
