@testable import CrashShield
import CrashShieldMatrix
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The unrecognized-selector and NSNull guards in this process: zeroed return values of every kind, one report per
/// bad message, exact reasons, modes, scope, deny list, classes that forward themselves, threads, stop().
final class MessagingGuardTests: ShieldTestCase {
    private let messaging: GuardCategory = [.unrecognizedSelector, .nsNull]
    private static let validCalls =
        "target=FORWARDED,raised(Can not determine type information for -[CSSForwardingTargetObject length]) "
        + "invocation=INVOCATION,10 proxy=PROXY,5 dynamic=42 responds=0,0,0,0 signatures=nil,nil,nil afterResponds=0,nil description=<null>"

    private var messagingScenarios: [Scenario] {
        Scenario.all.filter { $0.category == "unrecognizedSelector" || $0.category == "nsNull" }
    }

    /// Runs a scenario; returns what the caller got, or the exception it raised.
    private func run(_ name: String) throws -> (result: String?, raised: (name: String, reason: String)?) {
        let scenario = try XCTUnwrap(Scenario.named(name), name)
        var result: String?
        var raised: (name: String, reason: String)?
        withAutoreleasePool { raised = catchingObjCException { result = scenario.perform() } }
        return (raised == nil ? result : nil, raised)
    }

