import Cache
import Foundation

/// The parsed query of `GET /v1/thumbnail?url=&size=[&format=]`: the
/// canonical image URL (the cache key, as `warm cache get` computes it), the
/// longest side, and the format when the client named one.
///
/// Parsed from the raw query, strictly: form encoding (`+` is a space, `%XX`
/// a byte), decoded bytes must be UTF-8, each known parameter at most once;
/// unknown parameters are ignored (a CDN or a tracker may add some). Nothing
/// here ever becomes a path: the file is named by the hash of the key.
public struct ThumbnailQuery: Sendable, Equatable {
    public var url: CanonicalURL
    public var longestSide: Int
    public var format: ThumbnailFormat?

    /// Largest `size` accepted; anything larger cannot be in a cache of thumbnails.
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

    /// Form decoding of one name or value; nil for a bad `%` escape or bytes that are not UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
