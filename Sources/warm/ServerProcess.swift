import CatalogServer
import Foundation
import NIOPosix

/// The demo's catalog server as a child process (`warm serve`), so that the
/// process that measures decode peaks holds only the warm job: an in-process
/// server frees its response buffers while measurements run, and freed
/// memory inside a measurement span hides part of its peak (seen in the demo:
/// naive peaks below the bitmap they kept, for one image in five).
final class ServerProcess {
    let baseURL: URL
    private let process: Process

    private init(baseURL: URL, process: Process) {
        self.baseURL = baseURL
        self.process = process
    }

    /// Starts `warm serve` on 127.0.0.1:`port` and waits for the base URL it
    /// prints once it listens.
    static func start(products: Int, port: Int, imageMix: CatalogImageMix) async throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ServeCommand.childArguments(products: products, port: port, imageMix: imageMix)
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // A blocking read: on NIO's blocking-work pool, not Swift's cooperative pool.
        let line = (try? await NIOThreadPool.singleton.runIfActive { () -> String in
            var bytes = Data()
            while !bytes.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }  // the child exited
                bytes.append(chunk)
            }
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }) ?? ""
        guard let baseURL = URL(string: line), baseURL.scheme == "http" else {
            process.waitUntilExit()
            throw ValidationErrorText("the demo catalog server did not start (exit status \(process.terminationStatus)); is port \(port) free? (--port)")
        }
        return ServerProcess(baseURL: baseURL, process: process)
    }

    func stop() {
        guard process.isRunning else { return }
        process.interrupt()  // SIGINT: `warm serve` shuts down gracefully
        process.waitUntilExit()
    }
}

/// An error whose description is its text.
struct ValidationErrorText: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
