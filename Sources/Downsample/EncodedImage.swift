import Foundation
import WarmSupport

public struct EncodedImage: Sendable, Hashable, Codable {
    public var data: Data
    public var size: PixelSize
    public var format: OutputFormat
    /// Process CPU time of the encode alone; for the direct JPEG path, of its one decode-resize-encode call.
    public var encodeCPUSeconds: Double?
    /// Pixels the decoders produced from the source to make this image (the one decode every format of a target
    /// shares): libjpeg's output after DCT scaling, the stored size of a PNG or WebP, a libvips loader's shrunk size.
    /// It is the thumbnail path's work, counted rather than timed: the same on any machine, load and build
    /// (`warm check` compares it). Nil in images that were not decoded from a source.
    public var decodedPixels: Int?

    public init(data: Data, size: PixelSize, format: OutputFormat, encodeCPUSeconds: Double? = nil, decodedPixels: Int? = nil) {
        self.data = data
        self.size = size
        self.format = format
        self.encodeCPUSeconds = encodeCPUSeconds
        self.decodedPixels = decodedPixels
    }
}
