import Foundation

/// A host the policy names; a nil port matches any.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case, IPv6 without brackets.
    var host: String
    var port: Int?

    init(host: String, port: Int? = nil) {
        self.host = HostPattern.normalise(host)
        self.port = port
    }

    /// `host`, `host:port`, `[v6]`, `[v6]:port`, a bare IPv6 address or a URL (its host and effective port).
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.contains("://") {
            guard let url = URL(string: trimmed), let pattern = HostPattern(url: url) else { return nil }
            self = pattern
        } else if !trimmed.hasPrefix("["), trimmed.filter({ $0 == ":" }).count > 1 {
            self.init(host: trimmed)
        } else {
            // As a URL's authority, so that URLComponents splits off the brackets and the port.
            guard let parts = URLComponents(string: "//" + trimmed), let host = parts.host, !host.isEmpty,
                  parts.path.isEmpty, parts.port.map({ (1...65535).contains($0) }) ?? true else { return nil }
            self.init(host: host, port: parts.port)
        }
    }

    /// The host and effective port (80/443 when the URL names none).
    public init?(url: URL) {
        guard let host = url.host, !host.isEmpty, let port = HostPattern.effectivePort(of: url) else { return nil }
        self.init(host: host, port: port)
    }

    func matches(host: String, port: Int) -> Bool {
        self.host == HostPattern.normalise(host) && (self.port == nil || self.port == port)
    }

    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }

    static func normalise(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func effectivePort(of url: URL) -> Int? {
        url.port ?? ["http": 80, "https": 443][url.scheme?.lowercased() ?? ""]
    }
}
