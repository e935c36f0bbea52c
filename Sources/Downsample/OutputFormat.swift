import Foundation

/// Thumbnail encodings, all written with every metadata block stripped (no EXIF, GPS, XMP or ICC: pixels are sRGB).
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, webp, avif, png

    /// AVIF's own quality (`--quality` is JPEG's and WebP's scale); why 60 at effort 2: bench/findings.md section 13.
    public static let avifQuality = 60

    /// Formats named in a list such as `jpeg,webp,avif`, each once; nil when a name is unknown or the list is empty.
    public static func list(_ text: String) -> [OutputFormat]? {
        var formats: [OutputFormat] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let format = trimmed == "jpg" ? .jpeg : OutputFormat(rawValue: trimmed) else { return nil }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats.isEmpty ? nil : formats
    }

    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The format of a cache variant's file extension (`jpg` is JPEG).
    public init?(fileExtension: String) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
        self = format
    }
}

extension OutputFormat {
    /// `quality` as every encoder takes it, libvips' savers and the direct path's: 1...100.
    static func encoderQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }

    /// libvips' saver suffix for this format, metadata stripped by the saver.
    func saverSuffix(quality: Int) -> String {
        let q = Self.encoderQuality(quality)
        switch self {
        case .jpeg: return ".jpg[Q=\(q),strip,optimize_coding]"
        case .webp: return ".webp[Q=\(q),strip]"
        // libvips 8.14's buffer saver knows `.heif`, not `.avif`: compression=av1 makes it AVIF (brand `avif`).
        case .avif: return ".heif[Q=\(Self.avifQuality),effort=2,subsample_mode=auto,compression=av1,bitdepth=8,strip]"
        case .png: return ".png[strip,compression=6]"
        }
    }

    /// Encodes `image`; alpha is flattened onto white for JPEG and dropped when opaque everywhere (smaller files).
    func encode(_ image: VipsImageHandle, quality: Int) throws(DownsampleError) -> Data {
        try vips(or: { .encodeFailed(format: rawValue, reason: $0) }) {
            let flatten = try image.hasAlpha && (self == .jpeg || image.isOpaque())
            let encoded = try (flatten ? image.flattenedOnWhite() : image).encoded(suffix: saverSuffix(quality: quality))
            // libvips 8.14's WebP saver writes a small EXIF chunk even with `strip`.
            return self == .webp ? WebPChunkStripper.strip(encoded) : encoded
        }
    }
}
