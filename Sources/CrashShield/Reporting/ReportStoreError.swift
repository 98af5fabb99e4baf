/// Errors from `JSONLinesReportStore`. Each says what to change; none deletes or rewrites reports already stored.
public enum ReportStoreError: Error, Equatable, CustomStringConvertible {
    /// `maxBytes` is below the smallest useful cap.
    case maxBytesTooSmall(Int, minimum: Int)
    /// The URL is not a `file:` URL.
    case notAFileURL(String)
    /// The path names a directory, not a file.
    case isDirectory(path: String)
    /// The folder that should hold the file cannot be created or written.
    case folderNotWritable(path: String, reason: String)
    /// The file exists but is not writable.
    case fileNotWritable(path: String, reason: String)
    /// The file is not empty, yet no line in it is a report. It was left exactly as it is.
    case unreadable(path: String, reason: String)
    /// A file operation failed (reading the file, removing it).
    case ioFailed(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .maxBytesTooSmall(let value, let minimum):
            return "maxBytes is \(value); pass at least \(minimum) bytes so that a few reports fit"
        case .notAFileURL(let url):
            return "'\(url)' is not a file URL; pass a URL made with URL(fileURLWithPath:)"
        case .isDirectory(let path):
            return "'\(path)' is a directory; pass the URL of a file inside it, such as '\(path)/crash-reports.jsonl'"
        case .folderNotWritable(let path, let reason):
            return "the folder '\(path)' cannot be created or written (\(reason)); choose a folder the app can write, "
                + "such as its caches or application support folder"
        case .fileNotWritable(let path, let reason):
            return "the report file '\(path)' is not writable (\(reason)); fix its permissions or choose another file"
        case .unreadable(let path, let reason):
            return "no line of '\(path)' is a crash report (\(reason)); the file was left unchanged: move it aside "
                + "or remove it (removeAll()) to start a new one"
        case .ioFailed(let path, let operation, let reason):
            return "could not \(operation) '\(path)': \(reason)"
        }
    }
}
