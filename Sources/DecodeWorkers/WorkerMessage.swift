import Downsample
import Foundation

/// Thumbnails of the image in the frame's blob, or of the file at `path`.
struct WorkerCall: Codable {
    var request: ThumbnailRequest
    var path: String?
}

/// For `.thumbnails` the frame's blobs are the images' bytes in order (the images travel with empty `data`).
enum WorkerAnswer: Codable {
    case thumbnails(header: ImageHeader, images: [EncodedImage], placeholder: ImagePlaceholder?)
    case failed(DownsampleError)
}
