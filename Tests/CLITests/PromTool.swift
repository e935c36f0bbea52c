import Foundation
@testable import WarmSupport
import WarmTestSupport

/// Prometheus' `promtool` (Debian's `prometheus` package; scripts/bootstrap.sh installs it), for checking the shipped
/// alert rules and the expositions warm writes.
enum PromTool {
    struct Result {
        var status: Int32
        var output: String
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "promtool is not on PATH; scripts/bootstrap.sh installs it (Debian package prometheus)" }
    }

    static func run(_ arguments: [String], input: Data? = nil, in directory: URL? = nil) throws -> Result {
        guard let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .map({ "\($0)/promtool" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Missing()
        }
        let outcome = try ChildProcess.run(path, arguments: arguments, environment: ProcessInfo.processInfo.environment,
                                           input: input ?? Data(), workingDirectory: directory?.path)
        return Result(status: outcome.status.shellStatus, output: outcome.stdout + outcome.stderr)
    }

    /// `promtool test rules warm-rules.test.yaml` in each directory, two at a time (each run is about one core for
    /// 5 s); a promtool that cannot be started is a result with status -1 saying why.
    static func testRules(in directories: [URL]) -> [Result] {
        twoAtATime(directories.count) { index in
            do {
                return try run(["test", "rules", "warm-rules.test.yaml"], in: directories[index])
            } catch {
                return Result(status: -1, output: "\(error)")
            }
        }
    }
}
