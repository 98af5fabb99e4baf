@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// Replacement for `-value` that adds 100 to the original. Like every replacement, it passes calls through unchanged
/// once its hook is reverted but left in a chain (`isActive` false).
private let plusHundred: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> = HookPoint("value") {
    receiver, cmd in
    let original = plusHundred.original(for: receiver)?(receiver, cmd) ?? -1000
    return plusHundred.isActive(for: receiver) ? original + 100 : original
}
/// A second, independent replacement (another guard or library using the engine).
private let plusTen: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> = HookPoint("value") { receiver, cmd in
    let original = plusTen.original(for: receiver)?(receiver, cmd) ?? -1000
    return plusTen.isActive(for: receiver) ? original + 10 : original
}
/// Used only on CSSHookChild, which inherits -value (the added override stays in the class after revert).
private let plusHundredOnChild: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> = HookPoint("value") {
    receiver, cmd in
    let original = plusHundredOnChild.original(for: receiver)?(receiver, cmd) ?? -1000
    return plusHundredOnChild.isActive(for: receiver) ? original + 100 : original
}
/// Installed only on classes made at run time (each a direct subclass of CSSHookBase, so never nested).
private let plusHundredOnRuntimeClasses: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> = HookPoint(
    "value"
) { receiver, cmd in
    let original = plusHundredOnRuntimeClasses.original(for: receiver)?(receiver, cmd) ?? -1000
    return plusHundredOnRuntimeClasses.isActive(for: receiver) ? original + 100 : original
}
/// Used only on CSSHookPassThroughChild (an added override): counts the calls that enter it.
nonisolated(unsafe) private var countingEntries = 0
private let plusHundredCounting: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> = HookPoint("value") {
    receiver, cmd in
    countingEntries += 1
    let original = plusHundredCounting.original(for: receiver)?(receiver, cmd) ?? -1000
    return plusHundredCounting.isActive(for: receiver) ? original + 100 : original
}
/// Class-method replacement: `+classValue` times 2.
private let timesTwo: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> =
    HookPoint("classValue", kind: .class) { receiver, cmd in
        (timesTwo.original(for: receiver)?(receiver, cmd) ?? -1000) * 2
    }

/// Another swizzling library, hooking after us the classic way: it keeps the previous IMP and calls it.
nonisolated(unsafe) private var foreignPrevious: (@convention(c) (CSRObject?, CSRSelector?) -> Int)?
private let foreignHook: @convention(c) (CSRObject?, CSRSelector?) -> Int = { receiver, cmd in
    (foreignPrevious?(receiver, cmd) ?? -1000) + 1000
}

final class HookEngineTests: XCTestCase {
    private var objects: [String: CSRObject] = [:]

    private func value(_ className: String) -> Int {
        if objects[className] == nil { objects[className] = css_object_new(className) }
        return css_test_value(objects[className])
    }

    override func tearDown() {
        for hook in HookEngine.shared.activeHooks where hook.targetClass.name.hasPrefix("CSSHook") { hook.revert() }
        objects.values.forEach { css_object_release($0) }
        objects = [:]
        super.tearDown()
    }

