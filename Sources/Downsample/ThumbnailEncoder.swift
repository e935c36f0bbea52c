import CWarmVips

/// Thumbnail-at-decode straight to encoded bytes: what the cache writer and
/// `warm thumbnail` store. The output equals
/// `ThumbnailAtDecode().decode(...).encoded(as:)` (upright, 8-bit sRGB, no
/// metadata, alpha only when the source has a non-opaque one and the format
/// keeps it), with fewer passes over the pixels: no RGBA round trip for
/// images without alpha, no flatten, no separate metadata copy (the saver
/// strips). Memory: the target-size bitmap plus the encoded bytes.
public struct ThumbnailEncoder: Sendable {
    public var format: OutputFormat
    public var quality: Int

    public init(format: OutputFormat = .jpeg, quality: Int = 82) {
        self.format = format
        self.quality = quality
    }

    /// Decodes `source` at `target` and encodes it.
    /// - Throws: `.corrupt` when decoding fails, `.encodeFailed` when encoding does.
    public func encode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> EncodedImage {
        let shrunk = try VipsImageHandle.thumbnail(source.data, size: target.longestSide, failOnError: true)
            .orCorrupt(source)
        let alpha = format == .jpeg ? WARM_ALPHA_FLATTEN_ON_WHITE : WARM_ALPHA_KEEP
        // Materialised before rotating, so that a broken file fails here as
        // `.corrupt` (the decode runs now), not later inside the encoder.
        let decoded = try shrunk.toSRGB(alpha: alpha).orCorrupt(source).materialized().orCorrupt(source)
        let upright = try decoded.autorotated(orientation: source.header.orientation).orCorrupt(source)
        return EncodedImage(data: try format.encode(upright, quality: quality),
                            size: PixelSize(width: upright.width, height: upright.height), format: format)
    }
}
