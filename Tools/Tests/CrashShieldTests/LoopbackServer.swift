// The loopback HTTP server both test targets start (CrashShieldObjCTests has this file through a symlink, as
// TestSupport.swift is shared): Foundation only, no CrashShield import.
import Foundation

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// A real HTTP server on 127.0.0.1: Tests/Fixtures/upload_server.py in a child process, with a plan of behaviours
/// (ok, 500, 429:S, slow:S, close, ...) and a log of every request it got.
final class LoopbackServer {
    struct Request {
        var time: Double
        var behaviour: String
        var path: String
        var headers: [String: String]
        var body: Data
        var processed: Bool

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
        var idempotencyKey: String? { header("Idempotency-Key") }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    let port: Int
    let recordURL: URL
    private let process: Process

    /// Starts the server (on `port`, or a free one) and returns once it listens.
    init(plan: [String] = [], port: Int = 0, recordURL: URL) throws {
        self.recordURL = recordURL
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.fixtures.appendingPathComponent("upload_server.py").path,
            "--record", recordURL.path, "--port", String(port), "--plan", plan.joined(separator: ","),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "),
            let listening = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw NSError(
                domain: "LoopbackServer", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "server did not start: \(text)"])
        }
        self.port = listening
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/v1/reports")! }

    /// Every request so far, in the order they finished.
    var requests: [Request] {
        guard let data = try? Data(contentsOf: recordURL) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return Request(
                time: object["time"] as? Double ?? 0, behaviour: object["behaviour"] as? String ?? "",
                path: object["path"] as? String ?? "", headers: object["headers"] as? [String: String] ?? [:],
                body: Data(base64Encoded: object["body"] as? String ?? "") ?? Data(),
                processed: object["processed"] as? Bool ?? false)
        }
    }

    /// A port nothing listens on: a server's, once it stopped (connections are refused).
    static func freePort(in folder: URL) throws -> Int {
        let probe = try LoopbackServer(recordURL: folder.appendingPathComponent("probe.jsonl"))
        probe.stop()
        return probe.port
    }
}
#endif
