@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// Memory stays flat through observe/unobserve churn: 100,000 cycles (`KVO_CHURN_CYCLES`) mixing clean removal,
/// double removal and observers freed while registered, on new and on long-lived models.
final class KVOChurnTests: ShieldTestCase {
    private static var cycles: Int { Int(ProcessInfo.processInfo.environment["KVO_CHURN_CYCLES"] ?? "") ?? 100_000 }

    /// The process's resident memory: /proc/self/statm on Linux, the task's basic info (Mach) on Apple platforms.
    private static func residentBytes() -> Int {
        #if canImport(Darwin)
        var info = mach_task_basic_info()
        var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
        let result = withUnsafeMutablePointer(to: &info) {
            $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
            }
        }
        return result == KERN_SUCCESS ? Int(info.resident_size) : 0
        #else
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
        #endif
    }

    /// `count` cycles; odd ones on a new model, even ones on one long-lived model. Kind 2 frees the observer while it
    /// is registered and then changes the model, which only the guard survives: `guarded` false removes it instead
    /// (the same calls GNUstep runs flat without CrashShield; an object deallocated while observed leaks GNUstep's
    /// observation info, with or without CrashShield).
    private static func churn(_ count: Int, guarded: Bool) {
        let keep = css_kvo_model_new()!
        var scratch = [CChar](repeating: 0, count: 1 << 16)
        for start in stride(from: 0, to: count, by: 500) {
            withAutoreleasePool {
                for cycle in start..<min(count, start + 500) {
                    let model = cycle % 2 == 1 ? css_kvo_model_new()! : keep
                    let observer = css_kvo_recorder_new(1)!
                    css_kvo_add(model, observer, "level", 0x01, 0)
                    css_kvo_set_level(model, Int32(cycle & 0xff))
                    switch cycle % 3 {
                    case 0:
                        css_kvo_remove(model, observer, "level")
                        css_object_release(observer)
                    case 1:
                        css_kvo_remove(model, observer, "level")
                        css_kvo_remove(model, observer, "level")
                        css_object_release(observer)
                    default:
                        if !guarded { css_kvo_remove(model, observer, "level") }
                        css_object_release(observer)
                        if guarded { css_kvo_set_level(model, 1) }
                    }
                    if model != keep { css_object_release(model) }
                }
                css_kvo_take_log(&scratch, UInt(scratch.count))
            }
        }
        css_object_release(keep)
    }

    func testObserveUnobserveChurnKeepsMemoryFlat() throws {
        let cycles = Self.cycles
        Self.churn(2_000, guarded: false)  // warm-up: class tables, pools
        let before = Self.residentBytes()
        Self.churn(cycles, guarded: false)
        let unguarded = Self.residentBytes() - before
        var guarded = 0
        withShield(Configuration(guards: .kvo)) { sink in
            Self.churn(2_000, guarded: true)
            let start = Self.residentBytes()
            Self.churn(cycles, guarded: true)
            guarded = Self.residentBytes() - start
            // The dead observer, deduplicated; the double removal is GNUstep's to ignore (only Apple raises for it).
            XCTAssertEqual(
                sink.reports(in: .kvo).count, FoundationRules.isApple ? 2 : 1, "\(sink.reports(in: .kvo).map(\.reason))"
            )
        }
        XCTAssertEqual(ObservationStatus.kvoObservedObjectCount, 0)
        print(
            "KVO churn: \(cycles) cycles, resident growth without CrashShield \(unguarded >> 10) KB, with \(guarded >> 10) KB"
        )
        XCTAssertLessThan(guarded, max(unguarded, 0) + 4 << 20, "about 1.3 KB per cycle were kept before")
    }
}
