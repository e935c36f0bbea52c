import Foundation
import WarmSupport

/// Every format is written with every metadata block stripped (no EXIF, GPS, XMP or ICC: pixels are sRGB).
extension OutputFormat {
    /// `quality` as every encoder takes it, libvips' savers and the direct path's: 1...100.
    static func encoderQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }

    /// Encodes `image`; alpha is flattened onto white for JPEG and dropped when opaque everywhere (smaller files).
    func encode(_ image: VipsImageHandle, quality: Int, settings: EncoderSettings = .default) throws(DownsampleError) -> Data {
        try vips(or: { .encodeFailed(format: rawValue, reason: $0) }) {
            let flatten = try image.hasAlpha && (self == .jpeg || image.isOpaque())
            let ready = try flatten ? image.flattenedOnWhite() : image
            switch self {
            case .jpeg: return try ready.encoded(suffix: ".jpg[Q=\(Self.encoderQuality(quality)),strip,optimize_coding]")
            case .png: return try ready.encoded(suffix: ".png[strip,compression=6]")
            case .webp: return try ready.webpEncoded(settings.libwebp)
            case .avif: return try ready.avifEncoded(settings.libheif)
            }
        }
    }
}
