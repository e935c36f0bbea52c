import Foundation

/// A decoded, upright, 8-bit sRGB RGBA bitmap held in memory, as a memory cache
/// would hold it. Its size is read from the bitmap libvips actually allocated.
public struct DecodedImage: Sendable {
    public let strategy: StrategyKind
    let image: VipsImageHandle

    init(strategy: StrategyKind, image: VipsImageHandle) {
        self.strategy = strategy
        self.image = image
    }

    public var width: Int { image.width }
    public var height: Int { image.height }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    /// Always 4 (RGBA).
    public var bands: Int { image.bands }
    /// Bytes of the bitmap this image holds: width x height x 4.
    public var retainedBytes: Int { image.bitmapBytes }

    /// A copy of the RGBA pixels, row-major (4 bytes per pixel).
    public func rgbaPixels() -> [UInt8] { image.pixelBytes ?? [] }

    /// Encodes with all metadata stripped. JPEG has no alpha, so transparent
    /// pixels are flattened onto white; WebP and PNG keep alpha unless opaque.
    public func encoded(as format: OutputFormat, quality: Int = 82) throws(DownsampleError) -> Data {
        switch image.strippedOfMetadata() {
        case .success(let stripped): return try format.encode(stripped, quality: quality)
        case .failure(let failure): throw .encodeFailed(format: format.rawValue, reason: failure.message)
        }
    }
}
