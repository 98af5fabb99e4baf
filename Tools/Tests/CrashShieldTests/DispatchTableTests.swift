@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

private typealias ValueIMP = @convention(c) (CSRObject?, CSRSelector?) -> Int

private let one: ValueIMP = { _, _ in 1 }
private let seven: ValueIMP = { _, _ in 7 }
/// What the neighbours answer, a different implementation in each class: libobjc skips writing an entry that already
/// holds the same implementation, and the class would go on sharing its superclass's block.
private let neighbourIMPs: [ValueIMP] = [
    { _, _ in 100 }, { _, _ in 101 }, { _, _ in 102 }, { _, _ in 103 }, { _, _ in 104 },
]

/// The hook point of the current test (made per test: its selector is new). Original * 1000 + 1.
nonisolated(unsafe) private var replacement: HookPoint<ValueIMP>!
private let replacementIMP: ValueIMP = { receiver, cmd in
    let original = replacement.original(for: receiver)?(receiver, cmd) ?? -1000
    return replacement.isActive(for: receiver) ? original * 1000 + 1 : original
}

/// A second point for the batch test (another selector on the same class). Original * 1000 + 2.
nonisolated(unsafe) private var secondReplacement: HookPoint<ValueIMP>!
private let secondReplacementIMP: ValueIMP = { receiver, cmd in
    let original = secondReplacement.original(for: receiver)?(receiver, cmd) ?? -1000
    return secondReplacement.isActive(for: receiver) ? original * 1000 + 2 : original
}

/// Replacing a method's implementation (`csr_class_replaceOwnMethod`; on GCC's libobjc CrashShield writes the
/// dispatch tables itself, walking the owner's subclasses). Every class that inherits the method must see the
/// replacement, every class that overrides it (and its subclasses) must keep its own, whether its dispatch table was
/// installed before the replacement or after it; and a revert must reach the same classes.
///
/// The classes are made at run time with a new selector `v` and 64 neighbours registered around it, which every
/// inheriting class defines (each class with implementations of its own): GCC's libobjc shares a subclass's dispatch
/// table with its superclass's in blocks of 32 selectors until the subclass writes into a block, so without them a
/// subclass would see every change of its superclass's table even if CrashShield forgot to update it.
final class DispatchTableTests: XCTestCase {
    private var objects: [CSRObject] = []
    private var hook: Hook?
    private var madeClasses = 0

    override func tearDown() {
        hook?.revert()
        objects.forEach { css_object_release($0) }
        objects = []
        super.tearDown()
    }

    private struct TestSelectors {
        let selector: ObjCSelector
        let neighbours: [ObjCSelector]
    }

    /// A new selector `v` with 32 new selectors registered before it and 32 after it.
    private func newSelector(_ kind: MethodKind) -> TestSelectors {
        let tag = "\(kind)\(UUID().uuidString.prefix(8))"
        let before = (0..<32).map { ObjCSelector("csDispatchBefore\($0)_\(tag)") }
        let selector = ObjCSelector("csDispatchValue_\(tag)")
        let after = (0..<32).map { ObjCSelector("csDispatchAfter\($0)_\(tag)") }
        return TestSelectors(selector: selector, neighbours: before + after)
    }

    /// Registers `name` below `superclass` (instance methods, or class methods on its metaclass): `v` answering
    /// `value` when given, otherwise the neighbours (the class inherits `v`).
    @discardableResult
    private func makeClass(
        _ name: String, below superclass: String, _ classes: TestSelectors, kind: MethodKind,
        value: ValueIMP? = nil
    ) throws -> String {
        XCTAssertTrue(css_make_subclass(superclass, name))
        let cls = try XCTUnwrap(ObjCClass(named: name))
        let target = kind == .class ? cls.metaclass : cls
        func add(_ selector: ObjCSelector, _ imp: ValueIMP) {
            XCTAssertTrue(
                csr_class_addMethod(target.pointer, selector.pointer, unsafeBitCast(imp, to: CSRIMP.self), "q@:"))
        }
        if let value {
            add(classes.selector, value)
        } else {
            let neighbour = neighbourIMPs[madeClasses % neighbourIMPs.count]
            madeClasses += 1
            classes.neighbours.forEach { add($0, neighbour) }
        }
        return name
    }

    /// `[receiver v]` through the receiver's dispatch table (objc_msg_lookup).
    private func send(_ receiver: CSRObject, _ selector: ObjCSelector) -> Int {
        Messaging.implementation(receiver, selector.pointer, as: ValueIMP.self)(receiver, selector.pointer)
    }

    /// `[[cls new] v]` for instance methods, `[cls v]` for class methods.
    private func values(_ names: [String], _ classes: TestSelectors, kind: MethodKind) throws -> [Int] {
        try names.map { name in
            if kind == .class { return send(try XCTUnwrap(ObjCClass(named: name)).pointer, classes.selector) }
            let object = try XCTUnwrap(css_object_new(name))
            objects.append(object)
            return send(object, classes.selector)
        }
    }

