/// The small image a ThumbHash renders to (at most 32 pixels a side), straight RGBA,
/// 8 bits a channel, row by row.
public struct ThumbHashImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }
}
