import WarmSupport
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
        let watchdog = Self.killAfter(seconds: 5, child)
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
        let second = try ChildProcess.spawn("/bin/sleep", arguments: ["5"], environment: [:])
        let watchdog = Self.killAfter(seconds: 5, first)
        defer {
            watchdog.cancel()
            second.kill()
            _ = second.waitForExit()
        }
        let clock = ContinuousClock()
        let started = clock.now
        close(try XCTUnwrap(first.standardInput))
        XCTAssertEqual(FileDescriptorIO.readAll(try XCTUnwrap(first.standardOutput)), Data())
        XCTAssertLessThan(clock.now - started, .seconds(3), "cat saw the end of its input only when sleep exited")
        close(try XCTUnwrap(first.standardOutput))
        XCTAssertEqual(first.waitForExit(), .exited(0))
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

    /// Swift's cooperative pool has one thread per core: children waited for on
    /// it would stall every other task until they exit.
    func testWaitingForChildrenDoesNotBlockOtherTasks() async throws {
        let sleepers = ProcessInfo.processInfo.activeProcessorCount + 1
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<sleepers {
                group.addTask {
                    let outcome = try await ChildProcess.run("/bin/sleep", arguments: ["2"], environment: [:])
                    XCTAssertEqual(outcome.status, .exited(0))
                }
            }
            // Let the sleepers start waiting, then see whether other work still runs.
            try await Task.sleep(for: .milliseconds(300))
            let other = Task.detached { clock.now }
            let otherRan = await other.value
            XCTAssertLessThan(otherRan - started, .seconds(1.5), "a task waited behind the children")
            try await group.waitForAll()
        }
    }
}
