import Foundation

/// An upright 8-bit sRGB RGBA bitmap as a memory cache would hold it; its size is what libvips allocated.
public struct DecodedImage: Sendable {
    let strategy: StrategyKind
    let image: VipsImageHandle
    /// Pixels decoded from the source to make it (`EncodedImage.decodedPixels`); the full stored size for naive and
    /// renderer, whose loaders decode every pixel.
    public var decodedPixels: Int?

    public var width: Int { image.width }
    public var height: Int { image.height }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var bands: Int { image.bands }
    /// Bytes of the bitmap this image holds: width x height x 4.
    public var retainedBytes: Int { image.bitmapBytes }

    public func rgbaPixels() -> [UInt8] { image.pixelBytes ?? [] }
}
