/// Served formats, smallest first; not Downsample's `OutputFormat`, because the origin never links the decoders.
public enum ThumbnailFormat: String, Sendable, CaseIterable, Comparable {
    case avif, webp, jpeg, png

    /// The cache variant's file extension (`CacheVariant.format`).
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    public var mediaType: String { "image/\(rawValue)" }

    /// Only sent when named in `Accept`: clients that cannot decode them still send `*/*` or `image/*`.
    var needsExplicitAccept: Bool { self == .avif || self == .webp }

    /// A `format=` value: `avif`, `webp`, `jpeg` (or `jpg`), `png`, any case.
    public init?(name: String) {
        let lower = name.lowercased()
        self.init(rawValue: lower == "jpg" ? "jpeg" : lower)
    }

    /// The format of a cache variant's extension; nil for one the origin does not serve.
    public init?(fileExtension: String) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
        self = format
    }

    /// Preference order: declaration order.
    public static func < (lhs: ThumbnailFormat, rhs: ThumbnailFormat) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
