import CrashShield
import Foundation
import Logging

/// A Sentry DSN, `https://<public key>@<host>[:port][/<path>]/<project id>`, and what it implies.
///
/// Whitespace around the DSN (a newline a file or an environment variable added) is removed. Anything that would make
/// a broken endpoint is refused: whitespace or control characters inside, a public key other than letters and
/// digits, a port outside 1...65535, a project id other than digits.
struct SentryDSN: Sendable, Equatable {
    /// The DSN, trimmed.
    public let dsn: String
    public let publicKey: String
    public let projectID: String
    /// `<scheme>://<host>[:port][/<path>]/api/<project>/envelope/`.
    public let envelopeURL: URL

    /// - Throws: `UploadError.invalidDSN` saying what is wrong.
    public init(_ text: String) throws {
        let dsn = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if dsn.unicodeScalars.contains(where: {
            CharacterSet.whitespacesAndNewlines.contains($0) || CharacterSet.controlCharacters.contains($0)
        }) {
            throw UploadError.invalidDSN(dsn, reason: "it contains spaces or control characters")
        }
        guard let components = URLComponents(string: dsn),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            throw UploadError.invalidDSN(dsn, reason: "not an http or https URL")
        }
        guard let key = components.user, !key.isEmpty else {
            throw UploadError.invalidDSN(dsn, reason: "no public key before '@'")
        }
        guard key.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) }) else {
            throw UploadError.invalidDSN(dsn, reason: "the public key '\(key)' is not letters and digits")
        }
        guard let host = components.host, !host.isEmpty else { throw UploadError.invalidDSN(dsn, reason: "no host") }
        if let port = components.port, !(1...65535).contains(port) {
            throw UploadError.invalidDSN(dsn, reason: "port \(port) is not 1...65535")
        }
        var path = components.path.split(separator: "/").map(String.init)
        guard let project = path.popLast(), !project.isEmpty else {
            throw UploadError.invalidDSN(dsn, reason: "no project id after the host")
        }
        guard project.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw UploadError.invalidDSN(dsn, reason: "the project id '\(project)' is not a number")
        }
        var envelope = URLComponents()
        envelope.scheme = scheme
        envelope.host = host
        envelope.port = components.port
        envelope.path = "/" + (path + ["api", project, "envelope"]).joined(separator: "/") + "/"
        guard let url = envelope.url else {
            throw UploadError.invalidDSN(dsn, reason: "no envelope URL can be made from it")
        }
        self.dsn = dsn
        publicKey = key
        projectID = project
        envelopeURL = url
    }

    /// The `X-Sentry-Auth` header value.
    var authHeader: String {
        "Sentry sentry_version=7, sentry_key=\(publicKey), sentry_client=\(SentryEnvelope.client)"
    }
}

/// Sends each report to Sentry as a handled error event (one envelope per report, `POST .../api/<project>/envelope/`
/// with `X-Sentry-Auth`), through the same machinery as `HTTPUploadSink` (persisted until sent, gzip,
/// `options.uploadedGuards`: by default all but `.mainThreadUI`), with Sentry's SDK rules for answers
/// (develop.sentry.dev/sdk/expected-features, "Dealing With Network Failures"; /sdk/rate-limiting): 2xx delivered;
/// any 4xx or 5xx discards the envelope with one log line (429 too: Sentry counts it as rate limited); only network
/// errors (refused, timed out, cut off) are retried, with backoff; `X-Sentry-Rate-Limits` on any answer (the limits
/// naming the `error` category or all categories) and a 429's `Retry-After` (60 s without one) stop sending until
/// they expire, and reports meanwhile are discarded (`UploadStatistics.rateLimitedReports`).
///
/// The event: `exception.values[0]` with the exception name as type, the reason as value, mechanism
/// `{type: "crashshield", handled: true}` and the stack oldest frame first (`in_app` for app images; the frames above
/// the caller, CrashShield's own, are not in-app, so Sentry points at the caller; `mechanism.data.caller_frame` is
/// the caller's index in `frames`); `debug_meta.images` for the images with a UUID (Apple) or a GNU build ID (Linux),
/// for server-side symbolication; the `app`, `os` and `device` contexts and, without a `release` given, the app's
/// `identifier@version+build` (from the report's `ReportContext`); `dist` (given, or the app's build);
/// `instruction_addr_adjustment: all` (every address is a return address); the caller's frame named after
/// `callerFunction` (a caller that made a tail call gets a frame of its own, without an address); tags `guard`,
/// `class`, `selector`, `action`, `caller` (`callerIdentity`: the same in every build); `in_app` never for the process's start-up (`_start`, `__libc_start_main`, dyld's `start`) or for
/// Objective-C and Swift runtime frames (`objc_msgSend`, forwarding, `swift_*`), wherever they are linked;
/// `fingerprint` (`SentryEnvelope.fingerprint`): CrashShield's grouping key where the caller is identified, so Sentry
/// groups as CrashShield does across builds; `extra.occurrences` and the rest of the report. The event id is the batch's
/// idempotency key: a retried envelope has the same id and Sentry keeps one.
public final class SentrySink: UploadSink, @unchecked Sendable {
    let dsn: SentryDSN

