import Foundation
import XCTest
@testable import Cache
@testable import WarmSupport
import WarmTestSupport

/// The cache's lock as other processes see it (`flock`, a holder killed with SIGKILL); the in-process part is
/// CacheTests' CacheLockTests.
final class CacheLockProcessTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = try makeTemporaryDirectory().path
    }

    /// Runs `/usr/bin/flock -n <lock> true`: exit 0 when it could take the lock, 1 when held.
    private func otherProcessCanLock() throws -> Bool {
        try ChildProcess.spawn("/usr/bin/flock", arguments: ["-n", root + "/.lock", "true"],
                               environment: ProcessInfo.processInfo.environment).waitForExit() == .exited(0)
    }

    func testSecondLockOnTheSameDirectoryFailsAtOnce() throws {
        let lock = try CacheLock.acquire(root: root)
        XCTAssertEqual(lock.path, root + "/.lock")
        // This thread holds the lock for as long as the test runs: an acquire that waited would never come back.
        XCTAssertThrowsError(try CacheLock.acquire(root: root)) { error in
            XCTAssertEqual(error as? CacheError, .locked(path: root + "/.lock", holderPID: getpid()), "the message names the holder")
        }
        XCTAssertFalse(try otherProcessCanLock(), "another process cannot take it either")

        lock.release()
        XCTAssertEqual(try String(contentsOfFile: root + "/.lock", encoding: .utf8), "", "the PID is erased on release")
        XCTAssertTrue(try otherProcessCanLock())
        let again = try CacheLock.acquire(root: root)
        again.release()
    }

    func testLockIsReleasedWhenTheHolderGoesAway() throws {
        do {
            _ = try CacheLock.acquire(root: root)
            // The lock value is dropped here without release().
        }
        XCTAssertTrue(try otherProcessCanLock())

        // A holder process killed with SIGKILL cannot clean up; the kernel releases
        // its lock. The shell opens the lock file, takes the lock on that
        // descriptor and execs sleep, so one process (one PID) holds it.
        let holder = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "exec 9>>\"$0\" && /usr/bin/flock -n 9 && exec sleep 60", root + "/.lock"],
                                            environment: ProcessInfo.processInfo.environment)
        var reaped = false
        defer {
            if !reaped {
                holder.kill(SIGKILL)
                _ = holder.waitForExit()
            }
        }
        // Only a bound on a hang: the shell takes the lock within milliseconds.
        let deadline = Date().addingTimeInterval(10)
        var sawItLocked = false
        while Date() < deadline {
            do {
                let probe = try CacheLock.acquire(root: root)
                probe.release()
                Thread.sleep(forTimeInterval: 0.02)
            } catch CacheError.locked(_, let holderPID) {
                XCTAssertNil(holderPID, "the shell wrote no PID, and ours was erased on release")
                sawItLocked = true
                break
            }
        }
        XCTAssertTrue(sawItLocked, "the other process should have taken the lock")
        holder.kill(SIGKILL)
        XCTAssertEqual(holder.waitForExit(), .signalled(SIGKILL))
        reaped = true
        let lock = try CacheLock.acquire(root: root)
        lock.release()
    }
}
