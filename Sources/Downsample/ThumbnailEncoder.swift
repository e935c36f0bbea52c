import CWarmVips
import Foundation

/// Thumbnail-at-decode straight to encoded bytes: what the cache writer and
/// `warm thumbnail` store. The output is upright, 8-bit sRGB, has no
/// metadata, keeps alpha only when the source has a non-opaque one and the
/// format keeps it, and has the size `DecodeTarget.outputSize` gives.
///
/// JPEG, most of a catalog, is decoded by libjpeg at the smallest DCT scale
/// that keeps the output's size (`ShrinkOnLoad`), then resampled with Lanczos3
/// to the exact size; other formats go through libvips' `thumbnail` (WebP
/// scale-on-load, streaming shrink for PNG). A JPEG, PNG or WebP bound for a
/// JPEG takes the same steps outside libvips' pipeline (`directThumbnail`)
/// unless it needs libvips (a foreign profile, CMYK, 16 bits, interlacing, an
/// animation, corrupt data). The bytes are never copied
/// (libvips reads them where they are) and an sRGB profile is not run through
/// lcms. Memory: the shrunk bitmap plus the encoded bytes; the full-size
/// bitmap never exists.
public struct ThumbnailEncoder: Sendable, Hashable {
    public var format: OutputFormat
    public var quality: Int

    public init(format: OutputFormat = .jpeg, quality: Int = 82) {
        self.format = format
        self.quality = quality
    }

    /// Decodes `source` at `target` and encodes it.
    /// - Throws: `.corrupt` when decoding fails, `.encodeFailed` when encoding does.
    public func encode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> EncodedImage {
        try encode(source, targets: [target])[0]
    }

    /// One thumbnail per target, in order.
    public func encode(_ source: ImageSource, targets: [DecodeTarget]) throws(DownsampleError) -> [EncodedImage] {
        let encoded: Result<[EncodedImage], DownsampleError> = source.data.withUnsafeBytes { memory in
            Result { () throws(DownsampleError) in
                var images: [EncodedImage] = []
                for target in targets {
                    images.append(try encode(source, memory: memory, target: target))
                }
                return images
            }
        }
        return try encoded.get()
    }

    /// Every libvips image made here lives only inside this call: `memory`
    /// is lent by the caller for that long.
    private func encode(_ source: ImageSource, memory: UnsafeRawBufferPointer, target: DecodeTarget) throws(DownsampleError) -> EncodedImage {
        #if DEBUG
        // The planted regression: a full-size bitmap held while the shipped path runs.
        let planted = Self.plantsFullDecode ? try NaiveDecode.fullBitmap(source) : nil
        defer { withExtendedLifetime(planted) {} }
        #endif
        if format == .jpeg, let direct = source.directThumbnail(memory: memory, target: target, quality: quality) {
            return direct
        }
        let shrunk = format == .jpeg ? try source.shrunkWithoutAlpha(memory: memory, to: target)
                                     : try source.shrunk(memory: memory, to: target)
        let alpha = format == .jpeg ? WARM_ALPHA_FLATTEN_ON_WHITE : WARM_ALPHA_KEEP
        // Materialised before rotating, so that a broken file fails here as
        // `.corrupt` (the decode runs now), not later inside the encoder.
        let decoded = try shrunk.toSRGB(alpha: alpha).orCorrupt(source).materialized().orCorrupt(source)
        let upright = try decoded.autorotated(orientation: source.header.orientation).orCorrupt(source)
        return EncodedImage(data: try format.encode(upright, quality: quality),
                            size: PixelSize(width: upright.width, height: upright.height), format: format)
    }
}

#if DEBUG
extension ThumbnailEncoder {
    /// Test-only, debug builds only: `WARM_TEST_PLANT_FULL_DECODE=1` makes every
    /// thumbnail decode the whole image at full size too, the memory regression
    /// `ShippedThumbnailTests` expects `warm check` to catch.
    static let plantsFullDecode = ProcessInfo.processInfo.environment["WARM_TEST_PLANT_FULL_DECODE"] == "1"
}
#endif
