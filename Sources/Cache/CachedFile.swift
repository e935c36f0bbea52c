/// One thumbnail as `CacheReader` read it through one descriptor; the digest is of exactly these bytes, so a body
/// never mismatches its ETag, whatever a writer renames over the path meanwhile.
public struct CachedFile: Sendable {
    public var variant: CacheVariant
    public var bytes: [UInt8]
    public var sha256Hex: String
    /// Seconds since 1970 of the file's install.
    public var modifiedAtSeconds: Int

    /// The ETag `warm cache serve` sends for these bytes (and the app manifest lists).
    public var etag: String { Self.etag(sha256Hex: sha256Hex) }

    /// A strong ETag of 128 bits of the SHA-256.
    public static func etag(sha256Hex: String) -> String { "\"" + sha256Hex.prefix(32) + "\"" }
}
