import AsyncHTTPClient
import Foundation
import NIOCore
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm cache serve DIR --port 0` as a child process: started, its URL read
/// from the line it prints, stopped with SIGTERM when the test ends.
final class OriginProcess: @unchecked Sendable {
    // @unchecked: `child` and `exited` are only touched by the test that owns it, one call at a time.
    let child: ChildProcess
    let baseURL: String
    /// Set once the child is reaped (it is reaped exactly once).
    private var exited: ExitStatus?

    typealias Answer = OriginAnswer

    init(cache: String, _ test: XCTestCase, arguments: [String] = []) throws {
        child = try WarmBinary.spawn(["cache", "serve", cache, "--port", "0"] + arguments, standardOutput: .pipe)
        // Kept open until the end: the origin must not meet a closed standard output.
        let output = child.standardOutput!
        var line: [UInt8] = []
        while !line.contains(UInt8(ascii: "\n")), let chunk = FileDescriptorIO.readChunk(output) { line += chunk }
        baseURL = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        test.addTeardownBlock { [self] in
            if exited == nil {
                child.kill(SIGKILL)
                exited = await child.waitForExit()
            }
            close(output)
        }
        guard baseURL.hasPrefix("http://127.0.0.1:") else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "warm cache serve did not start: \(baseURL)"])
        }
    }

    /// SIGTERM, then the exit status (nil when it did not exit within `seconds`: only a bound on a hang, as a clean
    /// stop took 0.02-0.04 s on the 2-core machine at a load average of 16).
    func terminate(within seconds: Double = 30) async throws -> Int32? {
        child.kill(SIGTERM)
        let deadline = Date().addingTimeInterval(seconds)
        while exited == nil {
            exited = child.exitStatusIfExited()
            guard exited == nil, Date() < deadline else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return exited?.shellStatus
    }

    static func thumbnailQuery(url: String, size: Int, format: String? = nil) -> String {
        OriginRequests.thumbnailPath(url: url, size: size, format: format)
    }

    func get(_ pathAndQuery: String, headers: [(String, String)] = []) async throws -> Answer {
        try await OriginRequests.get(baseURL + pathAndQuery, headers: headers, timeout: .seconds(20))
    }
}

