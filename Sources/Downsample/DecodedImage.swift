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
}