    private func validCallsText() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_valid_messaging_calls()) }
        return text
    }

    func testEveryReturnKindGetsAZeroedValueAndExactlyOneReport() throws {
        XCTAssertGreaterThanOrEqual(messagingScenarios.count, 12)
        for scenario in messagingScenarios {
            try withShield(Configuration(guards: messaging)) { sink in
                let (result, raised) = try run(scenario.name)
                XCTAssertNil(raised.map { "\($0.name): \($0.reason)" }, scenario.name)
                XCTAssertEqual(result, scenario.expectedResult, scenario.name)
                XCTAssertEqual(sink.reports.count, 1, "\(scenario.name): \(sink.reports.map(\.method))")
                let report = try XCTUnwrap(sink.reports.first)
                XCTAssertEqual(report.category.name, scenario.category, scenario.name)
                XCTAssertEqual(report.selector, scenario.selector, scenario.name)
                XCTAssertEqual(report.exceptionName, "NSInvalidArgumentException", scenario.name)
                XCTAssertEqual(report.action, .recovered, scenario.name)
                XCTAssertEqual(report.isClassMethod, scenario.name.contains(".class."), scenario.name)
                // The caller is the code that sent the message, past the runtime's forwarding trampoline.
                let caller = try XCTUnwrap(report.callerFrame, scenario.name)
                XCTAssertFalse(
                    caller.image.contains("gnustep") || caller.image.contains("ffi"),
                    "\(scenario.name): \(caller.image)")
            }
        }
    }

    func testReportReasonIsWhatTheRuntimeRaises() throws {
        for scenario in messagingScenarios {
            let unprotected = try run(scenario.name)
            let raised = try XCTUnwrap(unprotected.raised, "\(scenario.name) must raise without CrashShield")
            try withShield(Configuration(guards: messaging)) { sink in
                _ = try run(scenario.name)
                let report = try XCTUnwrap(sink.reports.first, scenario.name)
                // The receiver is a new object each run: only its address may differ.
                XCTAssertEqual(
                    MatrixRunner.normalizingAddresses(report.reason),
                    MatrixRunner.normalizingAddresses(raised.reason), scenario.name)
            }
        }
    }

    func testAddressNormalizationOnlyTouchesHexadecimalAddresses() {
        XCTAssertEqual(
            MatrixRunner.normalizingAddresses("-[A b]: unrecognized selector sent to instance 0x55d1c0a3e8f0"),
            "-[A b]: unrecognized selector sent to instance 0x?")
        XCTAssertEqual(MatrixRunner.normalizingAddresses("index 0 beyond bounds, 0x"), "index 0 beyond bounds, 0x")
    }

    func testDebugModeReportsThenRaisesExactlyTheOriginalException() throws {
        for name in [
            "unrecognizedSelector.instance.integer", "unrecognizedSelector.performSelector.untyped", "nsNull.length",
        ] {
            let original = try XCTUnwrap(try run(name).raised, name)
            try withShield(Configuration(guards: messaging, mode: .debug)) { sink in
                let raised = try XCTUnwrap(try run(name).raised, "\(name) must fail in debug mode")
                XCTAssertEqual(raised.name, original.name, name)
                XCTAssertEqual(
                    MatrixRunner.normalizingAddresses(raised.reason),
                    MatrixRunner.normalizingAddresses(original.reason), name)
                XCTAssertEqual(sink.reports.first?.action, .failedLoudly, "the report is delivered before the failure")
                XCTAssertEqual(sink.reports.first?.reason, raised.reason, name)
            }
        }
    }

    func testClassesThatForwardThemselvesBehaveExactlyAsWithoutCrashShield() throws {
        let unguarded = validCallsText()
        // GNUstep itself cannot forward `length` through forwardingTargetForSelector: (it cannot tell the type):
        // that failure must stay exactly the same with CrashShield.
        XCTAssertEqual(unguarded, Self.validCalls)
        withShield { sink in
            XCTAssertEqual(validCallsText(), unguarded)
            XCTAssertEqual(sink.reports.count, 0, "valid messages must not report: \(sink.reports.map(\.method))")
        }
        XCTAssertEqual(validCallsText(), unguarded)
    }

    func testNSNullIsOwnedByTheNSNullGuardAlone() throws {
        try withShield(Configuration(guards: .all)) { sink in
            XCTAssertEqual(try run("nsNull.objectForKey").result, "nil")
            XCTAssertEqual(sink.reports.map(\.category), [.nsNull])
        }
        // The unrecognized-selector guard never handles NSNull: with the NSNull guard off, NSNull fails as usual.
        try withShield(Configuration(guards: .unrecognizedSelector)) { sink in
            XCTAssertEqual(try run("nsNull.length").raised?.name, "NSInvalidArgumentException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testClassesOutsideTheScopeAreUntouched() throws {
        let systemOnly = Configuration(guards: .unrecognizedSelector, isAppImage: { _ in false })
        try withShield(systemOnly) { sink in
            XCTAssertEqual(try run("unrecognizedSelector.instance.object").raised?.name, "NSInvalidArgumentException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
        var byPrefix = systemOnly
        byPrefix.protectedClassPrefixes = ["CSSMessaging"]
        try withShield(byPrefix) { sink in
            XCTAssertEqual(try run("unrecognizedSelector.instance.object").result, "nil")
            XCTAssertEqual(sink.reports.count, 1)
        }
        var noFoundation = Configuration(guards: .unrecognizedSelector)
        noFoundation.unrecognizedSelectorFoundationClasses = []
        try withShield(noFoundation) { sink in
            XCTAssertEqual(
                try run("unrecognizedSelector.foundation.numberAsString").raised?.name, "NSInvalidArgumentException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testUnknownFoundationClassNameIsAConfigurationError() {
        var configuration = Configuration(guards: .unrecognizedSelector)
        configuration.unrecognizedSelectorFoundationClasses = ["NSNoSuchClass"]
        XCTAssertThrowsError(try CrashShield.start(configuration))
        XCTAssertTrue(CrashShield.activeGuards.isEmpty)
    }

    func testDenyListedClassesBehaveAsWithoutCrashShield() throws {
        try withShield(Configuration(guards: messaging, excludedClassNames: ["CSSMessagingProfile", "NSNull"])) {
            sink in
            XCTAssertEqual(try run("unrecognizedSelector.instance.range").raised?.name, "NSInvalidArgumentException")
            XCTAssertEqual(try run("unrecognizedSelector.class.object").raised?.name, "NSInvalidArgumentException")
            XCTAssertEqual(try run("nsNull.integerValue").raised?.name, "NSInvalidArgumentException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testRepeatedAndConcurrentMessagesAreAllStoppedAndCounted() throws {
        withShield(Configuration(guards: messaging)) { sink in
            XCTAssertEqual(css_messaging_repeat(500), 0)
            let sums = Locked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                var sum = 0
                withAutoreleasePool { sum = css_messaging_repeat(250) }
                sums.withLock { $0.append(sum) }
            }
            XCTAssertEqual(sums.current, [0, 0, 0, 0])
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.selector), ["followerCount"], "one report for the call site")
            XCTAssertEqual(sink.reports.last?.occurrences, 1500)
        }
    }

    private func placeholderDelegateCall() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_messaging_placeholder_delegate()) }
        return text
    }

    private func plainObjectCalls() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_messaging_plain_object_calls()) }
        return MatrixRunner.normalizingAddresses(text)
    }

    /// A plain NSObject (the exact class: a placeholder delegate sent an optional protocol method) is protected by
    /// default, as the app's own classes are: release recovers (0) and reports, debug fails as the runtime does.
    /// Nothing else changes: respondsToSelector: and methodSignatureForSelector: answer as before, the same message
    /// sent by Foundation's own code raises as before, and so does a class method NSObject lacks.
    func testPlainNSObjectIsProtectedByDefault() throws {
        let unguarded = placeholderDelegateCall()
        XCTAssertTrue(unguarded.hasPrefix("raised("), unguarded)
        let around = plainObjectCalls()
        XCTAssertTrue(around.hasPrefix("responds=0 signature=nil fromFoundation=raised("), around)
        XCTAssertTrue(around.contains("classSide=raised("), around)
        for configuration in [
            Configuration(guards: messaging), Configuration(), Configuration(guards: .all),
            Configuration(guards: messaging, isAppImage: { _ in true }),
        ] {
            withShield(configuration) { sink in
                XCTAssertEqual(placeholderDelegateCall(), "0")
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.selector), ["numberOfRowsForPlaceholder:"])
                XCTAssertEqual(sink.reports.first?.className, "NSObject")
                XCTAssertEqual(sink.reports.first?.isClassMethod, false)
                XCTAssertEqual(plainObjectCalls(), around, "nothing else changes")
                CrashShield.flush()
                XCTAssertEqual(sink.reports.count, 1, "\(sink.reports.map(\.method))")
            }
        }
        try withShield(Configuration(guards: messaging, mode: .debug)) { sink in
            let raised = placeholderDelegateCall()
            XCTAssertEqual(MatrixRunner.normalizingAddresses(raised), MatrixRunner.normalizingAddresses(unguarded))
            XCTAssertEqual(sink.reports.first?.action, .failedLoudly)
            let report = try XCTUnwrap(sink.reports.first)
            XCTAssertEqual(
                "raised(\(MatrixRunner.normalizingAddresses(report.reason)))",
                MatrixRunner.normalizingAddresses(unguarded))
        }
        // Deny-listing NSObject would deny-list every class: start refuses it (Docs/Guards.md, Configuration checks)
        // and nothing is installed.
        XCTAssertThrowsError(try CrashShield.start(Configuration(guards: messaging, excludedClassNames: ["NSObject"])))
        XCTAssertFalse(CrashShield.isRunning)
        XCTAssertEqual(
            MatrixRunner.normalizingAddresses(placeholderDelegateCall()),
            MatrixRunner.normalizingAddresses(unguarded), "after stop")
    }

    /// Sends the same untyped message `count` times to each kind of receiver; checks every send got nil and one
    /// report per receiver kind carries the count. Untyped selectors are what Apple's runtime always has: GNUstep
    /// can then forward only with the guard's `methodSignatureForSelector:` answer.
    private func assertEveryUntypedRepetitionIsStopped(
        _ count: UInt, file: StaticString = #filePath, line: UInt = #line
    ) {
        withShield(Configuration(guards: messaging)) { sink in
            for receiver in ["instance", "class", "null"] {
                var nils: UInt = 0
                withAutoreleasePool { nils = css_messaging_repeat_untyped(receiver, count) }
                XCTAssertEqual(nils, count, "\(receiver): every send must be stopped", file: file, line: line)
            }
            CrashShield.flush()
            XCTAssertEqual(
                sink.reports.map { "\($0.isClassMethod ? "+" : "-")[\($0.className) \($0.selector)]" },
                ["-[CSSMessagingProfile count]", "+[CSSMessagingProfile length]", "-[NSNull length]"],
                file: file, line: line)
            for report in sink.reports {
                XCTAssertEqual(
                    CrashShield.reports.first { $0.signature == report.signature }?.occurrences, Int(count),
                    report.selector, file: file, line: line)
            }
        }
    }

    func testTheSameUntypedMessageIsStoppedEveryTime() {
        assertEveryUntypedRepetitionIsStopped(200)
    }

    /// objc4 sends +resolveInstanceMethod: once per class and selector and then caches the forwarding entry: on
    /// Apple, a repeated bad message never reaches the resolver. Emulated here, every repetition must still be
    /// stopped.
    func testEveryRepetitionIsStoppedWhenTheRuntimeResolvesOnlyOnce() {
        csr_test_emulateAppleForwarding(true)
        defer { csr_test_emulateAppleForwarding(false) }
        assertEveryUntypedRepetitionIsStopped(50)
    }

    /// NSObject's `methodSignatureForSelector:` (both sides) gets an answer-first trampoline (CSRCheckFirst.h): an
    /// answer passes through as it is, code asking about a selector nobody implements still gets nil, and only a
    /// message about to fail gets the signature that lets the guard stop it.
    func testMethodSignatureForSelectorPassesAnswersThroughItsTrampoline() throws {
        let selector = csr_sel_register("methodSignatureForSelector:")
        func isAnswerFirst(_ cls: UnsafeMutableRawPointer?) -> Bool {
            let imp = csr_class_methodImplementation(cls, selector)
            let start = UInt(bitPattern: imp.map { unsafeBitCast($0, to: UnsafeRawPointer.self) })
            return (Int32(CSRHotObjectMethodSignature)...Int32(CSRHotClassMethodSignature)).contains { tableIndex in
                (0..<32).contains {
                    UInt(
                        bitPattern: csr_answer_first_trampoline(tableIndex, $0).map {
                            unsafeBitCast($0, to: UnsafeRawPointer.self)
                        }) == start
                }
            }
        }
        func signatures() -> [String] {
            var texts: [String] = []
            withAutoreleasePool {
                let string = css_test_mutable_string("abc")
                let stringClass = css_test_string_class()
                for (object, name) in [
                    (string, "length"), (string, "replaceCharactersInRange:withString:"),
                    (string, "noSuchSelectorAnywhere:"), (stringClass, "stringWithString:"),
                    (stringClass, "noSuchClassSelectorAnywhere"),
                ] {
                    var buffer = [CChar](repeating: 0, count: 128)
                    css_test_signature_text(object, name, &buffer, UInt(buffer.count))
                    texts.append("\(name)=\(String(cString: buffer))")
                }
            }
            return texts
        }
        let root = try XCTUnwrap(ObjCClass(named: "NSObject"))
        let without = signatures()
        XCTAssertTrue(without.contains("noSuchSelectorAnywhere:=nil"), "\(without)")
        try withShield(Configuration(guards: messaging)) { sink in
            XCTAssertTrue(isAnswerFirst(root.pointer), "instance side")
            XCTAssertTrue(isAnswerFirst(root.metaclass.pointer), "class side")
            XCTAssertEqual(signatures(), without, "answers and nil answers as without CrashShield")
            XCTAssertEqual(
                try run("unrecognizedSelector.instance.double").result, "0.000", "a failing message is stopped")
            XCTAssertEqual(sink.reports.count, 1)
        }
        XCTAssertFalse(isAnswerFirst(root.pointer))
    }

    func testKillSwitchAndStopRestoreTheOriginalBehaviour() throws {
        let forwardingSelectors: Set<String> = [
            "forwardingTargetForSelector:", "methodSignatureForSelector:",
            "forwardInvocation:",
        ]
        try withShield(Configuration(guards: messaging)) { sink in
            XCTAssertTrue(HookEngine.shared.activeHooks.contains { forwardingSelectors.contains($0.selector.name) })
            XCTAssertNoThrow(try CrashShield.setGuard(.unrecognizedSelector, enabled: false))
            XCTAssertEqual(try run("unrecognizedSelector.instance.double").raised?.name, "NSInvalidArgumentException")
            XCTAssertEqual(try run("nsNull.length").result, "0", "the NSNull guard still runs")
            XCTAssertNoThrow(try CrashShield.setGuard(.unrecognizedSelector, enabled: true))
            XCTAssertEqual(try run("unrecognizedSelector.instance.double").result, "0.000")
            XCTAssertEqual(sink.reports.count, 2)
        }
        XCTAssertFalse(HookEngine.shared.activeHooks.contains { forwardingSelectors.contains($0.selector.name) })
        XCTAssertEqual(try run("unrecognizedSelector.instance.bool").raised?.name, "NSInvalidArgumentException")
        XCTAssertEqual(try run("nsNull.objectForKey").raised?.name, "NSInvalidArgumentException")
        XCTAssertEqual(validCallsText(), Self.validCalls)
    }
}

