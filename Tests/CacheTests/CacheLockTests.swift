import Foundation
import XCTest
@testable import Cache

/// The cache's lock within this process; how other processes see it is ChildProcessesTests' CacheLockProcessTests.
final class CacheLockTests: CacheTestCase {
    func testLockCreatesTheCacheDirectoryWhenMissing() throws {
        let fresh = root + "/nested/new-cache"
        let lock = try CacheLock.acquire(root: fresh)
        XCTAssertTrue(fileExists(fresh + "/.lock"))
        let pidText = try String(contentsOfFile: fresh + "/.lock", encoding: .utf8)
        XCTAssertEqual(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)), getpid())
        lock.release()
    }
}
