import CrashShieldBenchKernels
import CrashShieldRuntime.Internal
import Foundation

/// The unrecognized-selector guard's signature lookup for an untyped selector that no class implements (every
/// selector on Apple's runtime is untyped): the first message of each name pays it, on the thread that sent it.
/// `--forwarding-lookup N` registers N classes at run time first (each with two methods, as app classes have).
enum ForwardingLookup {
    static func measure(extraClasses: Int32, names: Int = 7) {
        let registered = csb_register_app_classes(extraClasses)
        let receiver = csb_forwarding_receiver()
        var micros: [Double] = [], examined: [Int] = []
        for index in 0..<names {
            let selector = csr_sel_register("csbNeverImplemented\(index)WithValue:")
            var closure = {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = csr_signature_for_selector(receiver, selector)
                micros.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
                examined.append(csr_test_forwarding_classes_examined())
            }
            withUnsafeMutablePointer(to: &closure) { pointer in  // the signature is autoreleased
                csr_with_autorelease_pool({ raw in raw!.assumingMemoryBound(to: (() -> Void).self).pointee() }, pointer)
            }
        }
        let sorted = micros.sorted()
        print(
            "forwarding lookup: \(registered) classes registered; \(names) names: median \(String(format: "%.1f", sorted[names / 2])) µs, "
                + "max \(String(format: "%.1f", sorted[names - 1])) µs, classes examined \(examined.max() ?? 0)")
    }
}
