@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// Every implementation a sampled class of a family runs is hooked, whatever class owns it, with no recursion through
/// `super`; and the classes clang's constant literals use are sampled by name. The fixtures (CSSClusterFixtures.m)
/// are shaped like Apple's trees, which this runtime does not have: they join the NSArray family's samples by name,
/// as the literal classes do (`csr_test_cluster_sample_class_named`).
final class ClusterOwnerTests: ShieldTestCase {
    private let subarray = ObjCSelector("subarrayWithRange:")

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

    private func calls(reset: Bool = true) -> (override: Int, abstract: Int) {
        var override = 0, abstract = 0
        css_cluster_list_calls(&override, &abstract, reset)
        return (override, abstract)
    }

    /// `[fixture subarrayWithRange:{location, length}]` in a pool: the count of what it answered (nil: -1), or the
    /// exception it raised.
    private func subarrayCount(_ className: String, _ location: UInt, _ length: UInt) -> (count: Int, raised: String?) {
        var answered = -1
        var raised: (name: String, reason: String)?
        withAutoreleasePool {
            let list = css_cluster_fixture_new(className)
            raised = catchingObjCException {
                let result = css_cluster_call_subarray(list, location, length)
                answered = result == nil ? -1 : Int(count(of: result))
            }
        }
        return (answered, raised?.reason)
    }

    func testOwnersAreRankedByTheOwnersBelowThem() throws {
        try sampling(["CSSConcreteList", "CSSSiblingList"]) {
            let arrays = try XCTUnwrap(ClassFamily("NSArray", "NSMutableArray"))
            let owners = Dictionary(uniqueKeysWithValues: arrays.owners(of: subarray).map { ($0.cls.name, $0.height) })
            XCTAssertEqual(owners["CSSConcreteList"], 0, "\(owners)")
            XCTAssertEqual(owners["CSSAbstractList"], 1, "the implementation the sibling runs: \(owners)")
            if let generic = owners["NSArray"] { XCTAssertEqual(generic, 2, "above both: \(owners)") }
            XCTAssertEqual(
                arrays.hookTargets(for: subarray, kind: .instance).map(\.name).filter { $0.hasPrefix("CSS") },
                ["CSSConcreteList"])
        }
    }

    /// Apple's shape: the abstract class implements the method and raises, one concrete class overrides it (and calls
    /// super), a sibling inherits it. A bad call on the sibling runs the abstract implementation, which must be hooked.
    func testABadCallOnASiblingRunningAnInheritedImplementationIsStopped() throws {
        try sampling(["CSSConcreteList", "CSSSiblingList"]) {
            try withShield(Configuration(guards: .container)) { sink in
                _ = calls()
                let sibling = subarrayCount("CSSSiblingList", 0, 2)
                XCTAssertNil(sibling.raised, "the inherited implementation raised: it was not hooked")
                XCTAssertEqual(sibling.count, 0, "recovered: an empty array")
                XCTAssertEqual(calls().abstract, 1, "the recovery ran the abstract implementation with an empty range")
                let report = try XCTUnwrap(sink.reports.first)
                XCTAssertEqual(sink.reports.count, 1)
                XCTAssertEqual(report.className, "CSSSiblingList", "the receiver's class")
                XCTAssertEqual(report.selector, "subarrayWithRange:")
                XCTAssertEqual(report.exceptionName, "NSRangeException")
                XCTAssertTrue(report.reason.contains("0") && report.reason.contains("2"), report.reason)
                XCTAssertEqual(report.callerFrame?.symbol, "css_cluster_call_subarray")

                // The override reaches the abstract implementation through super: its layer, not its own hook again.
                XCTAssertEqual(subarrayCount("CSSConcreteList", 1, 2).count, 2)
                XCTAssertEqual(calls().override, 1)
                XCTAssertEqual(calls(reset: false).abstract, 0, "counted above")
                let concrete = subarrayCount("CSSConcreteList", 2, 5)
                XCTAssertNil(concrete.raised)
                XCTAssertEqual(concrete.count, 0)
                XCTAssertEqual(sink.reports.last?.className, "CSSConcreteList", "stopped at the override's hook")
                XCTAssertEqual(sink.reports.count, 2)
            }
        }
    }

    /// A call every layer passes through (the class is excluded) runs the override, then the abstract implementation
    /// once through super, which raises as without CrashShield.
    func testACallPassedThroughEveryLayerDoesNotRecurse() throws {
        sampling(["CSSConcreteList", "CSSSiblingList"]) {
            var configuration = Configuration(guards: .container)
            configuration.excludedClassNames = ["CSSConcreteList"]
            withShield(configuration) { sink in
                XCTAssertTrue(
                    HookEngine.shared.activeHooks.contains {
                        $0.targetClass.name == "CSSAbstractList" && $0.selector == subarray
                    })
                _ = calls()
                XCTAssertEqual(subarrayCount("CSSConcreteList", 0, 3).count, 3)
                XCTAssertEqual(calls().override, 1)
                let bad = subarrayCount("CSSConcreteList", 2, 5)
                XCTAssertEqual(
                    bad.raised, "*** -[CSSAbstractList subarrayWithRange:]: range {2, 5} extends beyond bounds [0 .. 2]"
                )
                let counted = calls()
                XCTAssertEqual(counted.override, 1)
                XCTAssertEqual(counted.abstract, 1)
                XCTAssertEqual(sink.reports.count, 0)
            }
        }
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
            XCTAssertFalse(
                try XCTUnwrap(ClassFamily("NSMutableArray")).members.contains(literal), "kept only in its own family")
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
