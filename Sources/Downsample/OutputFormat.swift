/// Encodings for thumbnails written to disk. All of them are written with every
/// metadata block stripped (no EXIF, no GPS, no XMP, no ICC: pixels are sRGB).
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, webp, png

    /// File name extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .webp: return "webp"
        case .png: return "png"
        }
    }

    /// The format's MIME type, for HTTP servers that serve the cache.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .webp: return "image/webp"
        case .png: return "image/png"
        }
    }
}
