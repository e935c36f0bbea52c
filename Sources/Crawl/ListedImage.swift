import Foundation

/// One image a catalog source names tonight: a line of a URL list, an `<image:loc>` of a sitemap (and, later, an
/// OpenMarket product's thumbnail or carousel entry), in one shape so that the pipeline consumes every source alike.
///
/// `productID` is text because the sources do not agree on ids: a URL list's optional token, a sitemap page's URL
/// (the page is the product an app shows; it has no other id), an API's integer. `source` is plain text for people
/// ("urls.txt line 12", "https://shop.test/sitemap-2.xml line 40"), not a typed place: only messages read it.
public struct ListedImage: Sendable, Hashable, CustomStringConvertible {
    public var url: URL
    public var productID: String?
    /// 0-based place among the images of its product (a sitemap page's carousel, or a URL list's lines naming the
    /// same product id, in order); nil when the source has no product to place it in.
    public var position: Int?
    /// Where the source names it, for messages.
    var source: String

    init(url: URL, productID: String? = nil, position: Int? = nil, source: String) {
        self.url = url
        self.productID = productID
        self.position = position
        self.source = source
    }

    public var description: String {
        let product = productID.map { " (product \($0)\(position.map { ", position \($0)" } ?? ""))" } ?? ""
        return "\(url.absoluteString)\(product) at \(source)"
    }
}

extension URL {
    /// An absolute http(s) URL with a host, from text already trimmed; nil otherwise. The rule `Product.thumbnailURL`
    /// applies too (that file builds alone in the fuzz package, so it keeps its own copy).
    init?(listedHTTP text: some StringProtocol) {
        guard !text.isEmpty, let url = URL(string: String(text)), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return nil }
        self = url
    }
}
