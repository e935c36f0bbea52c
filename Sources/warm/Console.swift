import ArgumentParser
import Foundation

/// Writes to standard error (errors and progress), keeping stdout for results.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints `error: <problem>` and returns exit status 1 to throw.
    static func failure(_ problem: Any) -> ExitCode {
        error("error: \(problem)")
        return ExitStatus.failed
    }
}
