import Foundation
import WarmSupport

public struct EncodedImage: Sendable, Hashable, Codable {
    public var data: Data
    public var size: PixelSize
    public var format: OutputFormat
    /// Process CPU time of the encode alone; for the direct JPEG path, of its one decode-resize-encode call.
    public var encodeCPUSeconds: Double?

    public init(data: Data, size: PixelSize, format: OutputFormat, encodeCPUSeconds: Double? = nil) {
        self.data = data
        self.size = size
        self.format = format
        self.encodeCPUSeconds = encodeCPUSeconds
    }
}
