import Foundation

/// What a sitemap walk found: every image once, in document order (the root's pages first, then each listed sitemap
/// in the order its index lists it, depth first), and the counts a summary needs.
struct SitemapWalk: Sendable, Hashable, CustomStringConvertible {
    var root: URL
    /// Each image URL once, at its first page and position.
    public var images: [ListedImage] = []
    /// Fetched and parsed, the root and indexes included.
    var sitemapsRead = 0
    /// Sitemaps an index listed again after another index (or itself earlier) had: read once.
    var sitemapsRepeated = 0
    public var pages = 0
    /// Pages with no usable `<image:loc>`: a sitemap without the image extension warms nothing.
    var pagesWithoutImages = 0
    /// `<image:loc>`s naming an image already listed (on another page, or twice on one).
    var duplicates = 0
    var problems = ListingProblems()

    init(root: URL) {
        self.root = root
    }

    var description: String {
        var text = "Read \(sitemapsRead) sitemap\(sitemapsRead == 1 ? "" : "s") from \(root.absoluteString): "
            + "\(pages) pages, \(images.count) images, \(duplicates) duplicates"
        if pagesWithoutImages > 0 { text += ", \(pagesWithoutImages) pages without images" }
        if sitemapsRepeated > 0 { text += ", \(sitemapsRepeated) sitemaps listed twice" }
        if !problems.isEmpty { text += "; \(problems.count) entries skipped" }
        return text + "."
    }

    /// Adds a document's problems and, for a urlset, its pages, keeping each image URL's first appearance.
    mutating func add(_ document: SitemapDocument, seen: inout Set<String>, limit: Int) throws(SitemapError) {
        problems.append(contentsOf: document.problems)
        guard case .urlset(let listed) = document.content else { return }
        for page in listed {
            pages += 1
            if page.images.isEmpty { pagesWithoutImages += 1 }
            for image in page.images {
                guard seen.insert(image.url.absoluteString).inserted else {
                    duplicates += 1
                    continue
                }
                guard images.count < limit else { throw .tooManyImages(root: root, limit: limit) }
                images.append(image)
            }
        }
    }
}
