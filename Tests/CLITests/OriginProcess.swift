import AsyncHTTPClient
import Foundation
import NIOCore
import XCTest

/// `warm cache serve DIR --port 0` as a child process: started, its URL read
/// from the line it prints, stopped with SIGTERM when the test ends.
final class OriginProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns it, one call at a time.
    let process: Process
    let baseURL: String

    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    init(cache: String, _ test: XCTestCase) throws {
        process = Process()
        process.executableURL = WarmBinary.url
        process.arguments = ["cache", "serve", cache, "--port", "0"]
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
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "/v1/thumbnail?url=\(url.addingPercentEncoding(withAllowedCharacters: allowed)!)&size=\(size)"
            + (format.map { "&format=\($0)" } ?? "")
    }

    func get(_ pathAndQuery: String, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + pathAndQuery)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 1 << 24)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
    }
}

/// The quoted first 32 hex digits of the SHA-256 of `data`, by coreutils (not the server's code).
func sha256ETag(of data: Data) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(data)
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return "\"" + text.prefix(32) + "\""
}
