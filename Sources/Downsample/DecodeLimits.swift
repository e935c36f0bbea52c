/// Checked from the encoded size and header before any pixel is decoded, so a decompression bomb is refused
/// without allocating what it declares.
public struct DecodeLimits: Sendable, Hashable, Codable {
    /// Largest width x height accepted (default 50 megapixels).
    public var maxPixels: Int
    /// Largest encoded input accepted, in bytes (default 64 MiB).
    public var maxEncodedBytes: Int

    public init(maxPixels: Int = 50_000_000, maxEncodedBytes: Int = 64 << 20) {
        self.maxPixels = maxPixels
        self.maxEncodedBytes = maxEncodedBytes
    }

    public static let `default` = DecodeLimits()
}
