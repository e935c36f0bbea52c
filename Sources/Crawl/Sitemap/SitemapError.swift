import Fetch
import Foundation

/// Why a sitemap, and so the whole walk, could not be used; each names the sitemap it concerns. The caller exits 6
/// and prunes nothing: a sitemap read halfway is not a list of what is still listed.
public enum SitemapError: Error, Sendable, Hashable, CustomStringConvertible {
    case fetchFailed(sitemap: URL, error: FetchError)
    /// A 304 to a request that sent no validators.
    case notModified(sitemap: URL)
    case tooLarge(sitemap: URL, limitBytes: Int, gzipped: Bool)
    /// Gzip's magic bytes, then data that does not inflate, or a stream cut short.
    case corruptGzip(sitemap: URL)
    case notUTF8(sitemap: URL)
    /// The XML declaration names another encoding (sitemaps.org: sitemaps are UTF-8).
    case unsupportedEncoding(sitemap: URL, encoding: String)
    /// Any `<!DOCTYPE` or `<!ENTITY`: entity expansion (billion laughs) and external entities (local files) start there.
    case doctype(sitemap: URL, line: Int)
    case malformed(sitemap: URL, line: Int, reason: String)
    /// The root element is not `<urlset>` or `<sitemapindex>` (nil: there is no element at all).
    case notASitemap(sitemap: URL, root: String?)
    case tooManyEntries(sitemap: URL, limit: Int)
    /// An index at a level `SitemapLimits.maxIndexLevels` does not follow.
    case tooDeep(sitemap: URL, listedBy: URL, maxIndexLevels: Int)
    /// An index lists itself or an index that (indirectly) lists it.
    case loop(sitemap: URL, listedBy: URL)
    case tooManySitemaps(root: URL, limit: Int)
    case tooManyImages(root: URL, limit: Int)

    /// The sitemap the error concerns (the root for the walk's totals).
    var sitemap: URL {
        switch self {
        case .fetchFailed(let url, _), .notModified(let url), .tooLarge(let url, _, _), .corruptGzip(let url),
             .notUTF8(let url), .unsupportedEncoding(let url, _), .doctype(let url, _), .malformed(let url, _, _),
             .notASitemap(let url, _), .tooManyEntries(let url, _), .tooDeep(let url, _, _), .loop(let url, _),
             .tooManySitemaps(let url, _), .tooManyImages(let url, _):
            return url
        }
    }

    /// A short stable code for reports and metrics.
    var reasonCode: String {
        switch self {
        case .fetchFailed(_, let error): return error.reasonCode
        case .notModified: return "unexpected-304"
        case .tooLarge: return "sitemap-too-large"
        case .corruptGzip: return "corrupt-gzip"
        case .notUTF8, .unsupportedEncoding: return "sitemap-not-utf8"
        case .doctype: return "sitemap-doctype"
        case .malformed: return "sitemap-malformed"
        case .notASitemap: return "not-a-sitemap"
        case .tooManyEntries: return "sitemap-too-many-entries"
        case .tooDeep: return "sitemap-too-deep"
        case .loop: return "sitemap-loop"
        case .tooManySitemaps: return "too-many-sitemaps"
        case .tooManyImages: return "too-many-images"
        }
    }

    public var description: String {
        switch self {
        case .fetchFailed(let url, let error):
            return "The sitemap \(url.absoluteString) could not be fetched: \(error.description)"
        case .notModified(let url):
            return "The sitemap \(url.absoluteString) answered 304 Not Modified to an unconditional request."
        case .tooLarge(let url, let limit, let gzipped):
            return "The sitemap \(url.absoluteString) \(gzipped ? "inflates to" : "is") more than \(limit) bytes "
                + "(sitemaps.org allows 50 MB uncompressed); it was refused."
        case .corruptGzip(let url):
            return "The sitemap \(url.absoluteString) starts like gzip but does not inflate whole (corrupt or cut short)."
        case .notUTF8(let url):
            return "The sitemap \(url.absoluteString) is not UTF-8 text (sitemaps.org requires UTF-8)."
        case .unsupportedEncoding(let url, let encoding):
            return "The sitemap \(url.absoluteString) declares the encoding \"\(encoding)\"; sitemaps are UTF-8 (sitemaps.org), so it was refused."
        case .doctype(let url, let line):
            return "The sitemap \(url.absoluteString) declares a DOCTYPE or an entity (line \(line)); sitemaps never need "
                + "one, and its entities could expand without bound or read local files, so it was refused."
        case .malformed(let url, let line, let reason):
            return "The sitemap \(url.absoluteString) is not well-formed XML at line \(line): \(reason)."
        case .notASitemap(let url, let root):
            let found = root.map { "its root element is <\($0)>" } ?? "it holds no XML element"
            return "\(url.absoluteString) is not a sitemap: \(found), not <urlset> or <sitemapindex>."
        case .tooManyEntries(let url, let limit):
            return "The sitemap \(url.absoluteString) lists more than \(limit) entries (sitemaps.org allows 50,000); it was refused."
        case .tooDeep(let url, let parent, let levels):
            return "The sitemap index \(url.absoluteString), listed by \(parent.absoluteString), is nested deeper than "
                + "\(levels) index level\(levels == 1 ? "" : "s"); it was not followed."
        case .loop(let url, let parent):
            return "The sitemap index \(parent.absoluteString) lists \(url.absoluteString), which is itself or an index "
                + "above it; the loop was not followed."
        case .tooManySitemaps(let root, let limit):
            return "The sitemap \(root.absoluteString) leads to more than \(limit) sitemaps; the walk was stopped."
        case .tooManyImages(let root, let limit):
            return "The sitemap \(root.absoluteString) lists more than \(limit) distinct images; the walk was stopped."
        }
    }
}
