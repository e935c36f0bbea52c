/// Here rather than in Downsample so that Cache, which must not import the decoder, names sizes with the same type.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)" }
}
