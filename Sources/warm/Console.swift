import Foundation

/// Writes to standard error (errors and progress), keeping stdout for results.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
