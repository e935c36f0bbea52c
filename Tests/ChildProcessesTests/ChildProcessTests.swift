@testable import WarmSupport
import Foundation
import WarmTestSupport
import XCTest

final class ChildProcessTests: XCTestCase {
    func testExitStatusAndSignalAreReported() async throws {
        let environment = ProcessInfo.processInfo.environment
        let exited = try await ChildProcess.run("/bin/sh", arguments: ["-c", "exit 3"], environment: environment)
        XCTAssertEqual(exited.status, .exited(3))
        XCTAssertEqual(exited.status.description, "exited with status 3")
        let killed = try await ChildProcess.run("/bin/sh", arguments: ["-c", "kill -9 $$"], environment: environment)
        XCTAssertEqual(killed.status, .signalled(9))
        XCTAssertEqual(killed.status.description, "was killed by signal 9")
    }

    func testAMissingExecutableIsAnErrorNamingIt() async {
        do {
            _ = try await ChildProcess.run("/nonexistent/program", arguments: [], environment: [:])
            XCTFail("a missing executable started")
        } catch {
            XCTAssertEqual(error, .cannotStart(path: "/nonexistent/program", errno: ENOENT))
            XCTAssertTrue(error.description.contains("/nonexistent/program"), error.description)
            XCTAssertTrue(error.description.contains("No such file"), error.description)
        }
    }

    func testTheChildGetsExactlyTheEnvironmentHandedIn() async throws {
        let outcome = try await ChildProcess.run("/usr/bin/env", arguments: [], environment: ["ONLY_THIS": "1"])
        XCTAssertEqual(String(decoding: outcome.standardOutput, as: UTF8.self), "ONLY_THIS=1\n")
    }

    func testPipesCarryStandardInputAndOutputBothWays() throws {
        let child = try ChildProcess.spawn("/bin/cat", arguments: [], environment: [:],
                                           standardInput: .pipe, standardOutput: .pipe)
        let watchdog = Self.killAfter(seconds: 30, child)  // a hang bound: cat answers within milliseconds
        defer { watchdog.cancel() }
        let input = try XCTUnwrap(child.standardInput), output = try XCTUnwrap(child.standardOutput)
        XCTAssertTrue(FileDescriptorIO.writeAll(input, Data("round trip\n".utf8)))
        close(input)  // cat sees the end of its input and exits
        XCTAssertEqual(String(decoding: FileDescriptorIO.readAll(output), as: UTF8.self), "round trip\n")
        close(output)
        XCTAssertEqual(child.waitForExit(), .exited(0))
    }

    func testParentEndsAreNotInheritedByLaterChildren() throws {
        // A child whose pipe end leaked into a second child would never see the
        // end of its input: here, cat exits only if no one else holds the write end.
        let first = try ChildProcess.spawn("/bin/cat", arguments: [], environment: [:],
                                           standardInput: .pipe, standardOutput: .pipe)
        let second = try ChildProcess.spawn("/bin/sleep", arguments: ["120"], environment: [:])
        // A leaked end keeps cat waiting until sleep exits, long after the watchdog (a hang bound: cat exits within
        // milliseconds once its input ends) has killed it.
        let watchdog = Self.killAfter(seconds: 30, first)
        defer {
            watchdog.cancel()
            second.kill()
            _ = second.waitForExit()
        }
        close(try XCTUnwrap(first.standardInput))
        XCTAssertEqual(FileDescriptorIO.readAll(try XCTUnwrap(first.standardOutput)), Data())
        close(try XCTUnwrap(first.standardOutput))
        XCTAssertEqual(first.waitForExit(), .exited(0), "cat saw the end of its input only when it was killed")
    }

    /// Kills `child` after `seconds` unless cancelled, so that a leaked pipe end
    /// fails a test (the child is killed, the assertions see it) instead of hanging it.
    static func killAfter(seconds: Int, _ child: ChildProcess) -> Task<Void, Never> {
        Task.detached {
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            child.kill()
        }
    }

    func testKillEndsAChildWithTheSignal() throws {
        let child = try ChildProcess.spawn("/bin/sleep", arguments: ["30"], environment: [:])
        child.kill(SIGTERM)
        XCTAssertEqual(child.waitForExit(), .signalled(SIGTERM))
    }

