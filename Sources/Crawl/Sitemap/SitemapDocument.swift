import Foundation

/// One sitemap file, parsed: a `urlset` of pages with their images (Google's image extension), or an `index` of
/// other sitemaps. Entries whose `<loc>` is not an absolute http(s) URL are `problems`, not the end of the document.
/// Cost: the document is parsed from memory (at most `SitemapLimits.maxDocumentBytes` after gunzip) in one pass on
/// the calling thread, in time linear in its size; that is CPU work for the cooperative pool, not blocking I/O.
struct SitemapDocument: Sendable, Hashable {
    enum Content: Sendable, Hashable {
        /// `<urlset>`: each `<url><loc>` with its `<image:image><image:loc>`s, in document order.
        case urlset([SitemapPage])
        /// `<sitemapindex>`: each `<sitemap><loc>`, in document order.
        case index([URL])
    }

    var url: URL
    var content: Content
    var problems: ListingProblems

    init(url: URL, content: Content, problems: ListingProblems = ListingProblems()) {
        self.url = url
        self.content = content
        self.problems = problems
    }

    /// Parses a fetched body, gzipped or not (told by its first bytes). Refuses what `SitemapError` lists: a DOCTYPE
    /// or entity, more than the limits, bytes that are not UTF-8, malformed XML, another root element.
    static func parse(_ body: Data, url: URL, limits: SitemapLimits = SitemapLimits()) throws(SitemapError) -> SitemapDocument {
        let document = try SitemapBody.document(from: body, url: url, limits: limits)
        return try SitemapXMLReader(url: url, limits: limits).read(document)
    }
}

/// A `<url>` of a urlset.
struct SitemapPage: Sendable, Hashable {
    var url: URL
    /// Of the page's `<loc>`, for messages.
    var line: Int
    /// Its `<image:loc>`s in document order (the page's carousel), duplicates included: the page's URL as product id,
    /// the place among the page's usable images as position, the sitemap and line as source.
    public var images: [ListedImage]

    init(url: URL, line: Int, images: [ListedImage] = []) {
        self.url = url
        self.line = line
        self.images = images
    }
}
