import CompressNIO
import Foundation
import NIOCore

/// Sitemap documents the tests write, in the shapes generators produce.
enum SitemapText {
    static let sitemapNamespace = "http://www.sitemaps.org/schemas/sitemap/0.9"
    static let imageNamespace = "http://www.google.com/schemas/sitemap-image/1.1"

    /// A urlset with Google's image extension under `imagePrefix`, one page per entry.
    static func urlset(_ pages: [(page: String, images: [String])], imagePrefix: String = "image") -> String {
        let entries = pages.map { page in
            let images = page.images.map { "\n    <\(imagePrefix):image><\(imagePrefix):loc>\($0)</\(imagePrefix):loc></\(imagePrefix):image>" }
            return "  <url>\n    <loc>\(page.page)</loc>\(images.joined())\n  </url>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="\(sitemapNamespace)" xmlns:\(imagePrefix)="\(imageNamespace)">
            \(entries.joined(separator: "\n"))
            </urlset>

            """
    }

    static func index(_ sitemaps: [String]) -> String {
        let entries = sitemaps.map { "  <sitemap><loc>\($0)</loc><lastmod>2024-05-01</lastmod></sitemap>" }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <sitemapindex xmlns="\(sitemapNamespace)">
            \(entries.joined(separator: "\n"))
            </sitemapindex>

            """
    }

    static func gzip(_ data: Data) throws -> Data {
        var buffer = ByteBuffer(bytes: data)
        var compressed = try buffer.compress(with: .gzip())
        return Data(compressed.readBytes(length: compressed.readableBytes) ?? [])
    }

    static func gzip(_ text: String) throws -> Data {
        try gzip(Data(text.utf8))
    }
}
