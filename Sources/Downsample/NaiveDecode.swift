/// The full RGBA bitmap a memory cache would keep, whatever the display size; the peak also holds the loader's
/// own decode buffer while the RGBA copy is made.
public struct NaiveDecode: DecodeStrategy {
    public init() {}
    public var kind: StrategyKind { .naive }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let full = try Self.fullBitmap(source)
        return DecodedImage(strategy: kind, image: full, decodedPixels: full.width * full.height)
    }

    static func fullBitmap(_ source: ImageSource) throws(DownsampleError) -> VipsImageHandle {
        try vips(or: source.corrupt) {
            try VipsImageHandle.open(source.data).toSRGB().autorotated(orientation: source.header.orientation).materialized()
        }
    }
}
