/// Naive full decode: the whole image becomes an 8-bit RGBA bitmap in memory
/// and that full bitmap is what a memory cache would keep, whatever the display
/// size. Retained bytes = width x height x 4; the peak also holds the loader's
/// own decode buffer while the RGBA copy is made.
public struct NaiveDecode: DecodeStrategy {
    public init() {}
    public var kind: StrategyKind { .naive }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let full = try Self.fullBitmap(source)
        return DecodedImage(strategy: kind, image: full)
    }

    /// Decodes the whole image, upright, as a materialised RGBA bitmap.
    static func fullBitmap(_ source: ImageSource) throws(DownsampleError) -> VipsImageHandle {
        try vips(or: source.corrupt) {
            try VipsImageHandle.open(source.data).toSRGB().autorotated(orientation: source.header.orientation).materialized()
        }
    }
}
