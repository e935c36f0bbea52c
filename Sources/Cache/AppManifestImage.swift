import Foundation
import WarmSupport

/// One image of the app manifest (`warm cache export`): enough to lay out a cell and pick a variant without decoding.
/// Field names are fixed (docs/cache-layout.md, "App manifest").
public struct AppManifestImage: Sendable, Equatable, Codable {
    public var url: String
    public var productIds: [Int]
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

    enum CodingKeys: String, CodingKey { case url, productIds, thumbHash, averageColor, variants }

    /// Every key is written, a missing placeholder as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        try c.encode(productIds, forKey: .productIds)
        try c.encode(thumbHash, forKey: .thumbHash)
        try c.encode(averageColor, forKey: .averageColor)
        try c.encode(variants, forKey: .variants)
    }
}
