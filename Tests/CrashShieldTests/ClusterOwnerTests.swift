@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// The classes clang's constant literals use are sampled by name. This runtime has none: a fixture class
/// (CSSClusterFixtures.m) joins the families' samples by a test name the same way
/// (`csr_test_cluster_sample_class_named`).
final class ClusterOwnerTests: ShieldTestCase {
    /// Samples the classes `names` in every family they are a kind of, for the duration of `body`.
    private func sampling(_ names: [String], _ body: () throws -> Void) rethrows {
        for name in names { XCTAssertTrue(csr_test_cluster_sample_class_named(name)) }
        ClassSamples.shared.forget()
        defer {
            _ = csr_test_cluster_sample_class_named(nil)
            ClassSamples.shared.forget()
        }
        try body()
    }

    /// Clang's constant literal classes (NSConstantArray...) exist only where the app's deployment target lets clang
    /// emit them; they are sampled by name. Emulated with a fixture class sampled by a test name the same way.
    func testLiteralClassesAreSampledByNameInTheirOwnFamily() throws {
        let literal = try XCTUnwrap(ObjCClass(named: "CSSLiteralArray"))
        XCTAssertFalse(try XCTUnwrap(ClassFamily("NSArray")).members.contains(literal))
        XCTAssertNil(ObjCClass(named: "NSConstantArray"), "GNUstep has no constant literal classes")
        try sampling(["CSSLiteralArray"]) {
            XCTAssertTrue(try XCTUnwrap(ClassFamily("NSArray")).members.contains(literal))
            XCTAssertTrue(try XCTUnwrap(ClassFamily("NSArray", "NSMutableArray")).members.contains(literal))
            XCTAssertFalse(try XCTUnwrap(ClassFamily("NSMutableArray")).members.contains(literal), "kept only in its own family")
            XCTAssertFalse(try XCTUnwrap(ClassFamily("NSDictionary")).members.contains(literal))
            try withShield(Configuration(guards: .container)) { sink in
                var raised: (name: String, reason: String)?
                withAutoreleasePool {
                    let array = css_cluster_fixture_new("CSSLiteralArray")
                    raised = catchingObjCException { XCTAssertNil(css_test_call_objectAtIndex(array, 5)) }
                }
                XCTAssertNil(raised?.reason)
                let report = try XCTUnwrap(sink.reports.first)
                XCTAssertEqual(report.method, "-[CSSLiteralArray objectAtIndex:]")
                XCTAssertEqual(report.action, .recovered)
            }
        }
        XCTAssertFalse(try XCTUnwrap(ClassFamily("NSArray")).members.contains(literal), "the test's name is gone")
    }
}
