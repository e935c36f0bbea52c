import WarmSupport

public typealias PixelSize = WarmSupport.PixelSize

/// The size an image is shown at: its upright output's longest side; a smaller image is never upscaled.
public struct DecodeTarget: Sendable, Hashable, Codable {
    public var longestSide: Int

    /// The size every command defaults to (`--size`): a product grid's cell on a phone, at 2x or 3x.
    public static let defaultLongestSide = 300

    public init(longestSide: Int) {
        precondition(longestSide > 0, "the target size must be positive")
        self.longestSide = longestSide
    }

    public func outputSize(for header: ImageHeader) -> PixelSize {
        outputSize(upright: PixelSize(width: header.uprightWidth, height: header.uprightHeight))
    }

    /// For a metrics record made from a cache entry, which has sizes but no header.
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
