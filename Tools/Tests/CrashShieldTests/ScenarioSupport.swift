@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// One catalog scenario, readable from Swift.
struct CatalogScenario {
    let name: String
    let category: String
    let selector: String
    let exception: String
    let expectedResult: String
    let expectedReports: Int
    let run: @convention(c) () -> UnsafePointer<CChar>?

    /// Every scenario whose category is `category`.
    static func all(category: String) -> [CatalogScenario] {
        var count: Int32 = 0
        guard let table = css_scenarios(&count) else { return [] }
        return (0..<Int(count)).map { index in
            let entry = table[index]
            return CatalogScenario(
                name: String(cString: entry.name), category: String(cString: entry.category),
                selector: String(cString: entry.selector), exception: String(cString: entry.exception),
                expectedResult: String(cString: entry.expectedResult),
                expectedReports: Int(entry.expectedReports), run: entry.run)
        }.filter { $0.category == category }
    }

    static func named(_ name: String) -> CatalogScenario? {
        var count: Int32 = 0
        guard let table = css_scenarios(&count) else { return nil }
        for index in 0..<Int(count) where String(cString: table[index].name) == name {
            return all(category: String(cString: table[index].category)).first { $0.name == name }
        }
        return nil
    }

    /// Runs the bad call in this process (inside a pool); returns what the caller got.
    func perform() -> String { pooledText { run() } }
}

/// What `body` (a C function of the scenarios) answered, read inside an autorelease pool (the text lives in it):
/// "nil" for NULL.
func pooledText(_ body: @escaping () -> UnsafePointer<CChar>?) -> String {
    var text = ""
    withAutoreleasePool { text = body().map { String(cString: $0) } ?? "nil" }
    return text
}

extension XCTestCase {
    /// Runs each scenario under `guards` in release mode, in this process: the caller gets the catalog's safe value,
    /// and exactly the expected reports, naming the catalog's selector and exception.
    func assertScenariosRecover(
        _ scenarios: [CatalogScenario], guards: GuardCategory,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertFalse(scenarios.isEmpty, file: file, line: line)
        for scenario in scenarios {
            withShield(Configuration(guards: guards)) { sink in
                XCTAssertEqual(scenario.perform(), scenario.expectedResult, scenario.name, file: file, line: line)
                XCTAssertEqual(
                    sink.reports.count, scenario.expectedReports,
                    "\(scenario.name): \(sink.reports.map(\.method))", file: file, line: line)
                guard let report = sink.reports.first else { return }
                XCTAssertEqual(report.category.name, scenario.category, scenario.name, file: file, line: line)
                XCTAssertEqual(report.selector, scenario.selector, scenario.name, file: file, line: line)
                XCTAssertEqual(report.exceptionName, scenario.exception, scenario.name, file: file, line: line)
                XCTAssertEqual(report.action, .recovered, scenario.name, file: file, line: line)
                XCTAssertFalse(report.reason.isEmpty, scenario.name, file: file, line: line)
            }
        }
    }

    /// Debug mode: the report comes first, then the call fails exactly as Foundation does (same exception, same reason).
    func assertDebugModeFailsLikeFoundation(
        _ scenario: CatalogScenario, guards: GuardCategory,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var unguarded: (name: String, reason: String)?
        withAutoreleasePool { unguarded = catchingObjCException { _ = scenario.run() } }
        XCTAssertEqual(
            unguarded?.name, scenario.exception, "without CrashShield: \(scenario.name)", file: file, line: line)
        withShield(Configuration(guards: guards, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, scenario.exception, scenario.name, file: file, line: line)
            XCTAssertEqual(sink.reports.count, 1, scenario.name, file: file, line: line)
            XCTAssertEqual(sink.reports.first?.action, .failedLoudly, scenario.name, file: file, line: line)
            XCTAssertEqual(
                sink.reports.first?.reason, raised?.reason, "the report names what Foundation raised",
                file: file, line: line)
        }
    }

    /// Implementations of `selectors` in `classes`, to compare before start and after stop.
    func implementations(of selectors: [ObjCSelector], in classes: [ObjCClass]) -> [Int] {
        classes.flatMap { cls in
            selectors.map { unsafeBitCast(csr_class_methodImplementation(cls.pointer, $0.pointer), to: Int.self) }
        }
    }
}

/// GNUstep sets its KVO up on first use without a lock that covers it: `setup()` publishes its lock before the table
/// of KVO subclasses exists (another thread then logs "NSMapGet Null table argument supplied" and makes a second
/// `GSKVOCSSKVOModel`, whose lookup fails, so `GSObjCAddClassBehavior` recurses until the stack overflows), and a
/// class's KVO subclass gets each key's setter at that key's first observation, by `class_addMethod`, while other
/// threads message its instances. Without CrashShield, 8 threads making their first observations at once crash about
/// once in 300 runs (Docs/HookEngine.md, "GCC's libobjc"). Tests that observe `CSSKVOModel` from several threads call
/// this first, on one thread.
func setUpGNUstepKVOOnOneThread() {
    withAutoreleasePool {  // GNUstep's KVO autoreleases what it builds on first use
        let model = css_kvo_model_new()!, observer = css_kvo_recorder_new(0)!
        for key in ["level", "name"] { css_kvo_add(model, observer, key, 0x01, 0) }
        css_kvo_set_level(model, 1)
        for key in ["level", "name"] { css_kvo_remove(model, observer, key) }
        css_object_release(observer)
        css_object_release(model)
        var scratch = [CChar](repeating: 0, count: 1 << 12)
        css_kvo_take_log(&scratch, UInt(scratch.count))  // the warm-up's change is nobody's
    }
}
