/// Thumbnail-at-decode: shrink-on-load (JPEG DCT scaling to the smallest
/// scale that keeps the output size, WebP scale-on-load, streaming shrink for
/// the rest) and a Lanczos3 resample, so the full-size bitmap never exists.
/// The same decode as the cache writer's (`ThumbnailEncoder`), through
/// libvips: for a JPEG, PNG or WebP written as JPEG the cache writer takes the
/// same steps outside libvips' pipeline (`directThumbnail`), holding the shrunk
/// rows rather than a bitmap, so this measures the libvips way, which every
/// other output still takes. Retained and peak bytes are both close to the
/// target bitmap.
public struct ThumbnailAtDecode: DecodeStrategy {
    public init() {}
    public var kind: StrategyKind { .thumbnail }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let decoded: Result<VipsImageHandle, DownsampleError> = source.data.withUnsafeBytes { memory in
            Result { () throws(DownsampleError) in
                let rgba = try source.shrunk(memory: memory, to: target).toSRGBA().orCorrupt(source)
                let upright = try rgba.autorotated(orientation: source.header.orientation).orCorrupt(source)
                // Materialised inside: the bitmap no longer reads the lent bytes.
                return try upright.materialized().orCorrupt(source)
            }
        }
        return DecodedImage(strategy: kind, image: try decoded.get())
    }
}
