import Foundation
import WarmSupport

/// One image of the app manifest (`warm cache export`): enough to lay out a cell and pick a variant without decoding.
/// Field names are fixed (docs/cache-layout.md, "App manifest").
public struct AppManifestImage: Sendable, Equatable, Codable {
    public var url: String
    public var productIds: [Int]
    /// Where product details show it (`warm run --detail-images`): each product and the 0-based position in its
    /// carousel; empty for an image no detail read showed.
    public var carousel: [CarouselPlacement] = []
    /// Base64 of the ThumbHash bytes; nil when no run has made it yet.
    var thumbHash: String?
    /// `#rrggbb`; nil with `thumbHash`.
    var averageColor: String?
    var variants: [Variant]

    public struct Variant: Sendable, Equatable, Codable {
        /// The requested longest side (`--size`).
        public var size: Int
        /// Written by name: `jpeg`, `webp`, `avif` or `png`.
        public var format: OutputFormat
        public var width: Int
        public var height: Int
        public var bytes: Int
        /// The ETag `warm cache serve` sends for the file (`FileValidators.etag`), recorded when the file was stored.
        public var etag: String
        /// width x height x 4: what the variant takes once decoded to RGBA.
        var decodedBytes: Int
    }

    enum CodingKeys: String, CodingKey { case url, productIds, carousel, thumbHash, averageColor, variants }

    public init(url: String, productIds: [Int], carousel: [CarouselPlacement] = [], thumbHash: String? = nil,
                averageColor: String? = nil, variants: [Variant]) {
        self.url = url
        self.productIds = productIds
        self.carousel = carousel
        self.thumbHash = thumbHash
        self.averageColor = averageColor
        self.variants = variants
    }

    /// A manifest written before `carousel` existed reads as no carousel.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        productIds = try c.decode([Int].self, forKey: .productIds)
        carousel = try c.decodeIfPresent([CarouselPlacement].self, forKey: .carousel) ?? []
        thumbHash = try c.decodeIfPresent(String.self, forKey: .thumbHash)
        averageColor = try c.decodeIfPresent(String.self, forKey: .averageColor)
        variants = try c.decode([Variant].self, forKey: .variants)
    }

    /// Every key is written, a missing placeholder as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(productIds, forKey: .productIds)
        try c.encode(carousel, forKey: .carousel)
        try c.encode(thumbHash, forKey: .thumbHash)
        try c.encode(averageColor, forKey: .averageColor)
        try c.encode(variants, forKey: .variants)
    }
}
