@testable import CrashShield
import CrashShieldRuntime.Internal
import XCTest

/// What start() does once per process rather than once per start.
final class StartCostTests: XCTestCase {
    private static let publicClasses = [
        "NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet", "NSOrderedSet",
        "NSMutableOrderedSet", "NSString", "NSMutableString", "NSAttributedString", "NSMutableAttributedString",
    ]

    private func freshSample(_ name: String) -> [ObjCClass] {
        var buffer = [CSRClass?](repeating: nil, count: 32)
        let count = Int(csr_cluster_sample_classes(name, &buffer, Int32(buffer.count)))
        return buffer.prefix(count).compactMap { $0.map(ObjCClass.init) }
    }

    /// Class-cluster samples (most of what a start() cost) are made once per process: the classes kept are those a
    /// fresh sampling finds, and a second start() makes no sample.
    func testClusterSamplesAreMadeOncePerProcessAndMatchAFreshSampling() throws {
        for name in Self.publicClasses {
            XCTAssertEqual(ClassSamples.shared.classes(of: name), freshSample(name), name)
        }
        try CrashShield.start(Configuration(guards: .all))
        CrashShield.stop()
        let made = ClassSamples.shared.samplings
        try CrashShield.start(Configuration(guards: .all))
        CrashShield.stop()
        XCTAssertEqual(ClassSamples.shared.samplings, made, "a second start() sampled class clusters again")
    }
}
