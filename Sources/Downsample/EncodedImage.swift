import Foundation

/// An encoded thumbnail, ready to write: its bytes and pixel size.
public struct EncodedImage: Sendable, Hashable, Codable {
    public var data: Data
    public var size: PixelSize
    public var format: OutputFormat
    /// Process CPU time of the encode alone (`ProcessCPUTime`); for the
    /// direct JPEG path, which decodes, resizes and encodes in one call, of
    /// that call. nil when not measured.
    public var encodeCPUSeconds: Double?

    public init(data: Data, size: PixelSize, format: OutputFormat, encodeCPUSeconds: Double? = nil) {
        self.data = data
        self.size = size
        self.format = format
        self.encodeCPUSeconds = encodeCPUSeconds
    }
}
