/// One thumbnail file as `CacheReader` read it: the bytes of one open
/// descriptor, their SHA-256 and the file's modification time. The digest is
/// of exactly these bytes, so a server that sends `bytes` with `sha256Hex` as
/// its ETag can never send a body that does not match its ETag, whatever a
/// writer renames over the path meanwhile.
public struct CachedFile: Sendable {
    public var variant: CacheVariant
    public var bytes: [UInt8]
    /// Lowercase hex SHA-256 of `bytes` (64 digits).
    public var sha256Hex: String
    /// Whole seconds since 1970 (UTC) of the file's last modification (its install).
    public var modifiedAtSeconds: Int

    /// The ETag `warm cache serve` sends for these bytes (and the app manifest lists).
    public var etag: String { Self.etag(sha256Hex: sha256Hex) }

    /// A strong ETag of 128 bits of the SHA-256: `"` + its first 32 hex digits + `"`.
    public static func etag(sha256Hex: String) -> String { "\"" + sha256Hex.prefix(32) + "\"" }
}
