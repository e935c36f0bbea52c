import Foundation

/// The images one product's detail shows in its carousel, as `ListedImage`s for the pipeline: `productID` is the
/// product's id as text, `position` the entry's index in the detail's `images` (the app's carousel index, so an
/// entry skipped before it leaves a gap rather than moving the others), `source` names the detail.
///
/// A URL listed twice in one carousel is kept at both positions: the pipeline admits each URL once a run anyway,
/// and the app manifest can then place it wherever the app shows it.
public struct ProductCarousel: Sendable, Hashable {
    public var productID: Int
    /// `GET /api/products/{id}`.
    public var detailURL: URL
    /// In carousel order.
    public var images: [ListedImage]
    /// Entries without an absolute http(s) `url` (missing, blank, relative, another scheme, not an object).
    public var skipped = ListingProblems()

    public init(productID: Int, detailURL: URL, images: [ListedImage] = []) {
        self.productID = productID
        self.detailURL = detailURL
        self.images = images
    }

    /// "product 7's detail (http://shop.test/api/products/7)": the `source` of each image.
    public var source: String {
        "product \(productID)'s detail (\(detailURL.absoluteString))"
    }

    /// Keeps the usable entries of `detail`, in order, and counts the others.
    init(_ detail: ProductDetail, detailURL: URL) {
        self.init(productID: detail.id, detailURL: detailURL)
        let source = self.source
        for (position, entry) in detail.images.enumerated() {
            if let url = entry.imageURL {
                images.append(ListedImage(url: url, productID: String(detail.id), position: position, source: source))
            } else {
                skipped.append(ListingProblem(place: "\(source) images[\(position)]", text: entry.url ?? "",
                                              reason: entry.url == nil ? .missingURL : .notHTTPURL))
            }
        }
    }
}
