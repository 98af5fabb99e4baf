@_spi(CrashShieldTools) @testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// The hot-read trampolines (CSRHotReads.h) behind `objectAtIndex:` and `characterAtIndex:`: every installed class
/// reaches its own original through its slot's trampoline (and past the pool, through the generic one), subclasses
/// reach their ancestor's, and an exception the original raises for a valid argument is not the guard's business.
final class HotReadTests: ShieldTestCase {
    private let poolSize = Int(CSR_HOT_READ_POOL_SIZE)

    /// Makes `count` indexed classes (implementation i % 3) and a subclass of each that only inherits.
    private func makeIndexedClasses(
        prefix: String, count: Int, countsTen: Bool = false
    ) throws -> [(name: String, implementation: Int)] {
        var classes: [(String, Int)] = []
        for index in 0..<count {
            let name = "\(prefix)\(index)"
            XCTAssertTrue(css_make_indexed_class(name, Int32(index % 3), countsTen))
            XCTAssertTrue(css_make_subclass(name, name + "Child"))
            classes += [(name, index % 3), (name + "Child", index % 3)]
        }
        return classes
    }

    private func value(of className: String, at index: UInt) -> Int {
        let object = css_object_new(className)
        defer { css_object_release(object) }
        var result = 0
        withAutoreleasePool { result = css_indexed_value(object, index) }
        return result
    }

    func testEveryClassReachesItsOwnOriginalThroughThePoolAndPastIt() throws {
        // More classes than the pool has trampolines: the last ones get the generic, looked-up trampoline.
        let classes = try makeIndexedClasses(prefix: "CSSHotIndexed", count: poolSize + 4)
        try withShield(Configuration(guards: .container)) { sink in
            var hooks: [Hook] = []
            for (name, _) in classes where !name.hasSuffix("Child") {
                hooks.append(try HookEngine.shared.install(ArrayHooks.objectAtIndex, onClassNamed: name))
            }
            defer { hooks.forEach { $0.revert() } }
            let trampolines = Set(hooks.map { UInt(bitPattern: unsafeBitCast($0.replacement, to: Int.self)) })
            XCTAssertGreaterThan(trampolines.count, poolSize / 2, "classes get trampolines of their own slots")
            XCTAssertTrue(
                trampolines.contains(
                    UInt(bitPattern: unsafeBitCast(ArrayHooks.objectAtIndex.replacement, to: Int.self))),
                "past the pool, the generic trampoline")

            for (name, implementation) in classes {
                XCTAssertEqual(value(of: name, at: 1), implementation * 100 + 1, name)
                XCTAssertEqual(value(of: name, at: 2), implementation * 100 + 2, name)
                XCTAssertEqual(value(of: name, at: 5), -1, "\(name): out of range answers nil")
            }
            CrashShield.flush()
            XCTAssertEqual(
                Set(sink.reports.map(\.className)), Set(classes.map(\.name)), "one report per receiver class")
            XCTAssertEqual(sink.reports.count, classes.count)
            for report in sink.reports {
                XCTAssertEqual(report.exceptionName, "NSRangeException")
                XCTAssertEqual(report.reason, "index 5 beyond bounds [0 .. 2]", "the original's own exception")
                XCTAssertEqual(report.selector, "objectAtIndex:")
                XCTAssertEqual(report.occurrences, 1)
            }
        }
        // Reverted: the original raises again.
        let raised = catchingObjCException { _ = self.value(of: "CSSHotIndexed0", at: 5) }
        XCTAssertEqual(raised?.name, "NSRangeException")
    }

