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

    /// Every probe whose name starts with one of `prefixes`, but those of ranges whose end passes 2^64.
    static func all(_ prefixes: String...) -> [Probe] {
        every.filter { probe in !probe.overflows && prefixes.contains { probe.name.hasPrefix($0) } }
    }

    /// The probes of `call` (receiver and method, "array.subarrayWithRange:") with ranges whose end passes 2^64
    /// (`CSS_OVERFLOW_PROBES`): one per form.
    static func overflowing(_ call: String) -> [Probe] {
        every.filter { probe in overflowForms.contains { probe.name == call + $0 } }
    }

    /// {i, UInt.max} (the end wraps to i - 1), {UInt.max, i} (to i - 1), {2^63 + i, 2^63} (to exactly i).
    static let overflowForms = ["{i,UInt.max}", "{UInt.max,i}", "{2^63+i,2^63}"]

    /// The probes of `call` at every range edge (`CSS_SEARCH_PROBES`): {i, 0}, {i, 1}, {0, i} and the overflowing forms.
    static func ranges(_ call: String) -> [Probe] {
        every.filter { probe in (edgeForms + overflowForms).contains { probe.name == call + $0 } }
    }

    static let edgeForms = ["{i,0}", "{i,1}", "{0,i}"]

    var overflows: Bool { Self.overflowForms.contains { name.hasSuffix($0) } }

    private static var every: [Probe] {
        (0..<css_probe_count()).map { id in
            let size = css_probe_size(id)
            return Probe(
                id: id, name: String(cString: css_probe_name(id)), size: size < 0 ? nil : UInt(size),
                reasonIsUndefined: css_probe_reason_is_undefined(id))
        }
    }

    /// The indexes tried: 0, 1, size - 1, size, size + 1, 2^32, 2^32 + 1, 2^32 + size, 2^32 + size + 1, NSNotFound.
    var indexes: [UInt] {
        guard let size else { return [0] }
        let high: UInt = 1 << 32
        let candidates: [UInt] = [
            0, 1, size &- 1, size, size + 1, high, high + 1, high + size, high + size + 1, UInt(Int.max),
        ]
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
    /// `selector`: the method every report must name (the one the probes call), if given.
    /// Returns how many calls were compared.
    @discardableResult
    func assertProbesBehaveAsFoundation(
        _ probes: [Probe], selector: String? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Int {
        XCTAssertFalse(probes.isEmpty, file: file, line: line)
        var cases: [(probe: Probe, index: UInt, foundation: Probe.Outcome)] = []
        for probe in probes {
            for index in probe.indexes { if let outcome = probe.run(index) { cases.append((probe, index, outcome)) } }
        }
        // Calls Foundation accepts: one session for all of them (a report would show).
        withShield(Configuration(guards: .all)) { sink in
            for (probe, index, foundation) in cases where foundation.raised == nil {
                let guarded = probe.run(index)
                XCTAssertEqual(
                    guarded, foundation, "\(probe.name) at \(index): valid call changed", file: file, line: line)
                CrashShield.flush()
                XCTAssertEqual(
                    sink.reports.map(\.method), [], "\(probe.name) at \(index): a valid call reported", file: file,
                    line: line)
                sink.removeAll()
            }
        }
        // Calls Foundation raises for: a session each, so each report is the first of its kind.
        for (probe, index, foundation) in cases {
            guard let raised = foundation.raised else { continue }
            withShield(Configuration(guards: .all)) { sink in
                let guarded = probe.run(index)
                CrashShield.flush()
                let label = "\(probe.name) at \(index) (Foundation: \(raised))"
                XCTAssertNil(guarded?.raised, "\(label): not recovered", file: file, line: line)
                XCTAssertEqual(
                    guarded?.after, guarded?.before, "\(label): the recovered call changed the receiver", file: file,
                    line: line)
                XCTAssertEqual(sink.reports.count, 1, "\(label): \(sink.reports.map(\.method))", file: file, line: line)
                XCTAssertEqual(
                    sink.reports.first?.occurrences, 1, "\(label): one bad call, one occurrence", file: file, line: line
                )
                guard let report = sink.reports.first else { return }
                XCTAssertEqual(report.exceptionName, String(raised.prefix { $0 != ":" }), label, file: file, line: line)
                if let selector {
                    XCTAssertEqual(
                        report.selector, selector, "\(label): the report names the app's call", file: file, line: line)
                }
                if !probe.reasonIsUndefined {
                    XCTAssertEqual(
                        "\(report.exceptionName): \(report.reason)", raised, "\(label): the report's reason",
                        file: file, line: line)
                }
            }
        }
        return cases.count
    }
}

extension XCTestCase {
    /// `assertProbesBehaveAsFoundation` over the overflowing-range probes of each call ("receiver.selector", with
    /// "nil " before a nil argument's label): what GNUstep raises for is stopped with its exception and reason, and
    /// reported as the call the app made; what its own checks let through (some wrap) reaches it unchanged.
    func assertOverflowingRangesBehaveAsFoundation(
        _ calls: String..., file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for call in calls {
            let probes = Probe.overflowing(call)
            XCTAssertEqual(
                probes.count, Probe.overflowForms.count, "\(call): its overflowing-range probes", file: file, line: line
            )
            let selector = call.drop { $0 != "." }.dropFirst().replacingOccurrences(of: "nil ", with: "")
            try assertProbesBehaveAsFoundation(probes, selector: selector, file: file, line: line)
        }
    }
}

extension XCTestCase {
    /// `assertProbesBehaveAsFoundation` over the range probes of each call (`Probe.ranges`), whose reports must name
    /// `selector` (the method the call funnels into, where the guard stops it).
    func assertRangeProbesBehaveAsFoundation(
        _ calls: [String], selector: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for call in calls {
            let probes = Probe.ranges(call)
            XCTAssertEqual(
                probes.count, Probe.edgeForms.count + Probe.overflowForms.count, "\(call): its range probes",
                file: file, line: line)
            try assertProbesBehaveAsFoundation(probes, selector: selector, file: file, line: line)
        }
    }
}
