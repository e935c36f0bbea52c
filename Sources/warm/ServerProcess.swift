import DemoCatalog
import WarmSupport
import Foundation

/// The demo's catalog server as a child process (`warm serve`), so that the warm job's process is not
/// also serving the catalog while it measures.
struct ServerProcess {
    let baseURL: URL
    let child: ChildProcess

    /// Starts `warm serve` on 127.0.0.1:`port` and waits for the base URL it
    /// prints once it listens.
    /// The server logs in `logFormat` (the demo's `--log-format`) when given.
    static func start(products: Int, port: Int, imageMix: CatalogImageMix, logFormat: LogFormat?) async throws -> ServerProcess {
        let format = logFormat.map { [LogSettings.formatVariable: $0.rawValue] } ?? [:]
        let child = try ChildProcess.spawn(
            ChildProcess.currentExecutablePath(),
            arguments: ServeCommand.childArguments(products: products, port: port, imageMix: imageMix),
            environment: ProcessInfo.processInfo.environment.merging(format) { $1 }, standardOutput: .pipe)
        guard let output = child.standardOutput else { preconditionFailure("spawned with a pipe for standard output") }
        let line = await BlockingWork.run { () -> String in
            var bytes: [UInt8] = []
            while !bytes.contains(UInt8(ascii: "\n")), let chunk = FileDescriptorIO.readChunk(output) {
                bytes += chunk
            }
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let baseURL = URL(string: line), baseURL.scheme == "http" else {
            close(output)
            let status = await child.exitStatus()
            throw Console.failure("the demo catalog server did not start (\(status)); is port \(port) free? (--port)")
        }
        return ServerProcess(baseURL: baseURL, child: child)
    }

    /// SIGINT (`warm serve` shuts down gracefully), then waits for it off the cooperative pool.
    func stop() async {
        child.kill(SIGINT)
        if let output = child.standardOutput { close(output) }
        _ = await child.exitStatus()
    }
}

