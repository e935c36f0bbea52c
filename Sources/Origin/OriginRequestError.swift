/// Why a thumbnail request is malformed (answered 400).
public enum OriginRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case queryTooLong(byteCount: Int, limit: Int)
    case missingParameter(name: String)
    case repeatedParameter(name: String)
    /// A `%` not followed by two hex digits, or bytes that are not UTF-8 once decoded.
    case badPercentEncoding(parameter: String)
    case badSize(text: String, limit: Int)
    case unknownFormat(text: String)
    case badURL(url: String, reason: String)

    public var description: String {
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
