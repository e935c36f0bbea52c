/// How much a sitemap walk may read. The per-file defaults are the sitemaps.org protocol's own (50 MB uncompressed,
/// 50,000 URLs), so a sitemap any search engine accepts passes, and a gzip bomb or an endless index does not.
public struct SitemapLimits: Sendable, Hashable {
    /// One document after gunzip: 52,428,800 bytes (sitemaps.org's 50 MB).
    var maxDocumentBytes: Int
    /// `<url>` entries of a urlset or `<sitemap>` entries of an index.
    var maxEntriesPerDocument: Int
    /// One `<loc>`; sitemaps.org allows 2,048 characters, a little more is tolerated.
    var maxLocBytes: Int
    /// Index levels followed: 2 follows a root index and the indexes it lists; an index listed by one of those is
    /// refused (`SitemapError.tooDeep`). At least 1. The protocol has no nested indexes; some generators write one level.
    var maxIndexLevels: Int
    /// Sitemaps fetched at once.
    var concurrency: Int
    /// Sitemaps read in one walk, the root included.
    var maxSitemaps: Int
    /// Distinct image URLs in one walk; each costs about 200 bytes in memory.
    var maxImages: Int

    public init(maxDocumentBytes: Int = 50 * 1024 * 1024, maxEntriesPerDocument: Int = 50_000, maxLocBytes: Int = 8 * 1024,
                maxIndexLevels: Int = 2, concurrency: Int = 4, maxSitemaps: Int = 10_000, maxImages: Int = 1_000_000) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxEntriesPerDocument = maxEntriesPerDocument
        self.maxLocBytes = maxLocBytes
        self.maxIndexLevels = max(1, maxIndexLevels)
        self.concurrency = max(1, concurrency)
        self.maxSitemaps = maxSitemaps
        self.maxImages = maxImages
    }
}
