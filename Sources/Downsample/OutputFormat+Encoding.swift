import Foundation
import WarmSupport

/// Every format is written with every metadata block stripped (no EXIF, GPS, XMP or ICC: pixels are sRGB).
extension OutputFormat {
    /// `quality` as every encoder takes it, libvips' savers and the direct path's: 1...100.
    static func encoderQuality(_ quality: Int) -> Int { min(100, max(1, quality)) }

    /// libvips' saver suffix for this format, metadata stripped by the saver; `quality` is JPEG's.
    func saverSuffix(quality: Int, settings: EncoderSettings) -> String {
        let q = Self.encoderQuality(quality)
        switch self {
        case .jpeg: return ".jpg[Q=\(q),strip,optimize_coding]"
        case .webp: return ".webp[Q=\(Self.encoderQuality(settings.webpQuality)),effort=\(EncoderSettings.webpMethod),strip]"
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
            let encoded = try (flatten ? image.flattenedOnWhite() : image).encoded(suffix: saverSuffix(quality: quality, settings: settings))
            // libvips 8.14's WebP saver writes a small EXIF chunk even with `strip`.
            return self == .webp ? strippingWebPMetadata(encoded) : encoded
        }
    }
}

/// Removes EXIF and XMP chunks from a WebP: libvips 8.14's webpsave adds an EXIF chunk even with `strip`,
/// and cached thumbnails must carry none. Image data is copied untouched.
private func strippingWebPMetadata(_ webp: Data) -> Data {
    guard ImageFormat.sniff(webp) == .webp else { return webp }
    let bytes = [UInt8](webp)
    var chunks: [UInt8] = []
    var offset = 12
    while offset + 8 <= bytes.count {
        let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
        let padded = size + (size & 1)
        guard offset + 8 + padded <= bytes.count || offset + 8 + size == bytes.count else { return webp }
        let end = min(bytes.count, offset + 8 + padded)
        var chunk = Array(bytes[offset..<end])
        if fourCC == "VP8X", chunk.count > 8 {
            chunk[8] &= ~UInt8(0x08 | 0x04)  // clear the EXIF and XMP flags
        }
        if fourCC != "EXIF" && fourCC != "XMP " { chunks += chunk }
        offset = end
    }
    let riffSize = withUnsafeBytes(of: UInt32(4 + chunks.count).littleEndian, Array.init)
    return Data(Array("RIFF".utf8) + riffSize + Array("WEBP".utf8) + chunks)
}
