/// Why a ThumbHash could not be made or read; the caller adds which image it was.
public enum ThumbHashError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyImage(width: Int, height: Int)
    case tooLarge(width: Int, height: Int, maxSide: Int)
    case wrongPixelByteCount(width: Int, height: Int, byteCount: Int)
    case truncatedHash(byteCount: Int, expectedByteCount: Int)

    public var description: String {
        switch self {
        case .emptyImage(let width, let height):
            return "a ThumbHash needs at least one pixel, the image is \(width)x\(height)"
        case .tooLarge(let width, let height, let maxSide):
            return "the image is \(width)x\(height), larger than the \(maxSide)x\(maxSide) a ThumbHash is made from; downsize it first"
        case .wrongPixelByteCount(let width, let height, let byteCount):
            return "a \(width)x\(height) RGBA image has \(width * height * 4) bytes, the buffer has \(byteCount)"
        case .truncatedHash(let byteCount, let expected):
            return "the ThumbHash is \(byteCount) bytes, its header needs \(expected)"
        }
    }
}
