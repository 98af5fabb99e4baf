import CrashShield
import Foundation

/// How one child process ended.
public struct ChildOutcome: Sendable {
    public enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signal(Int32)
        case timedOut
    }
    public var ending: Ending
    public var stdout: String
    public var stderr: String

    public init(ending: Ending, stdout: String, stderr: String) {
        self.ending = ending
        self.stdout = stdout
        self.stderr = stderr
    }

    /// "RESULT ..." text, if the child got that far.
    public var result: String? { lines(prefixed: "RESULT ").first }
    /// Reports the protected child printed.
    public var reports: [CrashReport] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return lines(prefixed: "REPORT ").compactMap { try? decoder.decode(CrashReport.self, from: Data($0.utf8)) }
    }
    /// The uncaught exception, as "name: reason".
    public var uncaughtException: (name: String, reason: String)? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("CRASH uncaught-exception ") })
        else { return nil }
        let body = line.dropFirst("CRASH uncaught-exception ".count)
        guard let colon = body.range(of: ": ") else { return (String(body), "") }
        return (String(body[..<colon.lowerBound]), String(body[colon.upperBound...]))
    }
    /// Crashed: killed by a signal (an uncaught exception aborts).
    public var crashed: Bool { if case .signal = ending { return true } else { return false } }

    private func lines(prefixed prefix: String) -> [String] {
        stdout.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

/// One row of the crash matrix.
public struct MatrixRow: Sendable {
    public let scenario: Scenario
    public let unprotected: ChildOutcome
    public let protected: ChildOutcome
    /// Why the row fails; empty when it passes.
    public let problems: [String]

    public var crashedUnprotected: Bool { unprotected.crashed }
    public var survivedProtected: Bool { problems.filter { $0.hasPrefix("protected") }.isEmpty }
    public var passed: Bool { problems.isEmpty }
}

/// Runs each scenario in two child processes, unprotected (must crash) and protected (must survive with exactly the
/// expected report and a safe result).
public struct MatrixRunner: Sendable {
    /// The executable that understands `child <name> --protected|--unprotected`.
    public let executable: URL
    public var jobs: Int
    public var timeout: TimeInterval

    public init(executable: URL, jobs: Int = 4, timeout: TimeInterval = 30) {
        self.executable = executable
        self.jobs = max(1, jobs)
        self.timeout = timeout
    }

    public func run(_ scenarios: [Scenario]) -> [MatrixRow] {
        let rows = Guarded<[Int: MatrixRow]>([:])
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = jobs
        for (index, scenario) in scenarios.enumerated() {
            queue.addOperation {
                let row = self.runRow(scenario)
                rows.withLock { $0[index] = row }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        let done = rows.withLock { $0 }
        return scenarios.indices.compactMap { done[$0] }
    }

    public func runRow(_ scenario: Scenario) -> MatrixRow {
        let unprotected = spawn(["child", scenario.name, "--unprotected"])
        let protected = spawn(["child", scenario.name, "--protected"])
        return MatrixRow(
            scenario: scenario, unprotected: unprotected, protected: protected,
            problems: Self.judge(scenario, unprotected: unprotected, protected: protected))
    }

    /// Every way a row can fail, as sentences.
    public static func judge(_ scenario: Scenario, unprotected: ChildOutcome, protected: ChildOutcome) -> [String] {
        var problems: [String] = []
        if !unprotected.crashed {
            problems.append(
                "unprotected: did not crash (\(unprotected.ending), result \(unprotected.result ?? "none"))")
        } else if !scenario.crashesBySignal {
            if let uncaught = unprotected.uncaughtException {
                if uncaught.name != scenario.exception {
                    problems.append("unprotected: raised \(uncaught.name), catalog expects \(scenario.exception)")
                }
            } else {
                problems.append(
                    "unprotected: crashed without an uncaught exception, catalog expects \(scenario.exception)")
            }
        }
        guard protected.ending == .exited(0) else {
            let detail =
                protected.uncaughtException.map { "\($0.name): \($0.reason)" }
                ?? protected.stderr.suffix(300).description
            problems.append("protected: did not survive (\(protected.ending)) \(detail)")
            return problems
        }
        if protected.result != scenario.expectedResult {
            problems.append(
                "protected: caller got '\(protected.result ?? "nothing")', expected '\(scenario.expectedResult)'")
        }
        let reports = protected.reports
        if reports.count != scenario.expectedReports {
            problems.append(
                "protected: \(reports.count) reports, expected \(scenario.expectedReports): "
                    + reports.map { "\($0.category.name) \($0.method)" }.joined(separator: "; "))
        }
        if let report = reports.first {
            if report.category.name != scenario.category {
                problems.append("protected: category \(report.category.name), expected \(scenario.category)")
            }
            if report.selector != scenario.selector {
                problems.append("protected: selector \(report.selector), expected \(scenario.selector)")
            }
            if report.exceptionName != scenario.exception {
                problems.append("protected: exception \(report.exceptionName), expected \(scenario.exception)")
            }
            if report.action != .recovered { problems.append("protected: action \(report.action.rawValue)") }
            // Addresses are normalized: a reason may name the receiver's address ("unrecognized selector sent to
            // instance 0x55d1c0a3e8f0"), and the unprotected and protected children allocate it at different
            // addresses. Everything else in the reason must match exactly.
            if let uncaught = unprotected.uncaughtException, !scenario.reasonIsUndefined,
                normalizingAddresses(uncaught.reason) != normalizingAddresses(report.reason)
            {
                problems.append("protected: reason '\(report.reason)' differs from the real crash '\(uncaught.reason)'")
            }
            if report.callerFrame == nil { problems.append("protected: report has no caller frame") }
        }
        return problems
    }

    /// `text` with every hexadecimal address (`0x[0-9a-f]+`) replaced by "0x?".
    public static func normalizingAddresses(_ text: String) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("0x") {
                var end = text.index(index, offsetBy: 2)
                while end < text.endIndex, "0123456789abcdef".contains(text[end]) { end = text.index(after: end) }
                if end > text.index(index, offsetBy: 2) {
                    result += "0x?"
                    index = end
                    continue
                }
            }
            result.append(text[index])
            index = text.index(after: index)
        }
        return result
    }

    /// Runs the executable with `arguments` in a child process, with a watchdog. Child processes exist on Linux and
    /// macOS only: on iOS, tvOS and watchOS (where an app cannot spawn processes) every child "could not start".
    func spawn(_ arguments: [String]) -> ChildOutcome {
        #if os(Linux) || os(macOS)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash is the expected outcome; skip Swift's backtracer
        process.environment = environment
        do { try process.run() } catch {
            return ChildOutcome(ending: .exited(-1), stdout: "", stderr: "could not start \(executable.path): \(error)")
        }
        let timedOut = Guarded(false)
        let watchdog = DispatchWorkItem {
            timedOut.withLock { $0 = true }
            kill(process.processIdentifier, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let errData = Guarded(Data())
        let errReader = Thread { errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        while errReader.isExecuting || !errReader.isFinished { usleep(1000) }
        let ending: ChildOutcome.Ending
        if timedOut.withLock({ $0 }) {
            ending = .timedOut
        } else if process.terminationReason == .uncaughtSignal {
            ending = .signal(process.terminationStatus)
        } else {
            ending = .exited(process.terminationStatus)
        }
        return ChildOutcome(
            ending: ending, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
        #else
        return ChildOutcome(
            ending: .exited(-1), stdout: "", stderr: "child processes are not available on this platform")
        #endif
    }
}
