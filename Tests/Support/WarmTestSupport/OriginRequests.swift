import AsyncHTTPClient
import Foundation
import NIOCore
import WarmSupport

/// One answer of the origin (`warm cache serve`, or `Origin` in process), headers keyed in lower case.
public struct OriginAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the origin's tests ask it, and what they expect of its ETags; shared by OriginTests and CLITests.
public enum OriginRequests {
    /// `/v1/thumbnail?url=<encoded>&size=N[&format=F]`.
    public static func thumbnailPath(url: String, size: Int, format: String? = nil) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = url.addingPercentEncoding(withAllowedCharacters: allowed)!
        return "/v1/thumbnail?url=\(encoded)&size=\(size)" + (format.map { "&format=\($0)" } ?? "")
    }

    public static func get(_ url: String, head: Bool = false, headers: [(String, String)] = [],
                           timeout: TimeAmount) async throws -> OriginAnswer {
        var request = HTTPClientRequest(url: url)
        if head { request.method = .HEAD }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 24)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return OriginAnswer(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
    }

    /// SHA-256 by another implementation than the server's (coreutils), as the ETag's first 32 hex digits, quoted.
    public static func expectedETag(of data: Data) throws -> String {
        let text = try ChildProcess.run("/usr/bin/sha256sum", arguments: [], environment: ProcessInfo.processInfo.environment,
                                        input: data).stdout
        return "\"" + text.prefix(32) + "\""
    }
}