#if os(macOS) || os(Linux)  // a child process: Foundation's Process
/// The unrecognized-selector guard's lookup of an untyped selector's types (every selector on Apple's runtime is
/// untyped) runs on the thread that sent the bad message. It must not read every class in the process: on Apple
/// `objc_getClassList` realizes all of them under the runtime lock (objc-runtime-new.mm, `realizeAllClasses`).
/// Measured in a child process (`crashshield-bench --forwarding-lookup N`: N classes registered at run time first,
/// which would otherwise stay in this test process).
final class ForwardingLookupCostTests: XCTestCase {
    private func classesExamined(extraClasses: Int) throws -> (examined: Int, line: String) {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("crashshield-bench")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw XCTSkip("build the tools first (swift build --build-tests): no \(executable.path)")
        }
        let process = Process()
        let pipe = Pipe()
        process.executableURL = executable
        process.arguments = ["--forwarding-lookup", "\(extraClasses)"]
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = try XCTUnwrap(output.split(separator: "\n").first { $0.hasPrefix("forwarding lookup:") }, output)
        let examined = try XCTUnwrap(line.split(separator: " ").last.flatMap { Int($0) }, String(line))
        return (examined, String(line))
    }

    func testTheLookupDoesNotGrowWithTheClassesInTheProcess() throws {
        let alone = try classesExamined(extraClasses: 0)
        let crowded = try classesExamined(extraClasses: 1_500)
        print(alone.line)
        print(crowded.line)
        XCTAssertEqual(crowded.examined, alone.examined, "1,500 unrelated classes made the lookup read their methods")
        XCTAssertLessThan(alone.examined, 1_000)
    }
}
#endif
