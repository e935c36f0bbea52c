import WarmSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// What a child that ran to its end left: how it ended and what it printed.
    public struct Outcome: Sendable {
        public var status: ExitStatus
        public var standardOutput: Data
    }

    /// Tests' shorthand: runs `path` with exactly `environment`, reads its standard output to the end and
    /// waits for it, on NIO's shared thread pool (`BlockingWork`).
    public static func run(_ path: String, arguments: [String],
                           environment: [String: String]) async throws(SpawnError) -> Outcome {
        let child = try ChildProcess.spawn(path, arguments: arguments, environment: environment, standardOutput: .pipe)
        return await BlockingWork.run {
            var output = Data()
            if let fd = child.standardOutput {
                output = FileDescriptorIO.readAll(fd)
                close(fd)
            }
            return Outcome(status: child.waitForExit(), standardOutput: output)
        }
    }
}
