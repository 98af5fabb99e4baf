@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// Every stack walk CrashShield makes stops at a frame it cannot trust instead of reading where it points: a report
/// may lose the frames past a broken one, the app never crashes for it (issue 20: an optimized build's broken tail
/// call left the doubles 1.0 and 2.0 where a frame pointer and a return address belong, and glibc's backtrace()
/// died in libgcc's unwinder reading code at 0x4000000000000000).
final class StackWalkTests: XCTestCase {
    private static let brokenBits: Set<UInt> = [UInt((1.0 as Double).bitPattern), UInt((2.0 as Double).bitPattern)]

    private func walkFromBrokenFrame(
        _ walk: @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32
    )
        -> [UInt]
    {
        var frames = [UnsafeMutableRawPointer?](repeating: nil, count: 64)
        let count = frames.withUnsafeMutableBufferPointer { css_test_walk_from_broken_frame(walk, $0.baseAddress, 64) }
        return frames.prefix(Int(count)).map { UInt(bitPattern: $0) }
    }

    /// The walk reports and symbolicates use (call sites, report stacks, zombie stacks, the hot reads' outer-call
    /// search): libunwind with every read validated on Linux, libSystem's frame-pointer walk on Apple.
    func testTheFullWalkStopsAtABrokenFrame() {
        let frames = walkFromBrokenFrame(csr_backtrace)
        XCTAssertGreaterThanOrEqual(frames.count, 2, "the walker's own frame and the broken function's")
        XCTAssertLessThanOrEqual(
            frames.count, 3, "nothing past the broken return address: \(frames.map { String($0, radix: 16) })")
        XCTAssertTrue(frames.dropLast().allSatisfy { !Self.brokenBits.contains($0) })
    }

    /// The cheap walk the decision makes first (frame-pointer records inside this thread's stack only).
    func testTheFramePointerWalkStopsAtABrokenFrame() {
        let frames = walkFromBrokenFrame(csr_frame_backtrace)
        XCTAssertLessThanOrEqual(frames.count, 2, "\(frames.map { String($0, radix: 16) })")
    }

    /// A whole call-site search from under the broken frame: the decision's walks both meet it.
    func testLocatingACallSiteUnderABrokenFrameDoesNotCrash() {
        let frames = walkFromBrokenFrame { _, _ in
            let location = CallStack.locate(
                callerOf: nil, callSite: .directCaller, maxDepth: 64, isAppImage: { _ in true })
            return Int32(location.addresses.count)
        }
        XCTAssertTrue((1...8).contains(frames.count), "the stack kept ends at the broken frame: \(frames.count) frames")
    }
}
