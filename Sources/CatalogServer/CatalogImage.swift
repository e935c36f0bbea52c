import Downsample
import Hummingbird

/// One encoded image of the catalog, with its HTTP validators.
public struct CatalogImage: Sendable {
    /// What it imitates: "server-thumbnail", "phone-photo-exif6", "screenshot-png"...
    public var kind: String
    public var format: ImageFormat
    /// Size as a viewer shows it (after the EXIF orientation).
    public var uprightSize: PixelSize
    public var orientationTag: Int?
    public var progressive: Bool
    /// Cut from a synthetic pattern because no photo was available.
    public var synthetic: Bool
    public var bytes: ByteBuffer
    /// Strong, from a content hash (FNV-1a 64), quotes included.
    public var etag: String
    /// Fixed per image key, so revalidation is stable across runs.
    public var lastModified: String

    public var byteCount: Int { bytes.readableBytes }
    public var contentType: String { "image/\(format.rawValue)" }
}
