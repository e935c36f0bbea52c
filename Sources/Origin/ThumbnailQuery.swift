import Cache
import Foundation

/// The query of `GET /v1/thumbnail?url=&size=[&format=]`, parsed strictly from the raw text: form
/// encoding, UTF-8, each known parameter at most once; unknown ones are ignored (a CDN may add some).
/// Nothing here ever becomes a path: the file is named by the hash of the key.
public struct ThumbnailQuery: Sendable, Equatable {
    public var url: CanonicalURL
    public var longestSide: Int
    public var format: ThumbnailFormat?

    public static let maxLongestSide = 16_384

    public init(url: CanonicalURL, longestSide: Int, format: ThumbnailFormat? = nil) {
        self.url = url
        self.longestSide = longestSide
        self.format = format
    }

    public init(query: String?, maxQueryBytes: Int) throws(OriginRequestError) {
        let raw = query ?? ""
        guard raw.utf8.count <= maxQueryBytes else { throw .queryTooLong(byteCount: raw.utf8.count, limit: maxQueryBytes) }
        var values: [String: String] = [:]
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), ["url", "size", "format"].contains(name) else { continue }
            guard values[name] == nil else { throw .repeatedParameter(name: name) }
            guard let value = Self.decode(parts.count > 1 ? parts[1] : "") else { throw .badPercentEncoding(parameter: name) }
            values[name] = value
        }
        guard let urlText = values["url"] else { throw .missingParameter(name: "url") }
        guard let sizeText = values["size"] else { throw .missingParameter(name: "size") }
        guard sizeText.utf8.count <= 5, sizeText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let side = Int(sizeText), (1...Self.maxLongestSide).contains(side) else {
            throw .badSize(text: sizeText, limit: Self.maxLongestSide)
        }
        var format: ThumbnailFormat?
        if let name = values["format"] {
            guard let named = ThumbnailFormat(name: name) else { throw .unknownFormat(text: name) }
            format = named
        }
        do {
            url = try CanonicalURL(urlText)
        } catch {
            guard case .invalidURL(_, let reason) = error else { throw .badURL(url: urlText, reason: error.description) }
            throw .badURL(url: urlText, reason: reason)
        }
        longestSide = side
        self.format = format
    }

    /// Form decoding (`+` is a space); nil for a bad `%` escape or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
