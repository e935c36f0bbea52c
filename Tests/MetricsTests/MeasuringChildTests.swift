import ChildProcesses
import Foundation
@testable import WarmMetrics
import WarmTestSupport
import XCTest

/// The measuring children's environment and start-up.
final class MeasuringChildTests: XCTestCase {
    func testMeasuringChildGetsTheAllocatorTunablesFromItsFirstAllocation() async throws {
        let outcome = try await ChildProcess.run(
            "/usr/bin/env", arguments: [], environment: MeasuringServer.environment())
        XCTAssertEqual(outcome.status, .exited(0))
        let lines = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n")
        let tunables = try XCTUnwrap(lines.first { $0.hasPrefix("GLIBC_TUNABLES=") })
        XCTAssertTrue(tunables.contains("glibc.malloc.arena_max=1"), String(tunables))
        XCTAssertTrue(tunables.contains("glibc.malloc.top_pad=0"), String(tunables))
        // The rest of the environment is inherited.
        XCTAssertTrue(lines.contains { $0.hasPrefix("PATH=") })
    }

    func testFaultingInMappedFilesTouchesTheLoadedBinaryAndLibraries() {
        XCTAssertGreaterThan(ProcessMemory.faultInMappedFiles(), 100)
    }
}
