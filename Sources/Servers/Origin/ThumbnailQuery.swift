import Cache
import Foundation
import WarmSupport

/// `GET /v1/thumbnail?url=&size=[&format=]`, parsed strictly; unknown parameters are ignored (a CDN may add some).
/// Nothing here ever becomes a path: the file is named by the hash of the key.
struct ThumbnailQuery: Sendable, Equatable {
    var url: CanonicalURL
    var longestSide: Int
    var format: OutputFormat?

    static let maxLongestSide = 16_384

    /// `isCanonicalKey` (the origin's index) says whether a decoded `url` is already a cache key, which is canonical
    /// by construction, so the common request skips canonicalising it again (bench/findings.md, section 17).
    /// `query` is the text after `?`, still percent-encoded (a slice of the request's path: no copy).
    init(query: Substring?, maxQueryBytes: Int,
                isCanonicalKey: (String) -> Bool = { _ in false }) throws(OriginRequestError) {
        let raw = query ?? ""
        guard raw.utf8.count <= maxQueryBytes else { throw .queryTooLong(byteCount: raw.utf8.count, limit: maxQueryBytes) }
        var urlText: String?, sizeText: String?, formatText: String?
        // Over UTF-8 bytes, pair by pair: `split` over Characters runs grapheme breaking on every byte (bench/findings.md,
        // section 20), and `split` over bytes allocates an array of the pairs (section 23).
        var rest = raw.utf8[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(of: UInt8(ascii: "&")) ?? rest.endIndex
            let pair = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            guard !pair.isEmpty else { continue }
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = Self.decode(Substring(pair[..<(equals ?? pair.endIndex)])) else { continue }
            let value = Substring(equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...])
            switch name {
            case "url": try Self.assign(value, named: name, to: &urlText)
            case "size": try Self.assign(value, named: name, to: &sizeText)
            case "format": try Self.assign(value, named: name, to: &formatText)
            default: continue
            }
        }
        guard let urlText else { throw .missingParameter(name: "url") }
        guard let sizeText else { throw .missingParameter(name: "size") }
        guard sizeText.utf8.count <= 5, sizeText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let side = Int(sizeText), (1...Self.maxLongestSide).contains(side) else {
            throw .badSize(text: sizeText, limit: Self.maxLongestSide)
        }
        if let name = formatText {
            guard let named = OutputFormat(name: name) else { throw .unknownFormat(text: name) }
            format = named
        }
        do {
            url = isCanonicalKey(urlText) ? CanonicalURL(alreadyCanonical: urlText) : try CanonicalURL(urlText)
        } catch {
            guard case .invalidURL(_, let reason) = error else { throw .badURL(url: urlText, reason: error.description) }
            throw .badURL(url: urlText, reason: reason)
        }
        longestSide = side
    }

    private static func assign(_ encoded: Substring, named name: String, to slot: inout String?) throws(OriginRequestError) {
        guard slot == nil else { throw .repeatedParameter(name: name) }
        guard let value = decode(encoded) else { throw .badPercentEncoding(parameter: name) }
        slot = value
    }

    /// Form decoding (`+` is a space); nil for a bad `%` escape or bytes that are not UTF-8. Over the UTF-8 bytes by
    /// hand: Foundation's `replacingOccurrences` and `removingPercentEncoding` bridge through NSString and took 19% of
    /// the origin's CPU under load (bench/findings.md, section 17).
    static func decode(_ text: Substring) -> String? {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
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
        return String(validating: bytes, as: UTF8.self)
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

/// Why a thumbnail request is malformed (answered 400).
enum OriginRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case queryTooLong(byteCount: Int, limit: Int)
    case missingParameter(name: String)
    case repeatedParameter(name: String)
    /// A `%` not followed by two hex digits, or bytes that are not UTF-8 once decoded.
    case badPercentEncoding(parameter: String)
    case badSize(text: String, limit: Int)
    case unknownFormat(text: String)
    case badURL(url: String, reason: String)

    var description: String {
        switch self {
        case .queryTooLong(let count, let limit):
            "the query is \(count) bytes long; at most \(limit) are accepted"
        case .missingParameter(let name):
            "the query has no \(name) parameter"
        case .repeatedParameter(let name):
            "the query gives \(name) more than once"
        case .badPercentEncoding(let parameter):
            "the \(parameter) parameter is not valid percent-encoded UTF-8"
        case .badSize(let text, let limit):
            "size \"\(text.prefix(40))\" is not a whole number of pixels from 1 to \(limit)"
        case .unknownFormat(let text):
            "format \"\(text.prefix(40))\" is not one of avif, webp, jpeg, png"
        case .badURL(let url, let reason):
            "url \"\(url.prefix(200))\" is not an image URL the cache can hold: \(reason)"
        }
    }
}
