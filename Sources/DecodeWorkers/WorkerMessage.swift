import Downsample
import Foundation

/// What the parent asks a decode worker. Images travel as frame blobs.
enum WorkerCall: Codable {
    /// Once, first: how the worker runs.
    case configure(WorkerSettings)
    /// Thumbnails of the image in the frame's blob, or of the file at `path`.
    case decode(ThumbnailRequest, path: String?)
}

/// How a worker process runs (sent in the first frame, so that the worker's
/// command line is only its subcommand name).
struct WorkerSettings: Codable, Sendable {
    /// RLIMIT_AS of the worker in bytes (nil: none): an image that needs more
    /// fails alone instead of taking the machine's memory.
    var memoryLimitBytes: Int?
    /// libvips' run-time SIMD code (ORC): safe in a process that runs one
    /// pipeline at a time.
    var vector: Bool
}

/// A worker's answer. For `.thumbnails` the frame's blobs are the encoded
/// images, in the request's order, each described by one `ImageFacts`.
enum WorkerAnswer: Codable {
    case ready
    case thumbnails(header: ImageHeader, images: [ImageFacts], placeholder: ImagePlaceholder?)
    case failed(DownsampleError)
}

/// An encoded image without its bytes (they travel as a blob).
struct ImageFacts: Codable, Sendable {
    var size: PixelSize
    var format: OutputFormat
    var encodeCPUSeconds: Double?

    init(_ image: EncodedImage) {
        (size, format, encodeCPUSeconds) = (image.size, image.format, image.encodeCPUSeconds)
    }

    func image(_ data: Data) -> EncodedImage {
        EncodedImage(data: data, size: size, format: format, encodeCPUSeconds: encodeCPUSeconds)
    }
}
