@testable import CrashShield
import Foundation
import XCTest

/// `GuardRegistry.guards` is one ordered list of declarations: one per category, every category once, in the order
/// ARCHITECTURE.md states; `start` installs in that order, `stop` uninstalls in reverse, and a guard whose install
/// throws is taken out again.
final class GuardRegistryTests: ShieldTestCase {
    /// The install order ARCHITECTURE.md states: its line "Install order (`GuardRegistry.guards`): `a`, `b`, ...".
    private func documentedOrder() throws -> [GuardCategory] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let line = try XCTUnwrap(
            text.split(separator: "\n").first { $0.hasPrefix("Install order (`GuardRegistry.guards`):") },
            "ARCHITECTURE.md states the install order")
        let names = line.split(separator: ":", maxSplits: 1)[1].split(separator: "`").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        return try names.map { try XCTUnwrap(GuardCategory(name: $0), "\($0) names no guard category") }
    }

    func testTheListHasEveryCategoryOnceInTheDocumentedOrder() throws {
        let order = try documentedOrder()
        XCTAssertEqual(order.count, GuardCategory.allCategories.count)
        XCTAssertEqual(GuardRegistry.problems(in: GuardRegistry.guards, order: order), [])
        XCTAssertEqual(GuardRegistry.available, .all)
    }

    /// The check above fails for each way the list can be broken.
    func testABrokenListIsReported() {
        let order = GuardCategory.allCategories
        let shipped = order.map { GuardDeclaration($0, install: { _ in }) }
        XCTAssertEqual(GuardRegistry.problems(in: shipped, order: order), [])
        let dropped = Array(shipped.dropLast())
        XCTAssertEqual(
            GuardRegistry.problems(in: dropped, order: order),
            [
                "uikit: no declaration",
                "order \(dropped.map(\.category.name).joined(separator: ", ")), expected "
                    + order.map(\.name).joined(separator: ", "),
            ])
        let twice = shipped + [GuardDeclaration(.kvo, install: { _ in })]
        XCTAssertEqual(GuardRegistry.problems(in: twice, order: order).first, "kvo: declared twice")
        var swapped = shipped
        swapped.swapAt(0, 1)
        XCTAssertEqual(GuardRegistry.problems(in: swapped, order: order).count, 1, "the order only")
        let combined = shipped + [GuardDeclaration([.kvo, .kvc], install: { _ in })]
        XCTAssertEqual(GuardRegistry.problems(in: combined, order: order).first, "kvc,kvo: not a single category")
    }

    /// `start` runs the installs in the list's order, `stop` the uninstalls in reverse; switching a guard off and on
    /// again installs it again.
    func testInstallFollowsTheListAndUninstallReversesIt() throws {
        let calls = Locked([String]())
        GuardRegistry.substitutes.withLock {
            $0 = GuardCategory.allCategories.map { category in
                GuardDeclaration(
                    category, install: { _ in calls.withLock { $0.append("+\(category.name)") } },
                    uninstall: { calls.withLock { $0.append("-\(category.name)") } })
            }
        }
        defer { GuardRegistry.substitutes.withLock { $0 = [] } }
        try CrashShield.start(Configuration(guards: [.uikit, .container, .zombie, .kvo]))
        XCTAssertEqual(calls.current, ["+container", "+kvo", "+zombie", "+uikit"])
        try CrashShield.setGuard(.kvo, enabled: false)
        try CrashShield.setGuard(.kvo, enabled: true)
        CrashShield.stop()
        XCTAssertEqual(
            calls.current,
            ["+container", "+kvo", "+zombie", "+uikit", "-kvo", "+kvo", "-uikit", "-zombie", "-kvo", "-container"])
    }

    /// The contract every shipped guard keeps: `install` runs again after `uninstall` (the kill switch, a new `start`)
    /// and makes the same hooks; `uninstall` a second time is harmless.
    func testEveryGuardInstallsAgainAfterUninstall() throws {
        func hooks() -> Set<String> {
            // The dealloc watcher's hooks stay for the process's life, whatever guard asked for them.
            Set(HookEngine.shared.activeHooks.filter { $0.point !== DeallocWatcher.deallocPoint }.map(\.description))
        }
        // UIView is not here: a method of a Foundation class nothing else here calls stands in for it. (The UIKit
        // guard hooks nothing here: its fixture classes are the tools package's, UIKitGuardTests.)
        var configuration = Configuration()
        configuration.mainThreadOnlyMethods = ["NSMutableSet": ["removeAllObjects"]]
        for declaration in GuardRegistry.guards {
            let category = declaration.category
            configuration.guards = category
            try CrashShield.start(configuration)
            let installed = hooks()
            XCTAssertEqual(installed.isEmpty, category == .uikit, "\(category.name) hooks \(installed.count) methods")
            XCTAssertEqual(CrashShield.activeGuards, category)
            try CrashShield.setGuard(category, enabled: false)
            XCTAssertEqual(hooks(), [], "\(category.name): switched off, nothing stays")
            declaration.uninstall()
            try CrashShield.setGuard(category, enabled: true)
            XCTAssertEqual(hooks(), installed, "\(category.name): switched on again")
            CrashShield.stop()
            try CrashShield.start(configuration)
            XCTAssertEqual(hooks(), installed, "\(category.name): started again")
            CrashShield.stop()
            XCTAssertEqual(hooks(), [], "\(category.name): stopped")
        }
    }

    /// A guard whose install throws halfway: the hooks it made are reverted, its `uninstall` runs, the others run.
    func testAFailedInstallIsTakenOutAgain() throws {
        let uninstalled = Locked(0)
        let point = KVCGuard.valueForUndefinedKey
        GuardRegistry.substitutes.withLock {
            $0 = [
                GuardDeclaration(
                    .kvc,
                    install: { context in
                        try context.install(point, on: [XCTUnwrap(ObjCClass(named: "NSObject"))])
                        throw HookError.methodNotFound(class: "NSObject", selector: "missing")
                    },
                    uninstall: { uninstalled.withLock { $0 += 1 } })
            ]
        }
        defer { GuardRegistry.substitutes.withLock { $0 = [] } }
        try CrashShield.start(Configuration(guards: [.kvc, .container]))
        XCTAssertEqual(CrashShield.activeGuards, .container)
        XCTAssertEqual(uninstalled.current, 1)
        XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.point === point }, "its hook was reverted")
    }
}
