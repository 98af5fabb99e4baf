@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// One differential probe of the catalog (`css_probe_*`): a call made on a fresh receiver, guards off and on.
struct Probe {
    let id: Int32
    let name: String
    /// The receiver's count or length; nil for a call that takes no index.
    let size: UInt?
    let reasonIsUndefined: Bool

    /// Every probe whose name starts with one of `prefixes`.
    static func all(_ prefixes: String...) -> [Probe] {
        (0..<css_probe_count()).map { id in
            let size = css_probe_size(id)
            return Probe(id: id, name: String(cString: css_probe_name(id)), size: size < 0 ? nil : UInt(size),
                         reasonIsUndefined: css_probe_reason_is_undefined(id))
        }.filter { probe in prefixes.contains { probe.name.hasPrefix($0) } }
    }

    /// The indexes tried: 0, 1, size - 1, size, size + 1, 2^32, 2^32 + 1, 2^32 + size, 2^32 + size + 1, NSNotFound.
    var indexes: [UInt] {
        guard let size else { return [0] }
        let high: UInt = 1 << 32
        let candidates: [UInt] = [0, 1, size &- 1, size, size + 1, high, high + 1, high + size, high + size + 1, UInt(Int.max)]
        var result: [UInt] = []
        for index in candidates where index <= UInt(Int.max) && !result.contains(index) { result.append(index) }
        return result
    }

    /// What one call did.
    struct Outcome: Equatable, CustomStringConvertible {
        var result = "", before = "", after = ""
        /// "NAME: REASON", or nil.
        var raised: String?
        var description: String { "result=\(result) before=\(before) after=\(after) raised=\(raised ?? "none")" }
    }

    /// Runs the call once (nil: the probe does not make this call).
    func run(_ index: UInt) -> Outcome? {
        var text = ""
        withAutoreleasePool { text = String(cString: css_probe_run(id, index)) }
        guard text != "skipped" else { return nil }
        var outcome = Outcome()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch parts[0] {
            case "result": outcome.result = value
            case "before": outcome.before = value
            case "after": outcome.after = value
            case "raised": outcome.raised = value == "none" ? nil : value
            default: break
            }
        }
        return outcome
    }
}

extension XCTestCase {
    /// Each probe at each of its indexes, with every guard on, against the same call without CrashShield:
    /// - where Foundation raises nothing: the same result and receiver, nothing raised, no report;
    /// - where Foundation raises: nothing raised, the receiver untouched, exactly one report (one occurrence) naming
    ///   Foundation's exception and reason.
    /// Returns how many calls were compared.
    @discardableResult
    func assertProbesBehaveAsFoundation(_ probes: [Probe], file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        XCTAssertFalse(probes.isEmpty, file: file, line: line)
        var cases: [(probe: Probe, index: UInt, foundation: Probe.Outcome)] = []
        for probe in probes {
            for index in probe.indexes { if let outcome = probe.run(index) { cases.append((probe, index, outcome)) } }
        }
        // Calls Foundation accepts: one session for all of them (a report would show).
        try withShield(Configuration(guards: .all)) { sink in
            for (probe, index, foundation) in cases where foundation.raised == nil {
                let guarded = probe.run(index)
                XCTAssertEqual(guarded, foundation, "\(probe.name) at \(index): valid call changed", file: file, line: line)
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.method), [], "\(probe.name) at \(index): a valid call reported", file: file, line: line)
                sink.removeAll()
            }
        }
        // Calls Foundation raises for: a session each, so each report is the first of its kind.
        for (probe, index, foundation) in cases {
            guard let raised = foundation.raised else { continue }
            try withShield(Configuration(guards: .all)) { sink in
                let guarded = probe.run(index)
                CrashShield.flush()
                let label = "\(probe.name) at \(index) (Foundation: \(raised))"
                XCTAssertNil(guarded?.raised, "\(label): not recovered", file: file, line: line)
                XCTAssertEqual(guarded?.after, guarded?.before, "\(label): the recovered call changed the receiver", file: file, line: line)
                XCTAssertEqual(sink.reports.count, 1, "\(label): \(sink.reports.map(\.method))", file: file, line: line)
                XCTAssertEqual(sink.reports.first?.occurrences, 1, "\(label): one bad call, one occurrence", file: file, line: line)
                guard let report = sink.reports.first else { return }
                XCTAssertEqual(report.exceptionName, String(raised.prefix { $0 != ":" }), label, file: file, line: line)
                if !probe.reasonIsUndefined {
                    XCTAssertEqual("\(report.exceptionName): \(report.reason)", raised, "\(label): the report's reason", file: file, line: line)
                }
            }
        }
        return cases.count
    }
}
