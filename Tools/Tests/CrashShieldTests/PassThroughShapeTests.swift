@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import Foundation
import XCTest

/// Stopped overrides of every argument shape become pass-throughs (CSRPassThrough.h): a double, a rect (four
/// doubles, on the stack on x86_64), a rect returned in memory, a mix of integer, double, rect and float arguments, and
/// variadic arguments. Each hook below adds 100 while active and counts the calls that enter it; once stopped, a call
/// must give exactly what the inherited method gives and never enter it.
nonisolated(unsafe) private var shapeEntries = 0

private typealias ScaledIMP = @convention(c) (CSRObject?, CSRSelector?, Double) -> Double
private typealias AreaIMP = @convention(c) (CSRObject?, CSRSelector?, CSSShapeRect) -> Double
private typealias RectIMP = @convention(c) (CSRObject?, CSRSelector?, Double) -> CSSShapeRect
private typealias MixedIMP = @convention(c) (CSRObject?, CSRSelector?, Int, Double, CSSShapeRect, Float) -> Double

private let scaledPoint: HookPoint<ScaledIMP> = HookPoint("scaled:") { receiver, cmd, factor in
    shapeEntries += 1
    let value = scaledPoint.original(for: receiver)?(receiver, cmd, factor) ?? -1000
    return scaledPoint.isActive(for: receiver) ? value + 100 : value
}
private let areaPoint: HookPoint<AreaIMP> = HookPoint("areaOf:") { receiver, cmd, rect in
    shapeEntries += 1
    let value = areaPoint.original(for: receiver)?(receiver, cmd, rect) ?? -1000
    return areaPoint.isActive(for: receiver) ? value + 100 : value
}
private let rectPoint: HookPoint<RectIMP> = HookPoint("rectScaledBy:") { receiver, cmd, factor in
    shapeEntries += 1
    var value =
        rectPoint.original(for: receiver)?(receiver, cmd, factor) ?? CSSShapeRect(x: -1, y: -1, width: -1, height: -1)
    if rectPoint.isActive(for: receiver) { value.x += 100 }
    return value
}
private let mixedPoint: HookPoint<MixedIMP> = HookPoint("mixed:number:rect:single:") { receiver, cmd, a, b, rect, c in
    shapeEntries += 1
    let value = mixedPoint.original(for: receiver)?(receiver, cmd, a, b, rect, c) ?? -1000
    return mixedPoint.isActive(for: receiver) ? value + 100 : value
}
/// Another library's hook on the superclass, after the stop: the pass-through must see it.
private let scaledOnBase: HookPoint<ScaledIMP> = HookPoint("scaled:") { receiver, cmd, factor in
    (scaledOnBase.original(for: receiver)?(receiver, cmd, factor) ?? -1000) + 10
}

final class PassThroughShapeTests: ShieldTestCase {
    private let rect = CSSShapeRect(x: 1.25, y: 2.5, width: 3, height: 4.5)

    /// A class of its own under CSSShapeView (a class keeps the method it was given for the rest of the process).
    private func freshClass(_ suffix: String) throws -> (cls: ObjCClass, object: CSRObject) {
        let name = "CSSShapeStopped\(suffix)"
        XCTAssertTrue(css_make_subclass("CSSShapeView", name))
        let cls = ObjCClass(try XCTUnwrap(csr_class_lookup(name)))
        return (cls, try XCTUnwrap(css_object_new(name)))
    }

    private func assertStopsIntoPassThrough<Value: Equatable>(
        _ point: AnyHookPoint, suffix: String, hooked: (Value) -> Value,
        call: (CSRObject) -> Value, line: UInt = #line
    ) throws {
        let plain = try XCTUnwrap(css_object_new("CSSShapeView"))
        defer { css_object_release(plain) }
        let expected = call(plain)
        let (cls, object) = try freshClass(suffix)
        defer { css_object_release(object) }
        let hook = try HookEngine.shared.install(point, on: cls)
        XCTAssertEqual(hook.origin, .addedOverride, line: line)
        shapeEntries = 0
        XCTAssertEqual(call(object), hooked(expected), "the hook runs", line: line)
        XCTAssertEqual(shapeEntries, 1, line: line)
        XCTAssertEqual(hook.revert(), .passingThrough, line: line)
        let stopped = try XCTUnwrap(csr_class_methodImplementation(cls.pointer, point.selector.pointer))
        XCTAssertTrue(csr_is_pass_through(stopped), "\(point.selector): the class kept the replacement", line: line)
        shapeEntries = 0
        XCTAssertEqual(call(object), expected, "\(point.selector): the stopped override changed the call", line: line)
        XCTAssertEqual(shapeEntries, 0, "\(point.selector): a stopped override entered the replacement", line: line)
        // Started again: the replacement is back in the class; stopped again, the same pass-through.
        XCTAssertTrue(try HookEngine.shared.install(point, on: cls) === hook)
        XCTAssertEqual(call(object), hooked(expected), line: line)
        XCTAssertEqual(hook.revert(), .passingThrough, line: line)
        XCTAssertEqual(
            csr_class_methodImplementation(cls.pointer, point.selector.pointer).map { unsafeBitCast($0, to: Int.self) },
            unsafeBitCast(stopped, to: Int.self), line: line)
        XCTAssertEqual(call(object), expected, line: line)
    }

