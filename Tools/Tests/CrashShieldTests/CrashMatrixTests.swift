import CrashShieldMatrix
import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// The crash matrix in CI: every catalog scenario crashes unprotected and survives protected with exactly its report.
final class CrashMatrixTests: XCTestCase {
    func testEveryScenarioCrashesUnprotectedAndSurvivesProtected() throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let executable = folder.appendingPathComponent("crashshield-matrix")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            return XCTFail("build the matrix first (swift build --build-tests): no \(executable.path)")
        }
        let scenarios = Scenario.all
        XCTAssertGreaterThanOrEqual(scenarios.count, 20)
        let rows = MatrixRunner(executable: executable, jobs: 4).run(scenarios)
        print(MatrixTable.render(rows))
        XCTAssertEqual(rows.count, scenarios.count)
        for row in rows where !row.passed {
            XCTFail("\(row.scenario.name): \(row.problems.joined(separator: "; "))")
        }
    }

    func testTheJudgeRejectsARowThatDoesNotCrashOrReportsWrongly() throws {
        let scenario = try XCTUnwrap(Scenario.all.first)
        let survived = ChildOutcome(ending: .exited(0), stdout: "RESULT nil\n", stderr: "")
        let problems = MatrixRunner.judge(scenario, unprotected: survived, protected: survived)
        XCTAssertTrue(problems.contains { $0.hasPrefix("unprotected: did not crash") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("0 reports, expected 1") }, "\(problems)")
    }
}
#endif
