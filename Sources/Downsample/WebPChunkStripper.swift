import Foundation

/// Removes EXIF and XMP chunks from a WebP: libvips 8.14's webpsave adds an EXIF chunk even with `strip`,
/// and cached thumbnails must carry none. Image data is copied untouched.
enum WebPChunkStripper {
    static func strip(_ webp: Data) -> Data {
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
        let riffSize = UInt32(4 + chunks.count)
        var out = Array("RIFF".utf8)
        out += [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), UInt8(riffSize >> 24 & 0xFF)]
        out += Array("WEBP".utf8) + chunks
        return Data(out)
    }
}
