import Foundation
import WarmSupport

/// Every format is written with every metadata block stripped (no EXIF, GPS, XMP or ICC: pixels are sRGB).
extension OutputFormat {
    /// `quality` as every encoder takes it, libvips' savers and the direct path's: 1...100.
    static func encoderQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }

    /// libvips' saver suffix for JPEG and PNG, metadata stripped by the saver; `quality` is JPEG's. Nil for WebP and
    /// AVIF, which libwebp and libheif encode directly (`EncoderSettings.libwebp`, `.libheif`).
    func saverSuffix(quality: Int) -> String? {
        switch self {
        case .jpeg: return ".jpg[Q=\(Self.encoderQuality(quality)),strip,optimize_coding]"
        case .png: return ".png[strip,compression=6]"
        case .webp, .avif: return nil
        }
    }

    /// Encodes `image`; alpha is flattened onto white for JPEG and dropped when opaque everywhere (smaller files).
    func encode(_ image: VipsImageHandle, quality: Int, settings: EncoderSettings = .default) throws(DownsampleError) -> Data {
        try vips(or: { .encodeFailed(format: rawValue, reason: $0) }) {
            let flatten = try image.hasAlpha && (self == .jpeg || image.isOpaque())
            let ready = try flatten ? image.flattenedOnWhite() : image
            switch self {
            case .webp: return try ready.webpEncoded(settings.libwebp)
            case .avif: return try ready.avifEncoded(settings.libheif)
            case .jpeg, .png: return try ready.encoded(suffix: saverSuffix(quality: quality) ?? "")
            }
        }
    }
}
