import Foundation
import WarmSupport

/// What to make of one image: a thumbnail per target in each format, and optionally its placeholder.
public struct ThumbnailRequest: Sendable, Hashable, Codable {
    var targets: [DecodeTarget]
    public var formats: [OutputFormat]
    /// Every format's quality, and WebP's and AVIF's effort.
    var settings: EncoderSettings
    var limits: DecodeLimits
    var placeholder: Bool

    public init(targets: [DecodeTarget], formats: [OutputFormat] = [.jpeg], settings: EncoderSettings = .default,
                limits: DecodeLimits = .default, placeholder: Bool = false) {
        self.targets = targets
        self.formats = formats
        self.settings = settings
        self.limits = limits
        self.placeholder = placeholder
    }

    var encoder: ThumbnailEncoder { ThumbnailEncoder(formats: formats, settings: settings) }
}

/// Downloaded bytes, or a file the decoder reads itself (so `warm thumbnail` never copies a file through a pipe).
public enum ThumbnailInput: Sendable, Codable {
    case bytes(Data)
    case file(path: String)

    /// Refuses a file over the limit before reading it.
    func load(limits: DecodeLimits) throws(DownsampleError) -> Data {
        switch self {
        case .bytes(let data):
            return data
        case .file(let path):
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                if let bytes = attributes[.size] as? Int, bytes > limits.maxEncodedBytes {
                    throw DownsampleError.tooManyBytes(byteCount: bytes, limit: limits.maxEncodedBytes)
                }
                return try Data(contentsOf: URL(fileURLWithPath: path))
            } catch let error as DownsampleError {
                throw error
            } catch {
                throw .unreadableInput(reason: error.localizedDescription)
            }
        }
    }
}

/// The thumbnails of one image: for each target in order, one per format in `ThumbnailEncoder.formats`' order.
public struct Thumbnails: Sendable, Codable {
    public var header: ImageHeader
    public var images: [EncodedImage]
    public var placeholder: ImagePlaceholder?

    init(header: ImageHeader, images: [EncodedImage], placeholder: ImagePlaceholder? = nil) {
        self.header = header
        self.images = images
        self.placeholder = placeholder
    }

    /// Sniffs, checks the limits, decodes and encodes. Blocking: the decoders call it from their own threads.
    static func make(from input: ThumbnailInput, _ request: ThumbnailRequest) throws(DownsampleError) -> Thumbnails {
        let source = try ImageSource(data: try input.load(limits: request.limits), limits: request.limits)
        return try request.encoder.thumbnails(source, targets: request.targets, placeholder: request.placeholder)
    }
}

/// The decode stage's boundary (`InProcessDecoder`, `DecodeWorkerPool`); each bounds its own concurrency and keeps
/// the blocking work off Swift's cooperative thread pool.
public protocol ThumbnailDecoding: Sendable {
    func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError>
    /// Stops the decoder's threads (and processes); call once, after the last request.
    func shutdown() async
}
