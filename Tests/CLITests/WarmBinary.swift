import Foundation
@testable import WarmSupport
import WarmTestSupport

/// Runs the `warm` executable that `swift build` put beside the test bundle.
struct WarmBinary {
    struct Result {
        /// Exit status, or 128 + the signal that ended it.
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var url: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On Linux the test binary is <bin>/warmPackageTests.xctest; on macOS it is inside a bundle.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("warm").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("warm")
    }

    /// A catalog (the demo's, or a test's) draws each image on its first request; on a 2-core machine loaded far past its cores (load
    /// 17 seen) one image took more than the default 30 s deadline, so the sample runs allow ten minutes per image:
    /// a bound on a hang, not a claim about speed. The same for a decode: a full-size decode planted in a debug build,
    /// beside two busy processes on a machine at load 20, can outlast the default 60 s a worker gets per image.
    static let patient = ["--request-timeout", "300", "--fetch-deadline", "600", "--decode-timeout", "600"]

    /// This process's environment with `overrides` (a nil value removes the variable).
    static func environment(_ overrides: [String: String?] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in overrides { environment[name] = value }
        return environment
    }

    /// Runs `warm` to its end, blocking the calling thread (as the tests that call it always did).
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let outcome = try ChildProcess.run(url.path, arguments: arguments, environment: Self.environment(environment))
        return Result(status: outcome.status.shellStatus, stdout: outcome.stdout, stderr: outcome.stderr)
    }

    /// Starts `warm` without waiting for it; whoever calls it reaps the child (`waitForExit`).
    static func spawn(_ arguments: [String], environment: [String: String?] = [:],
                      standardOutput: ChildProcess.Stream = .file("/dev/null"),
                      standardError: ChildProcess.Stream = .file("/dev/null"),
                      workingDirectory: String? = nil) throws -> ChildProcess {
        try ChildProcess.spawn(url.path, arguments: arguments, environment: Self.environment(environment),
                               standardOutput: standardOutput, standardError: standardError,
                               workingDirectory: workingDirectory)
    }
}