    /// - Parameters:
    ///   - dsn: the project's DSN (Sentry: Settings, Client Keys).
    ///   - folder: a folder the sink owns, for unsent events.
    ///   - options: headers, retries, caps and which guards are uploaded.
    ///   - environment: set on every event when given ("production").
    ///   - release: set on every event when given ("app@1.2").
    ///   - dist: the distribution (build) of the release; by default the app's build (`ReportContext.appBuild`).
    ///   - isAppImage: which images are the app's (`in_app`); by default every image outside the system's folders.
    ///   - logger: where the sink logs rejected envelopes and dropped reports.
    public init(
        dsn: String, folder: URL, options: UploadOptions = UploadOptions(), environment: String? = nil,
        release: String? = nil, dist: String? = nil,
        isAppImage: @escaping @Sendable (String) -> Bool = AppImages.isAppImage,
        logger: Logger = Logger(label: "CrashShield.Sentry")
    ) throws {
        let parsed = try SentryDSN(dsn)
        self.dsn = parsed
        let envelope = SentryEnvelope(
            dsn: parsed, environment: environment, release: release, dist: dist,
            isAppImage: isAppImage)
        super.init(
            queue: try UploadQueue(
                endpoint: parsed.envelopeURL, folder: folder, options: options, batchSize: 1,
                rules: .sentry, transport: URLSessionUploadTransport(), logger: logger
            ) { reports, key in
                // One report per envelope (batchSize 1). An empty batch is refused (the queue drops it with a log line):
                // never an index out of range in the app.
                guard let report = reports.first else {
                    throw EncodingError.invalidValue(reports, .init(codingPath: [], debugDescription: "an empty batch"))
                }
                return (
                    try envelope.encode(report, eventID: key),
                    ["Content-Type": "application/x-sentry-envelope", "X-Sentry-Auth": parsed.authHeader]
                )
            })
    }
}

/// Builds Sentry envelopes (https://develop.sentry.dev/sdk/envelopes/) holding one event.
struct SentryEnvelope: Sendable {
    static let client = "crashshield/\(CrashShield.version)"

    let dsn: SentryDSN
    let environment: String?
    let release: String?
    var dist: String? = nil
    let isAppImage: @Sendable (String) -> Bool

    init(
        dsn: SentryDSN, environment: String?, release: String?, dist: String? = nil,
        isAppImage: @escaping @Sendable (String) -> Bool
    ) {
        self.dsn = dsn
        self.environment = environment
        self.release = release
        self.dist = dist
        self.isAppImage = isAppImage
    }

    func encode(_ report: CrashReport, eventID: String) throws -> Data {
        let payload = try json(event(for: report, eventID: eventID))
        let header = try json([
            "event_id": eventID, "dsn": dsn.dsn, "sent_at": ReportCodec.timestamp(Date()),
            "sdk": ["name": "crashshield", "version": CrashShield.version],
        ])
        let itemHeader = try json(["type": "event", "length": payload.count, "content_type": "application/json"])
        return header + Data("\n".utf8) + itemHeader + Data("\n".utf8) + payload + Data("\n".utf8)
    }

    /// How Sentry groups a report (Docs/Reports.md "Grouping across releases"): by CrashShield's grouping key when the device identified the
    /// caller (`callerIdentity`: its name, or its code's hash; both survive rebuilds); otherwise by Sentry's own
    /// grouping of the symbolicated stack (in-app frames), split by guard and app-facing method. A report from before
    /// grouping keys: its signature.
    static func fingerprint(_ report: CrashReport) -> [String] {
        guard let key = report.groupingKey else { return [report.signature] }
        if report.callerIdentity != nil || report.callerFunction != nil { return ["crashshield", key] }
        return ["{{ default }}", "crashshield", report.category.name, report.appFacingMethod]
    }

    /// `tags.caller`: the caller as every build names it (`callerIdentity`, `callerFunction`); image+offset (a new
    /// value with each build) only for a report that has neither.
    static func callerTag(_ report: CrashReport) -> String? {
        if let stable = report.callerIdentity ?? report.callerFunction { return stable }
        return report.callerFrame.map {
            "\(($0.image as NSString).lastPathComponent)+0x\(String($0.offsetInImage, radix: 16))"
        }
    }

