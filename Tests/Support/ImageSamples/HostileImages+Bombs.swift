import Downsample
import Foundation

/// Decompression bombs: headers declaring far more pixels than the few bytes hold.
extension HostileImages {
    /// A PNG whose IHDR declares `width` x `height` (with a valid CRC) but whose
    /// data is that of a 1x1 image: a decompression bomb's header in a few bytes.
    public static func pngDeclaring(width: Int, height: Int) throws(DownsampleError) -> Data {
        var png = [UInt8](try ImageComposer.encode(pixels: [0, 0, 0], width: 1, height: 1, bands: 3,
                                                    as: CompositionEncoding(format: .png)))
        // IHDR: length(4) "IHDR"(4) at offset 8; width at 16, height at 20, CRC at 29.
        func put32(_ value: Int, at offset: Int) {
            for k in 0..<4 { png[offset + k] = UInt8((value >> (24 - 8 * k)) & 0xFF) }
        }
        put32(width, at: 16)
        put32(height, at: 20)
        put32(Int(crc32(png[12..<29])), at: 29)
        return Data(png)
    }

    /// A baseline JPEG whose SOF0 marker is patched to declare `width` x `height`
    /// (at most 65535 each, the field's width).
    public static func jpegDeclaring(width: Int, height: Int) throws(DownsampleError) -> Data {
        var jpeg = [UInt8](try self.jpeg(width: 16, height: 16))
        var i = 2
        while i + 9 < jpeg.count {
            guard jpeg[i] == 0xFF else { i += 1; continue }
            let marker = jpeg[i + 1]
            if marker == 0xC0 || marker == 0xC2 {
                jpeg[i + 5] = UInt8(height >> 8 & 0xFF); jpeg[i + 6] = UInt8(height & 0xFF)
                jpeg[i + 7] = UInt8(width >> 8 & 0xFF); jpeg[i + 8] = UInt8(width & 0xFF)
                return Data(jpeg)
            }
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            i += 2 + length
        }
        throw .encodeFailed(format: "jpeg", reason: "no SOF marker to patch")
    }

    /// An animated WebP whose canvas (VP8X) declares `width` x `height` and
    /// holds one 16x16 frame: valid by the WebP container spec, and a decoder
    /// that renders frames onto the canvas would allocate all of it.
    public static func animatedWebPDeclaring(width: Int, height: Int) throws(DownsampleError) -> Data {
        let still = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 16, height: 16), width: 16, height: 16,
                                             bands: 3, as: CompositionEncoding(format: .webp))
        let frame = riffChunks(still).filter { $0.fourCC == "VP8 " || $0.fourCC == "VP8L" }.map(\.bytes).joined()
        var vp8x: [UInt8] = [0x02, 0, 0, 0]  // flags: animation
        vp8x += le24(width - 1) + le24(height - 1)
        let anim: [UInt8] = [0, 0, 0, 0, 0, 0]  // background colour, loop count
        var anmf: [UInt8] = le24(0) + le24(0) + le24(15) + le24(15) + le24(100) + [0]
        anmf += frame
        return riff([("VP8X", vp8x), ("ANIM", anim), ("ANMF", anmf)])
    }

    /// A 16x16 GIF whose logical screen (the canvas frames are drawn on) declares `width` x `height`.
    public static func gifDeclaring(width: Int, height: Int) throws(DownsampleError) -> Data {
        var gif = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 16, height: 16), width: 16, height: 16,
                                           bands: 3, as: CompositionEncoding(format: .gif))
        let start = gif.startIndex
        gif.replaceSubrange(start + 6..<start + 10, with: [UInt8(width & 0xFF), UInt8(width >> 8 & 0xFF),
                                                           UInt8(height & 0xFF), UInt8(height >> 8 & 0xFF)])
        return gif
    }

    /// zlib's CRC-32, written out because only one PNG chunk needs it.
    public static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
