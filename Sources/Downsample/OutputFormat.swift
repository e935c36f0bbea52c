import Foundation

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

extension OutputFormat {
    /// `quality` as every encoder takes it, libvips' savers and the direct path's: 1...100.
    static func encoderQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }

    /// libvips' saver suffix for this format, metadata stripped by the saver.
    func saverSuffix(quality: Int) -> String {
        let q = Self.encoderQuality(quality)
        switch self {
        case .jpeg: return ".jpg[Q=\(q),strip,optimize_coding]"
        case .webp: return ".webp[Q=\(q),strip]"
        case .png: return ".png[strip,compression=6]"
        }
    }

    /// The saver's output made metadata-free: libvips 8.14's WebP saver
    /// writes a small EXIF chunk even with `strip`.
    func finished(_ encoded: Data) -> Data {
        self == .webp ? WebPChunkStripper.strip(encoded) : encoded
    }

    /// Encodes `image` in this format, metadata stripped by the saver. JPEG
    /// has no alpha, so alpha is flattened onto white; WebP and PNG keep it
    /// unless it is opaque everywhere (then it is dropped: smaller files).
    func encode(_ image: VipsImageHandle, quality: Int) throws(DownsampleError) -> Data {
        func fail(_ reason: String) -> DownsampleError { .encodeFailed(format: rawValue, reason: reason) }
        var output = image
        if image.hasAlpha {
            let flatten: Bool
            switch self == .jpeg ? .success(true) : image.isOpaque() {
            case .success(let value): flatten = value
            case .failure(let failure): throw fail(failure.message)
            }
            if flatten {
                switch image.flattened() {
                case .success(let flat): output = flat
                case .failure(let failure): throw fail(failure.message)
                }
            }
        }
        switch output.encoded(suffix: saverSuffix(quality: quality)) {
        case .success(let data): return finished(data)
        case .failure(let failure): throw fail(failure.message)
        }
    }
}