    func testReplacingAnOwnMethodReachesSubclassesAndRevertRestoresIt() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let before =
            base.responds(to: "value")
            ? csr_class_methodImplementation(base.pointer, ObjCSelector("value").pointer) : nil
        XCTAssertEqual(value("CSSHookChild"), 1)  // the child's dispatch table is filled before the hook
        let hook = try HookEngine.shared.install(plusHundred, on: base)
        XCTAssertEqual(hook.origin, .replacedOwnMethod)
        XCTAssertEqual(value("CSSHookBase"), 101)
        XCTAssertEqual(value("CSSHookChild"), 101, "subclasses that inherit the method must see the hook")
        XCTAssertEqual(value("CSSHookGrandchild"), 101)
        XCTAssertEqual(hook.revert(), .reverted)
        XCTAssertEqual(value("CSSHookBase"), 1)
        XCTAssertEqual(value("CSSHookChild"), 1)
        let after = csr_class_methodImplementation(base.pointer, ObjCSelector("value").pointer)
        XCTAssertEqual(
            unsafeBitCast(before, to: Int.self), unsafeBitCast(after, to: Int.self),
            "revert restores exactly the original IMP")
    }

    func testHookingAClassThatOnlyInheritsTheMethodLeavesTheSuperclassAlone() throws {
        let child = try XCTUnwrap(ObjCClass(named: "CSSHookChild"))
        let hook = try HookEngine.shared.install(plusHundredOnChild, on: child)
        XCTAssertEqual(hook.origin, .addedOverride)
        XCTAssertEqual(value("CSSHookBase"), 1)
        XCTAssertEqual(value("CSSHookChild"), 101)
        XCTAssertEqual(value("CSSHookGrandchild"), 101)
        XCTAssertEqual(hook.revert(), .passingThrough, "an added override cannot be removed; it passes through")
        XCTAssertFalse(plusHundredOnChild.isActive(for: objects["CSSHookChild"]))
        XCTAssertEqual(value("CSSHookChild"), 1)
        // The same point on the superclass would make the child's override call itself through super: refused.
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        XCTAssertThrowsError(try HookEngine.shared.install(plusHundredOnChild, on: base)) {
            XCTAssertEqual(
                $0 as? HookError, .nestedInstallation(class: "CSSHookBase", selector: "value", existing: "CSSHookChild")
            )
        }
        XCTAssertEqual(value("CSSHookBase"), 1)
    }

    /// A stopped override added to a class that only inherited the method stays in the class, as a pass-through: one
    /// call to the superclass's current implementation; the replacement is never entered again. A hook installed on
    /// the superclass later is seen through it; installing the point again puts the replacement back.
    func testAStoppedAddedOverrideIsOneCallToTheSuperclassesCurrentImplementation() throws {
        // Classes of its own: a class keeps the method it was given for the rest of the process.
        XCTAssertTrue(css_make_subclass("CSSHookBase", "CSSHookPassThroughChild"))
        XCTAssertTrue(css_make_subclass("CSSHookPassThroughChild", "CSSHookPassThroughGrandchild"))
        let child = try XCTUnwrap(ObjCClass(named: "CSSHookPassThroughChild"))
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let sel = ObjCSelector("value")
        let hook = try HookEngine.shared.install(plusHundredCounting, on: child)
        XCTAssertEqual(hook.origin, .addedOverride)
        XCTAssertEqual(value("CSSHookPassThroughChild"), 101)
        XCTAssertEqual(hook.revert(), .passingThrough)
        let stopped = try XCTUnwrap(csr_class_methodImplementation(child.pointer, sel.pointer))
        XCTAssertTrue(csr_is_pass_through(stopped), "the class keeps the replacement, not a pass-through")
        countingEntries = 0
        XCTAssertEqual(value("CSSHookPassThroughChild"), 1)
        XCTAssertEqual(value("CSSHookPassThroughGrandchild"), 1)
        XCTAssertEqual(countingEntries, 0, "a stopped override entered the replacement")
        // Another hook on the superclass, after the stop: the child's calls see it, as inheritance would.
        let onBase = try HookEngine.shared.install(plusTen, on: base)
        XCTAssertEqual(value("CSSHookPassThroughChild"), 11)
        XCTAssertEqual(onBase.revert(), .reverted)
        XCTAssertEqual(value("CSSHookPassThroughChild"), 1)
        // Started again: the replacement is back in the class, and stopped again, the same pass-through.
        let again = try HookEngine.shared.install(plusHundredCounting, on: child)
        XCTAssertTrue(again === hook)
        XCTAssertEqual(value("CSSHookPassThroughChild"), 101)
        XCTAssertEqual(countingEntries, 1)
        XCTAssertEqual(again.revert(), .passingThrough)
        XCTAssertEqual(
            unsafeBitCast(csr_class_methodImplementation(child.pointer, sel.pointer), to: Int.self),
            unsafeBitCast(stopped, to: Int.self))
        XCTAssertEqual(value("CSSHookPassThroughChild"), 1)
        XCTAssertEqual(countingEntries, 1)
    }

    func testOnlyWordArgumentsPassThrough() {
        XCTAssertTrue(csr_types_pass_in_words("q16@0:8"))
        XCTAssertTrue(csr_types_pass_in_words("v40@0:8{_NSRange=QQ}16@32"))
        XCTAssertTrue(
            csr_types_pass_in_words("{_NSRange=QQ}16@0:8"), "a struct in registers comes back from the tail call")
        XCTAssertFalse(
            csr_types_pass_in_words("{CGRect={CGPoint=dd}{CGSize=dd}}16@0:8"), "above 16 bytes: refused (arm64 x8)")
        XCTAssertFalse(csr_types_pass_in_words("v24@0:8d16"), "a double argument would not survive the lookup")
        XCTAssertFalse(csr_types_pass_in_words("v48@0:8{CGRect={CGPoint=dd}{CGSize=dd}}16"))
        XCTAssertFalse(csr_types_pass_in_words("v56@0:8q16q24q32q40q48"), "seven words: one on the stack")
    }

    func testInstallIsIdempotentAndRevertTwiceIsHarmless() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let first = try HookEngine.shared.install(plusHundred, on: base)
        let second = try HookEngine.shared.install(plusHundred, on: base)
        XCTAssertTrue(first === second)
        XCTAssertEqual(value("CSSHookBase"), 101, "installed once, not twice")
        XCTAssertEqual(first.revert(), .reverted)
        XCTAssertEqual(first.revert(), .reverted)
        XCTAssertEqual(value("CSSHookBase"), 1)
        let third = try HookEngine.shared.install(plusHundred, on: base)
        XCTAssertEqual(value("CSSHookBase"), 101, "a reverted hook can be installed again")
        third.revert()
    }

    func testTwoHookPointsOnOneMethodChainAndRevertInAnyOrder() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let inner = try HookEngine.shared.install(plusHundred, on: base)
        let outer = try HookEngine.shared.install(plusTen, on: base)
        XCTAssertEqual(value("CSSHookBase"), 111)
        XCTAssertEqual(
            inner.revert(), .passingThrough, "the outer hook calls us as its original; we stay and pass through")
        XCTAssertEqual(value("CSSHookBase"), 11)
        XCTAssertEqual(outer.revert(), .reverted)
        XCTAssertEqual(value("CSSHookBase"), 1)
    }

    func testRevertNeverClobbersAHookAnotherLibraryInstalledLater() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let ours = try HookEngine.shared.install(plusHundred, on: base)
        let previous = csr_class_replaceOwnMethod(
            base.pointer, ObjCSelector("value").pointer, unsafeBitCast(foreignHook, to: CSRIMP.self))
        foreignPrevious = unsafeBitCast(previous, to: (@convention(c) (CSRObject?, CSRSelector?) -> Int).self)
        XCTAssertEqual(value("CSSHookBase"), 1101)
        XCTAssertEqual(ours.revert(), .passingThrough)
        XCTAssertEqual(value("CSSHookBase"), 1001, "the other library's hook is intact; ours passes through")
        // Put the class back for the other tests: the original IMP under the foreign hook's IMP.
        _ = csr_class_replaceOwnMethod(base.pointer, ObjCSelector("value").pointer, ours.point.replacement)
        XCTAssertEqual(try HookEngine.shared.install(plusHundred, on: base).state, .active)
        XCTAssertEqual(value("CSSHookBase"), 101)
        XCTAssertEqual(ours.revert(), .reverted)
        XCTAssertEqual(value("CSSHookBase"), 1)
    }

    func testAddingOverridesWhileAnotherThreadCallsThroughThem() throws {
        // Each round: a new subclass of CSSHookBase (it only inherits -value), an instance messaged in a loop by a
        // worker thread, and an override of -value added to the subclass meanwhile.
        for round in 0..<40 {
            let name = "CSSHookRuntime\(round)"
            XCTAssertTrue(css_make_subclass("CSSHookBase", name))
            let cls = try XCTUnwrap(ObjCClass(named: name))
            let object = UInt(bitPattern: try XCTUnwrap(css_object_new(name)))
            let running = Locked(true), wrong = Locked(0), done = DispatchSemaphore(value: 0)
            Thread {
                let receiver = UnsafeMutableRawPointer(bitPattern: object)
                while running.current {
                    let value = css_test_value(receiver)
                    if value != 1 && value != 101 { wrong.withLock { $0 += 1 } }
                }
                done.signal()
            }.start()
            usleep(3000)
            let hook = try HookEngine.shared.install(plusHundredOnRuntimeClasses, on: cls)
            XCTAssertEqual(hook.origin, .addedOverride)
            XCTAssertEqual(css_test_value(UnsafeMutableRawPointer(bitPattern: object)), 101)
            usleep(3000)
            running.withLock { $0 = false }
            done.wait()
            XCTAssertEqual(wrong.current, 0, "round \(round): a call saw neither the original nor the hook")
            hook.revert()
            css_object_release(UnsafeMutableRawPointer(bitPattern: object))
        }
    }

    func testClassMethods() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let hook = try HookEngine.shared.install(timesTwo, on: base)
        XCTAssertEqual(css_test_class_value("CSSHookBase"), 20)
        let childMeta = try XCTUnwrap(ObjCClass(named: "CSSHookChild")).metaclass
        XCTAssertEqual(childMeta.superclass, base.metaclass, "a metaclass's superclass is the superclass's metaclass")
        XCTAssertEqual(css_test_class_value("CSSHookChild"), 20)
        hook.revert()
        XCTAssertEqual(css_test_class_value("CSSHookBase"), 10)
    }

    func testRefusesWhatMustNeverBeHooked() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let retain: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> CSRObject?> = HookPoint("retain") {
            receiver, _ in receiver
        }
        XCTAssertThrowsError(try HookEngine.shared.install(retain, on: base)) {
            XCTAssertEqual($0 as? HookError, .forbiddenSelector("retain"))
        }
        let missing: HookPoint<@convention(c) (CSRObject?, CSRSelector?) -> Int> = HookPoint("noSuchMethod") { _, _ in 0
        }
        XCTAssertThrowsError(try HookEngine.shared.install(missing, on: base)) {
            XCTAssertEqual($0 as? HookError, .methodNotFound(class: "CSSHookBase", selector: "noSuchMethod"))
        }
    }

    func testConcurrentInstallsMakeOneHook() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let hooks = Locked<[Hook]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if let hook = try? HookEngine.shared.install(plusHundred, on: base) { hooks.withLock { $0.append(hook) } }
        }
        let all = hooks.withLock { $0 }
        XCTAssertEqual(all.count, 16)
        XCTAssertTrue(all.allSatisfy { $0 === all[0] })
        XCTAssertEqual(value("CSSHookBase"), 101)
        all[0].revert()
    }

    func testClassClusterDiscoveryFindsConcreteClassesFromSamples() throws {
        let arrays = try XCTUnwrap(ClassFamily("NSArray"))
        XCTAssertFalse(arrays.members.isEmpty)
        XCTAssertTrue(
            arrays.members.allSatisfy { member in arrays.roots.contains { member.isKind(of: $0) } }, "\(arrays)")
        let targets = arrays.hookTargets(for: "objectAtIndex:", kind: .instance)
        XCTAssertFalse(targets.isEmpty)
        XCTAssertTrue(targets.allSatisfy { $0.owns("objectAtIndex:") }, "hooks go on the classes that own the method")
        XCTAssertNil(ClassFamily("NoSuchCluster"))
    }
}

