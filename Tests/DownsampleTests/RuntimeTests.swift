import CWarmVips
@testable import Downsample
import XCTest

final class RuntimeTests: XCTestCase {
    /// Debian 12's ORC 0.4.33 crashed a run once (bench/findings.md): warm runs libvips without it.
    func testLibvipsRunsWithoutORCVectorCode() throws {
        try VipsRuntime.ensureStarted()
        XCTAssertEqual(vips_vector_isenabled(), 0)
    }
}
