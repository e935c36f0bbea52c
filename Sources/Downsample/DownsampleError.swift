import Foundation

/// Why an image could not be read, decoded or encoded; callers add which image (file, URL, product).
public enum DownsampleError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    // What each case means is its `description`.
    case empty
    case tooManyBytes(byteCount: Int, limit: Int)
    case notAnImage(looksLike: String?)
    case tooManyPixels(format: ImageFormat, width: Int, height: Int, limit: Int)
    case unreadableHeader(format: ImageFormat, reason: String)
    case corrupt(format: ImageFormat, width: Int, height: Int, reason: String)
    case encodeFailed(format: String, reason: String)
    case libraryUnavailable(reason: String)
    case unreadableInput(reason: String)
    case decoderCrashed(signal: Int32, memoryLimitBytes: Int?)
    case overMemoryLimit(limitBytes: Int, reason: String)
    case decoderTimedOut(seconds: Double)
    case decoderUnavailable(reason: String)
    case decoderProtocolError(reason: String)

    public var description: String {
        switch self {
        case .empty:
            return "the data is empty (0 bytes)"
        case .tooManyBytes(let count, let limit):
            return "the encoded image is \(count) bytes, over the \(limit)-byte limit (max encoded size)"
        case .notAnImage(let guess):
            return "the data is not an image" + (guess.map { " (it looks like \($0))" } ?? " (unknown signature)")
        case .tooManyPixels(let format, let width, let height, let limit):
            return "the \(format.rawValue) header declares \(width)x\(height) = \(width * height) pixels, over the \(limit)-pixel limit (max pixels)"
        case .unreadableHeader(let format, let reason):
            return "the \(format.rawValue) header cannot be read: \(reason)"
        case .corrupt(let format, let width, let height, let reason):
            return "the \(width)x\(height) \(format.rawValue) image is corrupt or truncated: \(reason)"
        case .encodeFailed(let format, let reason):
            return "encoding \(format) failed: \(reason)"
        case .libraryUnavailable(let reason):
            return "libvips could not be started: \(reason)"
        case .unreadableInput(let reason):
            return "cannot be read: \(reason)"
        case .decoderCrashed(let signal, let limit):
            let name = String(cString: strsignal(signal))
            let cause = limit.map { ", possibly over its \($0)-byte memory limit (decoder memory limit)" } ?? ""
            return "the decoder process died on this image (signal \(signal), \(name))\(cause); it was restarted for the next image"
        case .overMemoryLimit(let limit, let reason):
            return "decoding needs more memory than the decoder's \(limit)-byte limit (decoder memory limit): \(reason)"
        case .decoderTimedOut(let seconds):
            return "decoding took longer than \(seconds) s (decode timeout); the decoder process was killed and restarted"
        case .decoderUnavailable(let reason):
            return "no decoder is available: \(reason)"
        case .decoderProtocolError(let reason):
            return "the decoder process's answer was not a valid frame (\(reason)); it was killed and restarted"
        }
    }

    /// A short, stable token for grouping failures ("too-many-pixels", ...).
    public var reasonCode: String {
        switch self {
        case .empty: return "empty"
        case .tooManyBytes: return "too-many-bytes"
        case .notAnImage: return "not-an-image"
        case .tooManyPixels: return "too-many-pixels"
        case .unreadableHeader: return "unreadable-header"
        case .corrupt: return "corrupt"
        case .encodeFailed: return "encode-failed"
        case .libraryUnavailable: return "library-unavailable"
        case .unreadableInput: return "unreadable"
        case .decoderCrashed: return "decoder-crashed"
        case .overMemoryLimit: return "over-memory-limit"
        case .decoderTimedOut: return "decoder-timeout"
        case .decoderUnavailable: return "decoder-unavailable"
        case .decoderProtocolError: return "decoder-protocol-error"
        }
    }
}