extension HookEngineTests {
    /// A hook left passing through under another library's hook is switched back on when installed again, instead of
    /// being put into the chain a second time (the two copies would call each other forever).
    func testReinstallingAHookThatPassesThroughUnderAnotherSwitchesItBackOn() throws {
        let base = try XCTUnwrap(ObjCClass(named: "CSSHookBase"))
        let ours = try HookEngine.shared.install(plusHundred, on: base)
        let previous = csr_class_replaceOwnMethod(
            base.pointer, ObjCSelector("value").pointer, unsafeBitCast(foreignHook, to: CSRIMP.self))
        foreignPrevious = unsafeBitCast(previous, to: (@convention(c) (CSRObject?, CSRSelector?) -> Int).self)
        XCTAssertEqual(ours.revert(), .passingThrough)
        let again = try HookEngine.shared.install(plusHundred, on: base)
        XCTAssertTrue(again === ours)
        XCTAssertEqual(again.state, .active)
        XCTAssertEqual(css_test_value_of_new("CSSHookBase"), 1101, "foreign + ours + original, each once")
        // Put the class back for the other tests.
        _ = csr_class_replaceOwnMethod(base.pointer, ObjCSelector("value").pointer, ours.point.replacement)
        XCTAssertEqual(ours.revert(), .reverted)
        XCTAssertEqual(css_test_value_of_new("CSSHookBase"), 1)
    }
}

/// `[[cls new] value]`, released afterwards.
private func css_test_value_of_new(_ className: String) -> Int {
    let object = css_object_new(className)
    defer { css_object_release(object) }
    return css_test_value(object)
}
