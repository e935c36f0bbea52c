import Foundation
import WarmSupport

/// Every format is written with every metadata block stripped (no EXIF, GPS, XMP or ICC: pixels are sRGB).
extension OutputFormat {
    /// `quality` as every encoder takes it, libvips' savers and the direct path's: 1...100.
    static func encoderQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }

    /// libvips' saver suffix for this format, metadata stripped by the saver; `quality` is JPEG's. Nil for WebP,
    /// which libwebp encodes directly (`EncoderSettings.libwebp`).
    func saverSuffix(quality: Int, settings: EncoderSettings) -> String? {
        let q = Self.encoderQuality(quality)
        switch self {
        case .jpeg: return ".jpg[Q=\(q),strip,optimize_coding]"
        case .webp: return nil
        // libvips 8.14's buffer saver knows `.heif`, not `.avif`: compression=av1 makes it AVIF (brand `avif`).
        case .avif:
            let effort = min(9, max(0, settings.avifEffort))
            return ".heif[Q=\(Self.encoderQuality(settings.avifQuality)),effort=\(effort),subsample_mode=auto,compression=av1,bitdepth=8,strip]"
        case .png: return ".png[strip,compression=6]"
        }
    }

    /// Encodes `image`; alpha is flattened onto white for JPEG and dropped when opaque everywhere (smaller files).
    func encode(_ image: VipsImageHandle, quality: Int, settings: EncoderSettings = .default) throws(DownsampleError) -> Data {
        try vips(or: { .encodeFailed(format: rawValue, reason: $0) }) {
            let flatten = try image.hasAlpha && (self == .jpeg || image.isOpaque())
            let ready = try flatten ? image.flattenedOnWhite() : image
            guard let suffix = saverSuffix(quality: quality, settings: settings) else { return try ready.webpEncoded(settings.libwebp) }
            return try ready.encoded(suffix: suffix)
        }
    }
}
