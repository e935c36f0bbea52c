import Foundation
@testable import WarmMetrics
import XCTest

final class ChildProcessTests: XCTestCase {
    func testMeasuringChildGetsTheAllocatorTunablesFromItsFirstAllocation() throws {
        let outcome = try ChildProcess.run("/usr/bin/env", arguments: [], environment: IsolatedStrategyRun.childEnvironment())
        XCTAssertEqual(outcome.exitStatus, 0)
        let lines = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n")
        let tunables = try XCTUnwrap(lines.first { $0.hasPrefix("GLIBC_TUNABLES=") })
        XCTAssertTrue(tunables.contains("glibc.malloc.arena_max=1"), String(tunables))
        XCTAssertTrue(tunables.contains("glibc.malloc.top_pad=0"), String(tunables))
        // The rest of the environment is inherited.
        XCTAssertTrue(lines.contains { $0.hasPrefix("PATH=") })
    }

    func testExitStatusAndSignalAreReported() throws {
        XCTAssertEqual(try ChildProcess.run("/bin/sh", arguments: ["-c", "exit 3"]).exitStatus, 3)
        let killed = try ChildProcess.run("/bin/sh", arguments: ["-c", "kill -9 $$"])
        XCTAssertNil(killed.exitStatus)
        XCTAssertEqual(killed.signal, 9)
        XCTAssertThrowsError(try ChildProcess.run("/nonexistent/program", arguments: []))
    }

    func testFaultingInMappedFilesTouchesTheLoadedBinaryAndLibraries() {
        XCTAssertGreaterThan(ProcessMemory.faultInMappedFiles(), 100)
    }
}
