import Downsample
import Foundation

/// Images carrying EXIF: phone-like metadata, and EXIF that is oversized or malformed.
extension HostileImages {
    /// `jpeg` with an APP1 segment holding `payload` (`Exif\0\0` + TIFF) right after SOI.
    public static func jpeg(_ jpeg: Data, withExif payload: Data) -> Data {
        precondition(payload.count <= 65_533, "an APP1 segment holds at most 65,533 bytes")
        let length = payload.count + 2
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(payload)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// A still WebP rewritten in the extended format (VP8X) with an EXIF chunk
    /// holding `tiff`, as phones and image editors write it.
    public static func webp(_ webp: Data, withExif tiff: Data, width: Int, height: Int) -> Data {
        var chunks = riffChunks(webp).filter { !["VP8X", "EXIF", "XMP "].contains($0.fourCC) }.map { ($0.fourCC, Array($0.bytes.dropFirst(8).prefix($0.size))) }
        let alpha = chunks.contains { $0.0 == "ALPH" || $0.0 == "VP8L" }
        var vp8x: [UInt8] = [0x08 | (alpha ? 0x10 : 0), 0, 0, 0]  // flags: EXIF (and alpha)
        vp8x += le24(width - 1) + le24(height - 1)
        chunks.insert(("VP8X", vp8x), at: 0)
        chunks.append(("EXIF", [UInt8](tiff)))
        return riff(chunks)
    }

    /// An APP1 EXIF payload whose IFD claims 65,535 entries and points its
    /// data far outside the block.
    public static func malformedExifPayload() -> Data {
        var tiff: [UInt8] = Array("II".utf8) + [42, 0] + ExifBlockBuilder.le32(8) + [0xFF, 0xFF]
        // A few entries whose counts and offsets point far beyond the block.
        for tag: UInt16 in [0x010F, 0x0112, 0x8769, 0x8825] {
            tiff += ExifBlockBuilder.le16(Int(tag)) + ExifBlockBuilder.le16(2)
                + ExifBlockBuilder.le32(0x7FFF_FFFF) + ExifBlockBuilder.le32(0x7FFF_0000)
        }
        return Data("Exif\0\0".utf8) + Data(tiff)
    }

    /// A phone photo stored sideways (4:3 sensor, tag 6) with make, model, date and GPS.
    public static func phoneJPEGWithGPS() throws(DownsampleError) -> Data {
        let stored = try jpeg(width: 320, height: 240)
        return jpeg(stored, withExif: ExifBlockBuilder(orientation: 6).app1Payload())
    }

    /// A WebP with make, model, date and GPS in an EXIF chunk.
    public static func phoneWebPWithGPS() throws(DownsampleError) -> Data {
        let still = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 320, height: 240), width: 320, height: 240,
                                             bands: 3, as: CompositionEncoding(format: .webp, quality: 85))
        return webp(still, withExif: ExifBlockBuilder(orientation: 1).tiff(), width: 320, height: 240)
    }
}