    func testAClassThatOnlyInheritsTheMethodCallsItsSuperclassImplementation() throws {
        let classes = try makeIndexedClasses(prefix: "CSSHotInheriting", count: 1)
        let child = classes[1].name
        try withShield(Configuration(guards: .container)) { sink in
            let hook = try HookEngine.shared.install(ArrayHooks.objectAtIndex, onClassNamed: child)
            defer { hook.revert() }
            XCTAssertEqual(hook.origin, .addedOverride)
            XCTAssertEqual(value(of: child, at: 2), 2, "the superclass's implementation answers")
            XCTAssertEqual(value(of: child, at: 4), -1)
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.className), [child])
            XCTAssertEqual(sink.reports.first?.reason, "index 4 beyond bounds [0 .. 2]")
        }
    }

    func testAnExceptionForAValidIndexPropagatesUnreported() throws {
        // count says 10, the implementation raises from 3 on: index 5 is valid by the receiver's own count.
        let classes = try makeIndexedClasses(prefix: "CSSHotLying", count: 1, countsTen: true)
        try withShield(Configuration(guards: .container)) { sink in
            let hook = try HookEngine.shared.install(ArrayHooks.objectAtIndex, onClassNamed: classes[0].name)
            defer { hook.revert() }
            XCTAssertEqual(value(of: classes[0].name, at: 2), 2)
            for (name, _) in classes {
                let raised = catchingObjCException { _ = self.value(of: name, at: 5) }
                XCTAssertEqual(raised?.name, "NSRangeException", name)
                XCTAssertEqual(raised?.reason, "index 5 beyond bounds [0 .. 2]", name)
            }
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "not a precondition failure: \(sink.reports.map(\.reason))")
        }
    }

    func testDebugModeRethrowsTheOriginalException() throws {
        let classes = try makeIndexedClasses(prefix: "CSSHotDebug", count: 1)
        try withShield(Configuration(guards: .container, mode: .debug, isAppImage: { _ in true })) { sink in
            let hook = try HookEngine.shared.install(ArrayHooks.objectAtIndex, onClassNamed: classes[0].name)
            defer { hook.revert() }
            let raised = catchingObjCException { _ = self.value(of: classes[0].name, at: 7) }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertEqual(raised?.reason, "index 7 beyond bounds [0 .. 2]")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.action), [.failedLoudly])
        }
    }

    func testDebugModeFailsLikeFoundationForEveryHotReadScenario() throws {
        let scenarios = CatalogScenario.all(category: "string") + CatalogScenario.all(category: "container")
        let hot = scenarios.filter {
            ["characterAtIndex:", "objectAtIndex:", "objectAtIndexedSubscript:"].contains($0.selector)
        }
        XCTAssertGreaterThanOrEqual(hot.count, 6)
        for scenario in hot {
            try assertDebugModeFailsLikeFoundation(scenario, guards: [.string, .container])
        }
    }

    /// `addObject:` (arrays and sets), `setObject:forKey:`, `replaceCharactersInRange:withString:`, `hasPrefix:`,
    /// `hasSuffix:`, `rangeOfString:options:range:locale:`, `compare:options:range:` and the string constructors that take a format or a C string (CSRCheckFirst.h): each installed
    /// class gets a check-first trampoline that jumps to its original when the check passes, and a failed check still
    /// reaches the guard: recovered, reported, the receiver unchanged.
    func testCheckFirstTrampolinesLetValidCallsThroughAndHandTheRestToTheGuard() throws {
        func isCheckFirst(_ className: String, _ selectorName: String, _ tableIndex: Int32) -> Bool {
            isCheckFirstOn(ObjCClass(named: className)!, selectorName, tableIndex)
        }
        func isCheckFirstOn(_ cls: ObjCClass, _ selectorName: String, _ tableIndex: Int32) -> Bool {
            let imp = csr_class_methodImplementation(cls.pointer, csr_sel_register(selectorName))
            let word = UInt(bitPattern: imp.map { unsafeBitCast($0, to: UnsafeRawPointer.self) })
            return (0..<poolSize).contains { slot in
                UInt(
                    bitPattern: csr_check_first_trampoline(tableIndex, slot).map {
                        unsafeBitCast($0, to: UnsafeRawPointer.self)
                    }) == word
            }
        }
        let points: [(String, String, Int32)] = [
            ("GSMutableArray", "addObject:", Int32(CSRHotArrayAddObject)),
            ("GSMutableDictionary", "setObject:forKey:", Int32(CSRHotDictionarySetObjectForKey)),
            ("GSMutableString", "replaceCharactersInRange:withString:", Int32(CSRHotMutableStringReplaceCharacters)),
            ("GSMutableSet", "addObject:", Int32(CSRHotSetAddObject)),
            ("NSString", "hasPrefix:", Int32(CSRHotStringHasPrefix)),
            ("NSString", "hasSuffix:", Int32(CSRHotStringHasSuffix)),
            ("NSString", "rangeOfString:options:range:locale:", Int32(CSRHotStringRangeOfString)),
            ("GSCString", "compare:options:range:", Int32(CSRHotStringCompare)),
            ("GSPlaceholderString", "initWithFormat:locale:arguments:", Int32(CSRHotStringInitWithFormat)),
            ("GSPlaceholderString", "initWithUTF8String:", Int32(CSRHotStringInitWithUTF8String)),
        ]
        try withShield(Configuration(guards: [.container, .string])) { sink in
            for (cls, selector, tableIndex) in points {
                XCTAssertTrue(isCheckFirst(cls, selector, tableIndex), "\(cls) \(selector)")
            }
            XCTAssertEqual(css_test_add_nil_direct(3), 0, "addObject:nil recovered each time")
            XCTAssertTrue(
                isCheckFirstOn(
                    ObjCClass(named: "NSString")!.metaclass, "stringWithUTF8String:",
                    Int32(CSRHotStringWithUTF8String)), "+[NSString stringWithUTF8String:]")
            for name in [
                "mutableArray.addObject.nil", "mutableDictionary.setObjectForKey.nilValue",
                "mutableDictionary.setObjectForKey.nilKey", "mutableString.replaceCharactersInRange.pastEnd",
                "mutableAttributedString.replaceCharactersInRange.pastEnd", "mutableSet.addObject.nil",
                "string.hasPrefix.nil", "string.hasSuffix.nil", "string.initWithFormat.nil",
                "string.initWithUTF8String.null", "string.stringWithUTF8String.null",
                "string.rangeOfStringOptionsRange.pastEnd", "string.compare.nil",
            ] {
                let scenario = try XCTUnwrap(CatalogScenario.named(name))
                XCTAssertEqual(scenario.perform(), scenario.expectedResult, "\(name): the receiver is unchanged")
            }
            CrashShield.flush()
            let calls = sink.reports.flatMap { Array(repeating: $0.selector, count: $0.occurrences) }
            XCTAssertEqual(
                calls.sorted(),
                (Array(repeating: "addObject:", count: 5)
                    + ["hasPrefix:", "hasSuffix:", "initWithFormat:locale:arguments:", "initWithUTF8String:"]
                    + ["rangeOfString:options:range:locale:", "compare:options:range:"]
                    + Array(repeating: "replaceCharactersInRange:withString:", count: 2)
                    + Array(repeating: "setObject:forKey:", count: 2) + ["stringWithUTF8String:"]).sorted())
        }
        for (cls, selector, tableIndex) in points {
            XCTAssertFalse(isCheckFirst(cls, selector, tableIndex), "stop() reverts \(cls)")
        }
        XCTAssertEqual(css_test_add_nil_direct(1), 1, "stopped: Foundation raises again")
    }
}
