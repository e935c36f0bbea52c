import Foundation

/// An encoded thumbnail, ready to write: its bytes and pixel size.
public struct EncodedImage: Sendable, Hashable {
    public var data: Data
    public var size: PixelSize
    public var format: OutputFormat

    public init(data: Data, size: PixelSize, format: OutputFormat) {
        self.data = data
        self.size = size
        self.format = format
    }
}
