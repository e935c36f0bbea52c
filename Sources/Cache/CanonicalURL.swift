/// The URL form the cache keys on (RFC 3986 6.2.2 minus percent-encoding; rules in LAYOUT.md, "File names"). Parsed
/// by hand: `URLComponents` re-encodes differently across platforms and versions, and a key must stay byte-stable.
public struct CanonicalURL: Sendable, Hashable, Codable, CustomStringConvertible {
    public let text: String

    public init(_ url: String) throws(CacheError) {
        let trimmed = url.trimmingWhitespace()
        guard let colon = trimmed.firstIndex(of: ":") else {
            throw .invalidURL(url: url, reason: "it has no scheme")
        }
        let scheme = trimmed[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            throw .invalidURL(url: url, reason: "it has no valid scheme")
        }
        var rest = trimmed[trimmed.index(after: colon)...]
        guard rest.hasPrefix("//") else {
            throw .invalidURL(url: url, reason: "it has no host (expected scheme://host)")
        }
        rest = rest.dropFirst(2)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring = ""
        if let question = rest.firstIndex(of: "?") {
            query = rest[question...]
            rest = rest[..<question]
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]

        var userInfo: Substring = ""
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[...at]
            hostPort = authority[authority.index(after: at)...]
        }
        var host = hostPort
        var port: Substring = ""
        // An IPv6 literal holds colons, so its port starts after the bracket.
        let portSearchStart = hostPort.hasPrefix("[") ? (hostPort.firstIndex(of: "]") ?? hostPort.endIndex) : hostPort.startIndex
        if let portColon = hostPort[portSearchStart...].firstIndex(of: ":") {
            host = hostPort[..<portColon]
            port = hostPort[hostPort.index(after: portColon)...]
        }
        guard !host.isEmpty else { throw .invalidURL(url: url, reason: "it has no host") }

        let lowerScheme = scheme.lowercased()
        var portText = ""
        if !port.isEmpty {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), number <= 65_535 else {
                throw .invalidURL(url: url, reason: "its port \"\(port)\" is not a number from 0 to 65535")
            }
            if number != Self.defaultPorts[lowerScheme] { portText = ":\(number)" }
        }
        let resolvedPath = path.isEmpty ? "/" : Self.removingDotSegments(String(path))
        text = lowerScheme + "://" + userInfo + host.lowercased() + portText + resolvedPath + query
    }

    public var description: String { text }

    /// For text known to be a key the cache already holds (canonical by construction), without parsing it again.
    public init(alreadyCanonical text: String) {
        self.text = text
    }

    private static let defaultPorts: [String: Int] = ["http": 80, "https": 443, "ws": 80, "wss": 443]

    /// RFC 3986 5.2.4 over whole segments: `..` never climbs above the root; a final `.`/`..` leaves a trailing slash.
    static func removingDotSegments(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var output: [Substring] = []
        for (index, segment) in zip(segments.indices, segments) {
            guard segment == "." || segment == ".." else {
                output.append(segment)
                continue
            }
            if segment == "..", !output.isEmpty { output.removeLast() }
            if index == segments.indices.last { output.append("") }
        }
        return "/" + output.joined(separator: "/")
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> SubSequence {
        let start = firstIndex(where: { !$0.isWhitespace }) ?? endIndex
        let end = lastIndex(where: { !$0.isWhitespace }).map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