    /// Swift's cooperative pool has one thread per core: children waited for on it would stall every other task
    /// until they exit. Here the children exit only once another task has run (it creates the file they wait for);
    /// one that gives up waiting (after 60 s, a hang bound) exits 1.
    func testWaitingForChildrenDoesNotBlockOtherTasks() async throws {
        let flag = try makeTemporaryDirectory().appendingPathComponent("other-task-ran").path
        let waitForFlag = #"i=0; while [ ! -e "$0" ]; do i=$((i+1)); [ $i -gt 1200 ] && exit 1; sleep 0.05; done"#
        let children = ProcessInfo.processInfo.activeProcessorCount + 1
        let environment = ProcessInfo.processInfo.environment
        try await withThrowingTaskGroup(of: ExitStatus.self) { group in
            for _ in 0..<children {
                group.addTask {
                    try await ChildProcess.run("/bin/sh", arguments: ["-c", waitForFlag, flag], environment: environment).status
                }
            }
            // Let the children start being waited for, then see whether other work still runs.
            try await Task.sleep(for: .milliseconds(300))
            await Task.detached { _ = FileManager.default.createFile(atPath: flag, contents: nil) }.value
            var statuses: [ExitStatus] = []
            for try await status in group { statuses.append(status) }
            XCTAssertEqual(statuses, Array(repeating: .exited(0), count: children), "a child waited in vain for the other task")
        }
    }

    func testStandardErrorIsCapturedApartFromStandardOutputAndAFullPipeDoesNotStallTheChild() throws {
        // 300,000 bytes on standard error first: more than a pipe holds, so the child waits unless both are read.
        let outcome = try ChildProcess.run("/bin/sh", arguments: ["-c", "head -c 300000 /dev/zero >&2; echo out; echo err >&2; exit 2"],
                                           environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(outcome.status, .exited(2))
        XCTAssertEqual(outcome.stdout, "out\n")
        XCTAssertEqual(outcome.standardError.count, 300_004)
        XCTAssertEqual(outcome.standardError.suffix(4), Data("err\n".utf8))
    }

    func testStandardInputFromBytesReachesTheChildWhileItsOutputIsRead() throws {
        let input = Data((0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let outcome = try ChildProcess.run("/bin/cat", arguments: [], environment: [:], input: input)
        XCTAssertEqual(outcome.status, .exited(0))
        XCTAssertEqual(outcome.standardOutput, input, "cat echoes more than a pipe holds, both ways at once")
        let none = try ChildProcess.run("/bin/cat", arguments: [], environment: [:])
        XCTAssertEqual(none.standardOutput, Data(), "without input, standard input is empty (/dev/null)")
    }

    func testTheChildStartsInTheWorkingDirectoryHandedIn() throws {
        let directory = try makeTemporaryDirectory().resolvingSymlinksInPath().path
        let outcome = try ChildProcess.run("/bin/pwd", arguments: ["-P"], environment: [:], workingDirectory: directory)
        XCTAssertEqual(outcome.stdout, directory + "\n")
        XCTAssertNotEqual(FileManager.default.currentDirectoryPath, directory, "this process's directory is not the child's")
    }

    func testStandardOutputAndErrorAppendToOneFile() throws {
        let log = try makeTemporaryDirectory().appendingPathComponent("log").path
        try "before\n".write(toFile: log, atomically: false, encoding: .utf8)
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "echo out; echo err >&2; echo out2"], environment: [:],
                                           standardOutput: .file(log), standardError: .file(log))
        XCTAssertEqual(child.waitForExit(), .exited(0))
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "before\nout\nerr\nout2\n")
    }

    /// A child starts as from a shell, whichever thread spawns it: Swift's pool threads block signals (a server
    /// started from one would ignore SIGTERM) and a process that ignores SIGPIPE would pass that on.
    func testTheChildStartsWithNoSignalBlockedOrIgnored() throws {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let oldPipeAction = signal(SIGPIPE, SIG_IGN)
        defer {
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            signal(SIGPIPE, oldPipeAction)
        }
        /// The blocked and ignored sets of signals 1 to 31 (glibc keeps 32 and 33 to itself; `sigfillset` leaves them out).
        func masks(_ status: String) -> [String: UInt64] {
            Dictionary(status.split(separator: "\n").compactMap { line -> (String, UInt64)? in
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, ["SigBlk", "SigIgn"].contains(parts[0]), let bits = UInt64(parts[1], radix: 16) else { return nil }
                return (parts[0], bits & 0x7fff_ffff)
            }) { $1 }
        }
        let parent = masks(try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8))
        XCTAssertEqual(parent["SigBlk"].map { $0 & (1 << (SIGTERM - 1)) != 0 }, true, "the test blocks SIGTERM in its own thread")
        XCTAssertEqual(parent["SigIgn"].map { $0 & (1 << (SIGPIPE - 1)) != 0 }, true, "the test ignores SIGPIPE")
        let child = masks(try ChildProcess.run("/bin/cat", arguments: ["/proc/self/status"], environment: [:]).stdout)
        XCTAssertEqual(child, ["SigBlk": 0, "SigIgn": 0])
    }
}
