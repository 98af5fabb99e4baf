import CrashShield
import Foundation

/// Where CrashShield's reports go in release builds: the log, your crash service, and a file that keeps them for an
/// upload at the next launch.
enum CrashReporting {
    /// Application Support, not Caches: iOS may empty Caches before the next launch has uploaded the reports.
    static let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        .appendingPathComponent("CrashShield", isDirectory: true)
    static let reportsURL = folder.appendingPathComponent("reports.jsonl")

    /// Release builds: recover, and send every report to the log, the crash service and the file.
    static func productionConfiguration() -> Configuration {
        var configuration = Configuration.production
        configuration.sinks = [
            LogReportSink(),
            ReportHandlerSink { report in CrashService.recordNonFatal(report) },
        ]
        do {
            configuration.sinks.append(try JSONLinesReportStore(fileURL: reportsURL))
        } catch {
            NSLog("CrashShield reports will not be kept across launches: %@", String(describing: error))
        }
        return configuration
    }

    /// Renames the file earlier runs wrote, so that deleting it after the upload never deletes a report of this run.
    static func setAsideReportsOfEarlierRuns() {
        guard FileManager.default.fileExists(atPath: reportsURL.path) else { return }
        let unsent = folder.appendingPathComponent("unsent-\(UUID().uuidString).jsonl")
        do {
            try FileManager.default.moveItem(at: reportsURL, to: unsent)
        } catch {
            NSLog("CrashShield: could not set aside earlier reports: %@", String(describing: error))
        }
    }

    /// Uploads the files set aside, in the background; a file is deleted once the crash service took its reports.
    static func uploadReportsOfEarlierRuns() {
        let folder = folder
        Task.detached(priority: .background) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasPrefix("unsent-") && name.hasSuffix(".jsonl") {
                do {
                    let store = try JSONLinesReportStore(fileURL: folder.appendingPathComponent(name))
                    let saved = try store.load()  // one report per signature, latest count; torn lines skipped
                    for warning in saved.warnings { NSLog("CrashShield: %@: %@", name, warning) }
                    if saved.reports.isEmpty {
                        try store.removeAll()
                    } else if try await CrashService.upload(saved.reports) {
                        try store.removeAll()
                    }
                } catch {
                    NSLog(
                        "CrashShield: %@ not uploaded (kept for the next launch): %@", name, String(describing: error))
                }
            }
        }
    }
}

/// Stand-in for your crash service's SDK (a non-fatal issue in Crashlytics, Sentry, Bugsnag, your own backend).
/// `nonisolated`: sinks run on CrashShield's delivery queue, also in projects that isolate to the main actor by
/// default (Xcode 26's app template).
enum CrashService {
    /// One report of this run, as a non-fatal issue.
    nonisolated static func recordNonFatal(_ report: CrashReport) {
        let attributes = [
            "method": report.method, "guard": report.category.name, "action": report.action.rawValue,
            "occurrences": String(report.occurrences), "caller": report.callerFrame?.symbol ?? "?",
        ]
        NSLog("[crash service] non-fatal %@: %@ %@", report.exceptionName, report.reason, attributes.description)
    }

    /// The reports of earlier runs; true when the service accepted them.
    nonisolated static func upload(_ reports: [CrashReport]) async throws -> Bool {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let body = try encoder.encode(reports)
        NSLog("[crash service] uploading %d reports (%d bytes)", reports.count, body.count)
        return true
    }
}
