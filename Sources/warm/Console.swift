import ArgumentParser
import Cache
import Foundation
import Pipeline

/// Writes to standard error (errors and progress), keeping stdout for results.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Prints `error: <problem>` and returns the exit status to throw: 75 when another run holds a lock, else 1.
    static func failure(_ problem: Any) -> ExitCode {
        error("error: \(problem)")
        switch problem {
        case CacheError.locked, WarmRunError.locked: return ExitStatus.locked
        default: return ExitStatus.failed
        }
    }
}