    private func checkReplacement(_ kind: MethodKind) throws {
        let classes = newSelector(kind)
        let tag = classes.selector.name.split(separator: "_").last!
        // Base (1) <- Inheriting <- InheritingLeaf; Base <- Overriding (7) <- OverridingLeaf.
        let base = try makeClass("CSSDispatchBase\(tag)", below: "NSObject", classes, kind: kind, value: one)
        let inheriting = try makeClass("CSSDispatchInheriting\(tag)", below: base, classes, kind: kind)
        let inheritingLeaf = try makeClass("CSSDispatchInheritingLeaf\(tag)", below: inheriting, classes, kind: kind)
        let overriding = try makeClass("CSSDispatchOverriding\(tag)", below: base, classes, kind: kind, value: seven)
        let overridingLeaf = try makeClass("CSSDispatchOverridingLeaf\(tag)", below: overriding, classes, kind: kind)
        let all = [base, inheriting, inheritingLeaf, overriding, overridingLeaf]
        // Every class messaged first: their dispatch tables are installed and hold the original.
        XCTAssertEqual(try values(all, classes, kind: kind), [1, 1, 1, 7, 7])

        replacement = HookPoint(classes.selector, kind: kind, replacement: replacementIMP)
        let hook = try HookEngine.shared.install(replacement, on: try XCTUnwrap(ObjCClass(named: base)))
        self.hook = hook
        XCTAssertEqual(hook.origin, .replacedOwnMethod)
        XCTAssertEqual(
            try values(all, classes, kind: kind), [1001, 1001, 1001, 7, 7],
            "inheriting classes see the replacement; overriding classes and their subclasses keep theirs")
        // Classes messaged for the first time after the replacement copy their superclass's table then.
        let late = [
            try makeClass("CSSDispatchLateInheriting\(tag)", below: inheritingLeaf, classes, kind: kind),
            try makeClass("CSSDispatchLateOverriding\(tag)", below: overridingLeaf, classes, kind: kind),
        ]
        XCTAssertEqual(try values(late, classes, kind: kind), [1001, 7])

        XCTAssertEqual(hook.revert(), .reverted)
        XCTAssertEqual(
            try values(all + late, classes, kind: kind), [1, 1, 1, 7, 7, 1, 7],
            "the revert reaches the same classes")
        let afterRevert = try makeClass("CSSDispatchAfterRevert\(tag)", below: inheritingLeaf, classes, kind: kind)
        XCTAssertEqual(try values([afterRevert], classes, kind: kind), [1])
    }

    /// Inside a batch (start(), stop(), setGuard) the owner answers with the replacement at once and the classes
    /// below it when the batch ends, in one walk for both selectors replaced on the owner: a class that overrides one
    /// of them still inherits the other.
    func testBatchedReplacementsReachTheSameClassesWhenTheBatchEnds() throws {
        let v = newSelector(.instance), w = newSelector(.instance)
        let tag = v.selector.name.split(separator: "_").last!
        // Base (v 1, w 1) <- Inheriting (neighbours of both) <- Overriding (v 7, neighbours of w).
        let base = try makeClass("CSSBatchBase\(tag)", below: "NSObject", v, kind: .instance, value: one)
        try makeClass(base, below: "NSObject", w, kind: .instance, value: one)
        let inheriting = try makeClass("CSSBatchInheriting\(tag)", below: base, v, kind: .instance)
        try makeClass(inheriting, below: base, w, kind: .instance)
        let overriding = try makeClass("CSSBatchOverriding\(tag)", below: inheriting, v, kind: .instance, value: seven)
        try makeClass(overriding, below: inheriting, w, kind: .instance)
        let all = [base, inheriting, overriding]
        XCTAssertEqual(try values(all, v, kind: .instance) + values(all, w, kind: .instance), [1, 1, 7, 1, 1, 1])

        replacement = HookPoint(v.selector, replacement: replacementIMP)
        secondReplacement = HookPoint(w.selector, replacement: secondReplacementIMP)
        let baseClass = try XCTUnwrap(ObjCClass(named: base))
        let hooks = try HookEngine.shared.batch {
            let hooks = [
                try HookEngine.shared.install(replacement, on: baseClass),
                try HookEngine.shared.install(secondReplacement, on: baseClass),
            ]
            XCTAssertEqual(
                try values([base], v, kind: .instance) + values([base], w, kind: .instance), [1001, 1002],
                "the owner answers with the replacement at once")
            return hooks
        }
        defer { hooks.forEach { $0.revert() } }
        XCTAssertEqual(try values(all, v, kind: .instance), [1001, 1001, 7])
        XCTAssertEqual(
            try values(all, w, kind: .instance), [1002, 1002, 1002],
            "a class that overrides one replaced method still inherits the other")
        HookEngine.shared.batch { hooks.forEach { XCTAssertEqual($0.revert(), .reverted) } }
        XCTAssertEqual(try values(all, v, kind: .instance) + values(all, w, kind: .instance), [1, 1, 7, 1, 1, 1])
    }

    func testInstanceMethodReplacementReachesInheritingSubclassesAndStopsAtOverrides() throws {
        try checkReplacement(.instance)
    }

    func testClassMethodReplacementReachesInheritingSubclassesAndStopsAtOverrides() throws {
        try checkReplacement(.class)
    }
}
