import Foundation

/// What to make of one image: a thumbnail per target, in one format.
public struct ThumbnailRequest: Sendable, Hashable, Codable {
    public var targets: [DecodeTarget]
    public var format: OutputFormat
    public var quality: Int
    public var limits: DecodeLimits

    public init(targets: [DecodeTarget], format: OutputFormat = .jpeg, quality: Int = 82, limits: DecodeLimits = .default) {
        self.targets = targets
        self.format = format
        self.quality = quality
        self.limits = limits
    }
}

/// Where the encoded image is: downloaded bytes, or a file the decoder reads
/// itself (so that `warm thumbnail` never copies a file through a pipe).
public enum ThumbnailInput: Sendable {
    case bytes(Data)
    case file(path: String)

    /// The encoded bytes, refusing a file over the limit before reading it.
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

/// The thumbnails of one image, in the order of the request's targets.
public struct Thumbnails: Sendable {
    public var header: ImageHeader
    public var images: [EncodedImage]

    public init(header: ImageHeader, images: [EncodedImage]) {
        self.header = header
        self.images = images
    }

    /// Sniffs, checks the limits, decodes and encodes, in the calling thread.
    /// CPU-bound and blocking: the decoders call it from their own threads.
    public static func make(from input: ThumbnailInput, _ request: ThumbnailRequest) throws(DownsampleError) -> Thumbnails {
        let source = try ImageSource(data: try input.load(limits: request.limits), limits: request.limits)
        let images = try ThumbnailEncoder(format: request.format, quality: request.quality).encode(source, targets: request.targets)
        return Thumbnails(header: source.header, images: images)
    }
}

/// The decode stage's boundary: encoded image in, thumbnails out. Implemented
/// in this process (`InProcessDecoder`) or by worker processes
/// (`DecodeWorkerPool`); both bound their own concurrency and keep the
/// blocking work off Swift's cooperative thread pool.
public protocol ThumbnailDecoding: Sendable {
    func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError>
    /// Stops the decoder's threads (and processes); call once, after the last request.
    func shutdown() async
}
