import Foundation

/// One entry of a source that was skipped: a URL-list line, a sitemap `<loc>` or a detail's carousel entry that is
/// not an absolute http(s) URL, and the like. The rest of the source is still used; the caller treats a source with
/// problems as not read whole (it warms the rest and prunes nothing), as the API crawl treats a failed page.
public struct ListingProblem: Sendable, Hashable, CustomStringConvertible {
    enum Reason: Sendable, Hashable {
        case notHTTPURL
        /// A URL-list line with more than a URL and a product id.
        case extraFields
        /// A sitemap `<url>`, `<sitemap>` or `<image:image>` without a `<loc>` (its element's name).
        case missingLoc(element: String)
        case locTooLong(limitBytes: Int)
        /// A product detail's carousel entry with no `url` (or that is not an object).
        case missingURL
    }

    /// "urls.txt line 3", "https://shop.test/sitemap.xml line 12".
    var place: String
    /// The offending text, cut to `maxExcerptCharacters`.
    var excerpt: String
    var reason: Reason

    /// Enough to recognise a line, short enough for a log line.
    static let maxExcerptCharacters = 120

    init(place: String, text: some StringProtocol, reason: Reason) {
        self.place = place
        self.excerpt = Self.excerpt(of: text)
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .notHTTPURL:
            return "\(place): \"\(excerpt)\" is not an absolute http or https URL; it was skipped."
        case .extraFields:
            return "\(place): \"\(excerpt)\" has more than a URL and a product id; the line was skipped."
        case .missingLoc(let element):
            return "\(place): a <\(element)> without a <loc> was skipped."
        case .locTooLong(let limit):
            return "\(place): a <loc> longer than \(limit) bytes (\"\(excerpt)\") was skipped."
        case .missingURL:
            return "\(place): an image without a url was skipped."
        }
    }

    /// A stable code for reports and metrics.
    var reasonCode: String {
        switch reason {
        case .notHTTPURL: return "not-http-url"
        case .extraFields: return "extra-fields"
        case .missingLoc: return "missing-loc"
        case .locTooLong: return "loc-too-long"
        case .missingURL: return "missing-url"
        }
    }

    /// `text` cut to `maxExcerptCharacters`, with an ellipsis when cut.
    static func excerpt(of text: some StringProtocol) -> String {
        guard text.count > maxExcerptCharacters else { return String(text) }
        return String(text.prefix(maxExcerptCharacters)) + "…"
    }
}
