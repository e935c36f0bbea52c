import Foundation

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: text)
    }
}
