@testable import CrashShield
import CrashShieldScenarios
import XCTest

/// Class-cluster discovery samples the forms an `alloc/init` sample never produces (literals, constants, empty and
/// single-object forms, copies, mutable and frozen copies, tagged strings on Apple), without naming private classes.
final class ClassClusterTests: XCTestCase {
    /// Immutable and mutable public classes of each cluster.
    private static let pairs: [(String, String)] = [
        ("NSArray", "NSMutableArray"), ("NSDictionary", "NSMutableDictionary"), ("NSSet", "NSMutableSet"),
        ("NSOrderedSet", "NSMutableOrderedSet"), ("NSString", "NSMutableString"),
        ("NSAttributedString", "NSMutableAttributedString"),
    ]

    private func formClasses(_ family: String) -> [ObjCClass] {
        var buffer = [UnsafeMutableRawPointer?](repeating: nil, count: 128)
        let count = Int(css_cluster_form_classes(family, &buffer, Int32(buffer.count)))
        return buffer.prefix(count).compactMap { $0.map(ObjCClass.init) }
    }

    func testDiscoverySamplesEveryClassTheAppsFormsProduce() throws {
        for (immutableName, mutableName) in Self.pairs {
            let both = try XCTUnwrap(ClassFamily(immutableName, mutableName))
            let immutable = try XCTUnwrap(ClassFamily(immutableName))
            let mutable = try XCTUnwrap(ClassFamily(mutableName))
            let mutableRoot = try XCTUnwrap(ObjCClass(named: mutableName))
            let produced = formClasses(immutableName) + formClasses(mutableName)
            XCTAssertFalse(produced.isEmpty, immutableName)
            let missing = produced.filter { !both.members.contains($0) }
            XCTAssertTrue(missing.isEmpty, "\(immutableName): not sampled: \(missing.map(\.name)); sampled: \(both)")
            // Each family keeps to its kind: the mutable one has only mutable classes, the immutable one none.
            let producedMutable = produced.filter { $0.isKind(of: mutableRoot) }
            XCTAssertEqual(Set(producedMutable).subtracting(mutable.members), [], "\(mutable)")
            XCTAssertTrue(mutable.members.allSatisfy { $0.isKind(of: mutableRoot) }, "\(mutable)")
            XCTAssertFalse(immutable.members.contains { $0.isKind(of: mutableRoot) }, "\(immutable)")
            XCTAssertTrue(
                both.members.allSatisfy { member in both.roots.contains { member.isKind(of: $0) } }, "\(both)")
        }
    }
}
