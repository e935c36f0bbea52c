import AsyncHTTPClient
import Foundation
import NIOCore
import WarmTestSupport
import XCTest

/// `warm cache serve DIR --port 0` as a child process: started, its URL read
/// from the line it prints, stopped with SIGTERM when the test ends.
final class OriginProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns it, one call at a time.
    let process: Process
    let baseURL: String

    typealias Answer = OriginAnswer

    init(cache: String, _ test: XCTestCase, arguments: [String] = []) throws {
        process = Process()
        process.executableURL = WarmBinary.url
        process.arguments = ["cache", "serve", cache, "--port", "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        baseURL = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let process = self.process
        test.addTeardownBlock {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        guard baseURL.hasPrefix("http://127.0.0.1:") else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "warm cache serve did not start: \(baseURL)"])
        }
    }

    /// SIGTERM, then the exit status (nil when it did not exit within `seconds`).
    func terminate(within seconds: Double = 15) async throws -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    static func thumbnailQuery(url: String, size: Int, format: String? = nil) -> String {
        OriginRequests.thumbnailPath(url: url, size: size, format: format)
    }

    func get(_ pathAndQuery: String, headers: [(String, String)] = []) async throws -> Answer {
        try await OriginRequests.get(baseURL + pathAndQuery, headers: headers, timeout: .seconds(20))
    }
}

