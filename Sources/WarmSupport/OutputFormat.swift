import Foundation

/// The formats `warm` writes and serves: thumbnails in the cache, the app manifest's `format`, `--formats`, the
/// origin's `format=`. The one place a format's name, file extension and media type are written (`jpg` is JPEG's
/// extension, `jpeg` its name). Not Downsample's `ImageFormat`, which is what a source's bytes are sniffed as and
/// includes formats `warm` only reads (GIF, HEIF, TIFF).
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, webp, avif, png

    /// Each format once, in the order first given (`--format webp,jpeg,webp` is WebP, then JPEG).
    public static func distinct(_ formats: [OutputFormat]) -> [OutputFormat] {
        formats.reduce(into: []) { distinct, format in
            if !distinct.contains(format) { distinct.append(format) }
        }
    }

    /// The file extension of a cache file and of a cache variant's name (`300.jpg`).
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    public var mediaType: String { "image/\(rawValue)" }

    /// A name as people write it: `jpeg` (or its extension, `jpg`), `webp`, `avif`, `png`, any case.
    public init?(name: String) {
        let lower = name.lowercased()
        guard let format = Self.allCases.first(where: { $0.rawValue == lower || $0.fileExtension == lower }) else { return nil }
        self = format
    }

    /// The format of a file extension exactly as the cache writes it (lowercase); nil for any other.
    public init?(fileExtension: String) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
        self = format
    }

    /// Formats named in a list such as `jpeg,webp,avif`, each once; nil when a name is unknown or the list is empty.
    public static func list(_ text: String) -> [OutputFormat]? {
        var formats: [OutputFormat] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let format = OutputFormat(name: name.trimmingCharacters(in: .whitespaces)) else { return nil }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats.isEmpty ? nil : formats
    }
}
