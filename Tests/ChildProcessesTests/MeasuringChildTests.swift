@testable import WarmSupport
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

    func testFaultingInMappedFilesMapsEveryPageOfLibrariesListedPastTheFirstFourKiBOfMaps() throws {
        let ranges = ProcessMemory.mappedFileRanges()
        XCTAssertGreaterThan(ProcessMemory.faultIn(ranges), 100)
        let maps = try XCTUnwrap(ProcessMemory.procText("/proc/self/maps"))
        XCTAssertGreaterThan(maps.utf8.count, 4096, "the case that matters: a maps file longer than one read")
        // libc loads first, so it sits high and late in the list; its code must be resident whole.
        let smaps = try XCTUnwrap(ProcessMemory.procText("/proc/self/smaps")).split(separator: "\n")
        let header = try XCTUnwrap(smaps.firstIndex { $0.contains(" r-xp ") && $0.hasSuffix("/libc.so.6") })
        let fields = smaps[(header + 1)...].prefix { !$0.contains(" r-xp ") && !$0.contains(" r--p ") }
        func kilobytes(_ label: String) -> Int? {
            fields.first { $0.hasPrefix(label) }.flatMap { ProcessMemory.kilobytes(after: label, in: String($0)) }
        }
        let size = try XCTUnwrap(kilobytes("Size:"))
        XCTAssertEqual(kilobytes("Rss:"), size, String(smaps[header]))
    }
}
