import CWarmVips
import Foundation

/// The one thumbnail engine: what the cache writer, `warm thumbnail` and the
/// measured `thumbnail` strategy run. Output: upright, 8-bit sRGB, no metadata,
/// alpha only when non-opaque and the format keeps it, `DecodeTarget.outputSize`.
/// A JPEG, PNG or WebP bound for a JPEG goes through the direct path
/// (`directThumbnail`) unless it needs libvips; everything else through libvips
/// with shrink-on-load (`ShrinkOnLoad`). Memory: the shrunk bitmap plus the
/// encoded bytes; the full-size bitmap never exists.
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