    func event(for report: CrashReport, eventID: String) -> [String: Any] {
        var mechanism: [String: Any] = ["type": "crashshield", "handled": true]
        let frames = self.frames(of: report)
        if let caller = frames.callerIndex { mechanism["data"] = ["caller_frame": String(caller)] }
        var exception: [String: Any] = [
            "type": report.exceptionName, "value": report.reason, "mechanism": mechanism,
            "thread_id": report.thread.id,
        ]
        // Every address of a report's stack is a return address (the replacement's frame included): Sentry looks up
        // the call instruction before each.
        if !frames.list.isEmpty {
            exception["stacktrace"] = ["frames": frames.list, "instruction_addr_adjustment": "all"]
        }
        var tags = [
            "guard": report.category.name, "class": report.className, "selector": report.selector,
            "action": report.action.rawValue,
        ]
        if let caller = Self.callerTag(report) { tags["caller"] = caller }
        var extra: [String: Any] = [
            "occurrences": report.occurrences, "method": report.method,
            "first_seen": ReportCodec.timestamp(report.firstSeen),
            "last_seen": ReportCodec.timestamp(report.lastSeen),
            "thread": report.thread.name,
        ]
        if !report.hint.isEmpty { extra["hint"] = report.hint }
        if !report.details.isEmpty { extra["details"] = report.details }
        var event: [String: Any] = [
            "event_id": eventID,
            "timestamp": report.lastSeen.timeIntervalSince1970,
            "platform": "native",
            "level": report.action == .failedLoudly ? "fatal" : "error",
            "logger": "crashshield",
            "culprit": report.method,
            "exception": ["values": [exception]],
            "tags": tags,
            "fingerprint": Self.fingerprint(report),
            "extra": extra,
            "sdk": ["name": "crashshield", "version": CrashShield.version],
        ]
        let images = debugImages(of: report)
        if !images.isEmpty { event["debug_meta"] = ["images": images] }
        if let context = report.context {
            event["contexts"] = Self.contexts(context)
            extra["launch_id"] = context.launchID
            extra["seconds_since_launch"] = context.secondsSinceLaunch
            extra["crashshield_version"] = context.crashShieldVersion
            event["extra"] = extra
        }
        if let environment { event["environment"] = environment }
        if let release = release ?? report.context.flatMap(Self.release) { event["release"] = release }
        if let dist = dist ?? report.context?.appBuild { event["dist"] = dist }
        return event
    }

    /// Sentry's app, os and device contexts (https://develop.sentry.dev/sdk/event-payloads/contexts/).
    static func contexts(_ context: ReportContext) -> [String: Any] {
        var app: [String: Any] = ["type": "app", "app_identifier": context.appIdentifier]
        if let version = context.appVersion { app["app_version"] = version }
        if let build = context.appBuild { app["app_build"] = build }
        var os: [String: Any] = ["type": "os", "name": context.osName, "version": context.osVersion]
        if let build = context.osBuild { os["build"] = build }
        return ["app": app, "os": os, "device": ["type": "device", "model": context.device]]
    }

    /// Sentry's release convention, `identifier@version+build`, when the app has a version.
    static func release(_ context: ReportContext) -> String? {
        guard let version = context.appVersion else { return nil }
        return "\(context.appIdentifier)@\(version)" + (context.appBuild.map { "+\($0)" } ?? "")
    }

    /// Sentry frames, oldest first (the report's stack is innermost first), and the caller's index among them.
    private func frames(of report: CrashReport) -> (list: [[String: Any]], callerIndex: Int?) {
        let stack = report.callStack
        var list: [[String: Any]] = []
        for (index, frame) in stack.enumerated().reversed() {
            // Frames above the caller are CrashShield's replacement: never in-app, so Sentry highlights the caller.
            let aboveCaller = report.callerFrameIndex.map { index < $0 } ?? false
            var entry: [String: Any] = [
                "instruction_addr": Self.hex(frame.address),
                "image_addr": Self.hex(frame.imageBase),
                "package": frame.image,
                "in_app": !aboveCaller && isAppImage(frame.image) && !Self.isRuntimeSymbol(frame.symbol),
            ]
            if let symbol = frame.symbol { entry["function"] = symbol }
            guard index == report.callerFrameIndex, let name = report.callerFunction else {
                list.append(entry)
                continue
            }
            // The caller's function as the device named it (the frame's symbol is only the nearest exported one).
            // One that made the call as a tail call left no frame: this frame is its caller's, and the function gets
            // a frame of its own (no address: it has none on the stack), the one Sentry marks.
            if report.callerMadeTailCall == true {
                list.append(entry)
                entry = ["function": name, "package": frame.image, "in_app": isAppImage(frame.image)]
            } else {
                entry["function"] = name
            }
            list.append(entry)
        }
        let caller = report.callerFrameIndex.flatMap { index -> Int? in
            guard stack.indices.contains(index) else { return nil }
            return stack.count - 1 - index + (report.callerMadeTailCall == true && report.callerFunction != nil ? 1 : 0)
        }
        return (list, caller)
    }

