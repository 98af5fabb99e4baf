@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// NSFileHandle's legacy methods (`FileHandleHooks`): real system-call failures (a write to /dev/full, a seek on a
/// pipe, a read from a write-only or closed handle) stopped with Foundation's own NSFileHandleOperationException and
/// reason, one report naming the app's call; valid reads, writes, seeks and truncations of a real file unchanged.
final class FileHandleTests: ShieldTestCase {
    /// Every probe of a real file and every failing one, guards off and on (`assertProbesBehaveAsFoundation`).
    func testFileHandleCallsBehaveAsFoundation() throws {
        let calls: [(probe: String, selector: String)] = [
            ("file.seekToFileOffset:", "seekToFileOffset:"), ("file.writeData:atOffset", "writeData:"),
            ("file.seekToEndOfFile+writeData:", "writeData:"), ("file.truncateFileAtOffset:", "truncateFileAtOffset:"),
            ("file.readDataOfLength:", "readDataOfLength:"),
            ("file.readDataToEndOfFile+availableData", "readDataToEndOfFile"),
            ("file.pipe.seekToFileOffset:", "seekToFileOffset:"),
            ("file.pipe.truncateFileAtOffset:", "truncateFileAtOffset:"),
            ("file.closed.readDataOfLength:", "readDataOfLength:"),
            ("file.writeOnly.readDataOfLength:", "readDataOfLength:"),
            ("file.devFull.writeData:", "writeData:"),
        ]
        var compared = 0
        var raising = 0
        for (name, selector) in calls {
            let probes = Probe.all(name).filter { $0.name == name }
            #if canImport(Darwin)
            if name.contains("devFull") { continue }
            #endif
            XCTAssertEqual(probes.count, 1, name)
            compared += try assertProbesBehaveAsFoundation(probes, selector: selector)
            for probe in probes {
                raising +=
                    probe.indexes.filter { probe.run($0)?.raised?.hasPrefix("NSFileHandleOperation") ?? false }
                    .count
            }
        }
        XCTAssertGreaterThan(compared, 80)
        #if !canImport(Darwin)
        // The pipe, closed, write-only and /dev/full probes raise at every index but /dev/full's empty write.
        XCTAssertGreaterThan(raising, 35)
        #endif
    }

    /// Each scenario stopped with GNUstep's exception and reason, the safe value, one report naming the app's call
    /// (`truncateFileAtOffset:`, not the `seekToFileOffset:` GNUstep's implementation sends and that raises).
    func testScenariosReportTheAppsCallWithFoundationsReason() throws {
        #if !canImport(Darwin)
        let scenarios = CatalogScenario.all(category: "container").filter { $0.name.hasPrefix("fileHandle.") }
        XCTAssertEqual(scenarios.count, 10)
        for scenario in scenarios {
            var unguarded: (name: String, reason: String)?
            withAutoreleasePool { unguarded = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(unguarded?.name, "NSFileHandleOperationException", scenario.name)
            withShield(Configuration(guards: .container)) { sink in
                XCTAssertEqual(scenario.perform(), scenario.expectedResult, scenario.name)
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.selector), [scenario.selector], scenario.name)
                if !scenario.name.hasSuffix(".pipe") {  // GNUstep words a pipe's seek failure from a stale errno
                    XCTAssertEqual(sink.reports.first?.reason, unguarded?.reason, scenario.name)
                }
                XCTAssertEqual(sink.reports.first?.action, .recovered, scenario.name)
                XCTAssertTrue(sink.reports.first?.hint.contains("iOS 13") ?? false, "\(scenario.name): the replacement")
            }
        }
        let noSpace = try XCTUnwrap(CatalogScenario.named("fileHandle.writeData.noSpace"))
        var raised: (name: String, reason: String)?
        withAutoreleasePool { raised = catchingObjCException { _ = noSpace.run() } }
        XCTAssertTrue(raised?.reason.contains("No space left on device") ?? false, "\(String(describing: raised))")
        #endif
    }

    /// Only NSFileHandleOperationException is stopped: another exception the original raises (a string handed to
    /// `writeData:`, which sends it `-bytes`) goes on unchanged, with no report; an excluded class gets Foundation's own.
    func testOtherExceptionsAndExcludedClassesGoOn() throws {
        #if !canImport(Darwin)
        let writeString: () -> Void = { css_file_handle_write_string() }
        let unguarded = catchingObjCException(writeString)
        XCTAssertEqual(unguarded?.name, "NSInvalidArgumentException")
        withShield(Configuration(guards: .container)) { sink in
            let raised = catchingObjCException(writeString)
            XCTAssertEqual(raised?.name, unguarded?.name)
            XCTAssertEqual(raised?.reason, unguarded?.reason)
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
        let noSpace = try XCTUnwrap(CatalogScenario.named("fileHandle.writeData.noSpace"))
        let className = String(cString: css_file_handle_class_name())
        withShield(Configuration(guards: .container, excludedClassNames: [className])) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = noSpace.run() } }
            XCTAssertEqual(raised?.name, "NSFileHandleOperationException")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
        #endif
    }
}
