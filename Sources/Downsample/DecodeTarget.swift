import WarmSupport

/// Width and height in pixels (defined in WarmSupport, which Cache shares).
public typealias PixelSize = WarmSupport.PixelSize

/// The size an image is shown at: its upright output's longest side, in pixels.
/// `DecodeTarget(longestSide: 300)` makes a 4032x3024 photo 300x225; an image
/// already smaller is never upscaled.
public struct DecodeTarget: Sendable, Hashable, Codable {
    public var longestSide: Int

    public init(longestSide: Int) {
        precondition(longestSide > 0, "the target size must be positive")
        self.longestSide = longestSide
    }

    /// The upright output size for an image with this header.
    public func outputSize(for header: ImageHeader) -> PixelSize {
        outputSize(upright: PixelSize(width: header.uprightWidth, height: header.uprightHeight))
    }

    /// The upright output size for an image of this upright size (a metrics
    /// record made from a cache entry has sizes but no header).
    public func outputSize(upright: PixelSize) -> PixelSize {
        let longest = max(upright.width, upright.height)
        guard longest > longestSide else { return upright }
        let scale = Double(longestSide) / Double(longest)
        func scaled(_ side: Int) -> Int {
            side == longest ? longestSide : max(1, Int((Double(side) * scale).rounded()))
        }
        return PixelSize(width: scaled(upright.width), height: scaled(upright.height))
    }
}