    /// Start-up code (`_start` is linked into the executable) and the Objective-C and Swift runtimes (statically
    /// linked on Linux): never the app's code, wherever they live.
    static func isRuntimeSymbol(_ symbol: String?) -> Bool {
        guard var name = symbol else { return false }
        if name.hasPrefix("_$s") { name.removeFirst() }  // Mach-O symbol tables prefix Swift's names with '_'
        return startSymbols.contains(name) || runtimePrefixes.contains { name.hasPrefix($0) }
    }

    static let startSymbols: Set<String> = [
        "_start", "start", "_dyld_start", "__libc_start_main", "__libc_start_call_main",
    ]
    static let runtimePrefixes = [
        "objc_msgSend", "objc_msg_lookup", "_objc_msgForward", "__objc_", "_objc_",
        "___forwarding___", "__forwarding_prep", "_CF_forwarding_prep", "__invoking___",
        "swift_", "_swift_", "$ss",
    ]

    /// One entry per image with a UUID (Apple) or a GNU build ID (Linux): what Sentry needs to find the debug files.
    /// The report's context lists the images its frames point into; a report without one, its frames' UUIDs.
    private func debugImages(of report: CrashReport) -> [[String: Any]] {
        var seen = Set<String>()
        var images: [[String: Any]] = []
        for image in report.context?.images ?? [] {
            if let uuid = image.uuid, seen.insert(uuid).inserted {
                images.append(
                    [
                        "type": "macho", "code_file": image.path, "debug_id": Self.debugID(uuid),
                        "image_addr": Self.hex(image.loadAddress),
                    ].merging(Self.size(image)) { $1 })
            } else if let buildID = image.buildID, seen.insert(buildID).inserted {
                images.append(
                    [
                        "type": "elf", "code_file": image.path, "code_id": buildID,
                        "debug_id": Self.debugID(fromBuildID: buildID),
                        "image_addr": Self.hex(image.loadAddress),
                    ].merging(Self.size(image)) { $1 })
            }
        }
        // A frame's UUID is always a Mach-O image's LC_UUID (`CSRImageInfo.hasUUID`: ELF images have build IDs, in
        // the context's list), whichever platform sends or re-sends the report.
        for frame in report.callStack {
            guard let uuid = frame.imageUUID, seen.insert(uuid).inserted else { continue }
            images.append([
                "type": "macho", "code_file": frame.image, "debug_id": Self.debugID(uuid),
                "image_addr": Self.hex(frame.imageBase),
            ])
        }
        return images
    }

    /// `8-4-4-4-12` lower-case hex, from a UUID in any of its spellings.
    static func debugID(_ uuid: String) -> String {
        let hex = Array(uuid.lowercased().filter(\.isHexDigit))
        guard hex.count == 32 else { return uuid.lowercased() }
        let cuts = [0, 8, 12, 16, 20, 32]
        return zip(cuts, cuts.dropFirst()).map { String(hex[$0..<$1]) }.joined(separator: "-")
    }

    /// Sentry's debug id for an ELF image: the build ID's first 16 bytes as a little-endian GUID.
    static func debugID(fromBuildID buildID: String) -> String {
        var bytes = stride(from: 0, to: buildID.count - 1, by: 2).compactMap { offset -> UInt8? in
            let start = buildID.index(buildID.startIndex, offsetBy: offset)
            return UInt8(buildID[start..<buildID.index(start, offsetBy: 2)], radix: 16)
        }
        bytes += [UInt8](repeating: 0, count: max(0, 16 - bytes.count))
        let guid =
            Array(bytes[0..<4].reversed()) + Array(bytes[4..<6].reversed()) + Array(bytes[6..<8].reversed())
            + Array(bytes[8..<16])
        return debugID(guid.map { String(format: "%02x", $0) }.joined())
    }

    private static func size(_ image: BinaryImage) -> [String: Any] {
        image.size.map { ["image_size": $0] } ?? [:]
    }

    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    private func json(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
