import Downsample
import Foundation

/// What the parent asks a decode worker: thumbnails of the image in the
/// frame's blob, or of the file at `path`.
struct WorkerCall: Codable {
    var request: ThumbnailRequest
    var path: String?
}

/// A worker's answer. For `.thumbnails` the frame's blobs are the encoded
/// images' bytes, in the request's order (the images travel with empty `data`).
enum WorkerAnswer: Codable {
    case thumbnails(header: ImageHeader, images: [EncodedImage], placeholder: ImagePlaceholder?)
    case failed(DownsampleError)
}
