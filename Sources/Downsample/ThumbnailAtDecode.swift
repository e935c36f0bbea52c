/// Thumbnail-at-decode: libvips' thumbnail with shrink-on-load (JPEG DCT
/// scaling, WebP scale-on-load, streaming shrink for the rest), so the
/// full-size bitmap never exists. Retained and peak bytes are both close to the
/// target bitmap.
public struct ThumbnailAtDecode: DecodeStrategy {
    public init() {}
    public var kind: StrategyKind { .thumbnail }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let shrunk = try VipsImageHandle.thumbnail(source.data, size: target.longestSide, failOnError: true)
            .orCorrupt(source)
        let rgba = try shrunk.toSRGBA().orCorrupt(source)
        let upright = try rgba.autorotated(orientation: source.header.orientation).orCorrupt(source)
        return DecodedImage(strategy: kind, image: try upright.materialized().orCorrupt(source))
    }
}