    func testADoubleArgumentAndResult() throws {
        try assertStopsIntoPassThrough(scaledPoint, suffix: "Scaled", hooked: { $0 + 100 }) {
            css_shape_scaled($0, 2.25)
        }
    }

    func testARectArgument() throws {
        try assertStopsIntoPassThrough(areaPoint, suffix: "Area", hooked: { $0 + 100 }) {
            css_shape_area($0, self.rect)
        }
    }

    func testARectReturnedInMemory() throws {
        let call = { (object: CSRObject) -> [Double] in
            let value = css_shape_rect_scaled(object, 1.5)
            return [value.x, value.y, value.width, value.height]
        }
        try assertStopsIntoPassThrough(
            rectPoint, suffix: "Rect", hooked: { [$0[0] + 100] + $0.dropFirst() }, call: call)
    }

    func testIntegerDoubleRectAndFloatArgumentsTogether() throws {
        try assertStopsIntoPassThrough(mixedPoint, suffix: "Mixed", hooked: { $0 + 100 }) {
            css_shape_mixed($0, 7, 0.5, self.rect, 0.25)
        }
    }

    /// The pass-through reads the superclass's implementation at call time: a hook put on it later is seen.
    func testAStoppedDoubleOverrideSeesALaterHookOnTheSuperclass() throws {
        let (cls, object) = try freshClass("ScaledLater")
        defer { css_object_release(object) }
        let hook = try HookEngine.shared.install(scaledPoint, on: cls)
        XCTAssertEqual(hook.revert(), .passingThrough)
        let base = ObjCClass(try XCTUnwrap(csr_class_lookup("CSSShapeBase")))
        let onBase = try HookEngine.shared.install(scaledOnBase, on: base)
        XCTAssertEqual(css_shape_scaled(object, 2), 13)
        XCTAssertEqual(onBase.revert(), .reverted)
        XCTAssertEqual(css_shape_scaled(object, 2), 3)
    }

    /// Variadic arguments (and, on x86_64, the count of vector registers in %al) pass through untouched: the
    /// engine's pass-through for `-sumOf:...` added straight to a class that inherits it.
    func testVariadicArguments() throws {
        let (cls, object) = try freshClass("Variadic")
        defer { css_object_release(object) }
        let sel = ObjCSelector("sumOf:")
        let types = try XCTUnwrap(csr_class_methodTypes(cls.pointer, sel.pointer))
        let passThrough = try XCTUnwrap(csr_pass_through_any(cls.pointer, sel.pointer))
        XCTAssertTrue(csr_class_addMethod(cls.pointer, sel.pointer, passThrough, types))
        XCTAssertEqual(css_shape_sum(object, 40, 2, 1_000_000_000_000), 1_000_000_000_042)
    }

    /// The main-thread UI guard's own shapes (UIView's `setAlpha:` and `setNeedsDisplayInRect:`), on a class that
    /// inherits both: after stop(), each is a pass-through and a call from a background thread runs at once, there.
    func testTheMainThreadGuardsDoubleAndRectShapesPassThroughAfterStop() throws {
        XCTAssertTrue(css_make_subclass("CSSShapeView", "CSSShapeMainThreadView"))
        var configuration = Configuration(guards: .mainThreadUI)
        configuration.mainThreadOnlyMethods = ["CSSShapeMainThreadView": ["setAlpha:", "setNeedsDisplayInRect:"]]
        let view = try XCTUnwrap(css_object_new("CSSShapeMainThreadView"))
        defer { css_object_release(view) }
        withShield(configuration) { _ in
            let hooks = HookEngine.shared.activeHooks.filter { $0.targetClass.name == "CSSShapeMainThreadView" }
            XCTAssertEqual(Set(hooks.map(\.origin)), [.addedOverride])
            XCTAssertEqual(hooks.count, 2)
            css_shape_set_alpha(view, 0.5)
            XCTAssertEqual(css_shape_alpha(view), 0.5)
        }
        let cls = try XCTUnwrap(csr_class_lookup("CSSShapeMainThreadView"))
        for selector in ["setAlpha:", "setNeedsDisplayInRect:"] {
            let imp = try XCTUnwrap(csr_class_methodImplementation(cls, ObjCSelector(selector).pointer))
            XCTAssertTrue(csr_is_pass_through(imp), "\(selector) kept the guard's replacement after stop()")
        }
        let rect = self.rect
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let target = view
        Thread {
            css_shape_set_alpha(target, 0.75)
            css_shape_set_needs_display(target, rect)
            done.signal()
        }.start()
        done.wait()
        XCTAssertEqual(css_shape_alpha(view), 0.75, "ran at once on the calling thread")
        let last = css_shape_last_rect(view)
        XCTAssertEqual([last.x, last.y, last.width, last.height], [rect.x, rect.y, rect.width, rect.height])
    }
}
