import Foundation
@testable import WarmMetrics
import XCTest

final class ProcessMemoryTests: XCTestCase {
    func testPeakResidentBytesIsAtLeastWhatIsResidentAfterAnAllocation() throws {
        let before = try XCTUnwrap(ProcessMemory.resident()).rssBytes
        XCTAssertGreaterThan(before, 1 << 20, "a Swift test process holds more than 1 MiB")
        // 64 MiB written page by page: resident now, so the peak is at least that much above.
        let bytes = 64 << 20
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 4096)
        defer { block.deallocate() }
        var offset = 0
        while offset < bytes {
            block[offset] = 1
            offset += 4096
        }
        XCTAssertGreaterThanOrEqual(ProcessMemory.peakResidentBytes(), before + bytes / 2)
    }
}
