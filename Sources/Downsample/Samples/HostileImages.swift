import Foundation

/// One hostile or odd image and what a correct decoder does with it.
public struct HostileSample: Sendable {
    public enum Outcome: Sendable, Hashable {
        /// Decodes to an image of this upright size (first frame of an animation).
        case decodes(upright: PixelSize)
        /// Refused with this `DownsampleError.reasonCode`.
        case refused(reasonCode: String)
    }

    /// A file-name-safe name ("bomb-png", "orientation-65535"), unique in a set.
    public var name: String
    public var data: Data
    public var outcome: Outcome
}

/// Hostile and odd encoded images, made in memory in a few milliseconds each:
/// truncated files, wrong magic bytes, decompression bombs (PNG, JPEG, WebP
/// and GIF headers declaring 30000x30000 in a few hundred bytes), oversized and malformed EXIF,
/// orientations outside 1...8, CMYK, 16-bit, animations, empty bodies, and
/// phone photos carrying GPS EXIF.
///
/// For tests (unit, end-to-end through a real server) and for the fuzzers'
/// seed corpora, like `ImageComposer` which it builds on.
public enum HostileImages {
    /// The whole set, each with its expected outcome under the default limits.
    public static func all() throws(DownsampleError) -> [HostileSample] {
        let photo = try jpeg(width: 320, height: 240)
        let png = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 300, height: 200), width: 300, height: 200,
                                           bands: 3, as: CompositionEncoding(format: .png))
        let quadrants = quadrantPixels(width: 200, height: 100)
        func tagged(_ orientation: Int) throws(DownsampleError) -> Data {
            let plain = try ImageComposer.encode(pixels: quadrants, width: 200, height: 100, bands: 3,
                                                 as: CompositionEncoding(format: .jpeg, quality: 90))
            return jpeg(plain, withExif: ExifBlockBuilder(orientation: orientation).app1Payload())
        }
        var hugeExif = ExifBlockBuilder(orientation: 1)
        hugeExif.commentBytes = 60_000
        var wrongMagic = photo
        wrongMagic.replaceSubrange(0..<4, with: [0x00, 0x00, 0x00, 0x00])
        var pngBehindJPEGMagic = Data([0xFF, 0xD8, 0xFF, 0xE0])
        pngBehindJPEGMagic.append(png.dropFirst(4))
        let frames = animationFrames(width: 120, height: 80, count: 3)

        return [
            HostileSample(name: "truncated-jpeg", data: photo.prefix(photo.count * 6 / 10),
                          outcome: .refused(reasonCode: "corrupt")),
            HostileSample(name: "truncated-png", data: png.prefix(png.count / 2), outcome: .refused(reasonCode: "corrupt")),
            HostileSample(name: "wrong-magic", data: wrongMagic, outcome: .refused(reasonCode: "not-an-image")),
            HostileSample(name: "png-behind-jpeg-magic", data: pngBehindJPEGMagic,
                          outcome: .refused(reasonCode: "unreadable-header")),
            HostileSample(name: "bomb-png", data: try pngDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "bomb-jpeg", data: try jpegDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "bomb-webp", data: try animatedWebPDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            // Under libwebp's own 16383-pixel limit: libvips would allocate this canvas (1 GB) in its header read.
            HostileSample(name: "bomb-webp-16000", data: try animatedWebPDeclaring(width: 16000, height: 16000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "bomb-gif", data: try gifDeclaring(width: 30000, height: 30000),
                          outcome: .refused(reasonCode: "too-many-pixels")),
            HostileSample(name: "empty", data: Data(), outcome: .refused(reasonCode: "empty")),
            HostileSample(name: "html-error-page", data: Data("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>".utf8),
                          outcome: .refused(reasonCode: "not-an-image")),
            HostileSample(name: "huge-exif", data: jpeg(photo, withExif: hugeExif.app1Payload()),
                          outcome: .decodes(upright: PixelSize(width: 320, height: 240))),
            HostileSample(name: "malformed-exif", data: jpeg(photo, withExif: malformedExifPayload()),
                          outcome: .decodes(upright: PixelSize(width: 320, height: 240))),
            HostileSample(name: "orientation-0", data: try tagged(0), outcome: .decodes(upright: PixelSize(width: 200, height: 100))),
            HostileSample(name: "orientation-9", data: try tagged(9), outcome: .decodes(upright: PixelSize(width: 200, height: 100))),
            HostileSample(name: "orientation-65535", data: try tagged(65535),
                          outcome: .decodes(upright: PixelSize(width: 200, height: 100))),
            HostileSample(name: "cmyk-jpeg", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120, bands: 3,
                as: CompositionEncoding(format: .jpeg, quality: 90, cmyk: true)),
                          outcome: .decodes(upright: PixelSize(width: 160, height: 120))),
            HostileSample(name: "sixteen-bit-png", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 120, height: 90), width: 120, height: 90, bands: 3,
                as: CompositionEncoding(format: .png, sixteenBit: true)),
                          outcome: .decodes(upright: PixelSize(width: 120, height: 90))),
            HostileSample(name: "animated-gif", data: try ImageComposer.encode(
                pixels: frames, width: 120, height: 240, bands: 3, as: CompositionEncoding(format: .gif, frameCount: 3)),
                          outcome: .decodes(upright: PixelSize(width: 120, height: 80))),
            HostileSample(name: "animated-webp", data: try ImageComposer.encode(
                pixels: frames, width: 120, height: 240, bands: 3, as: CompositionEncoding(format: .webp, quality: 90, frameCount: 3)),
                          outcome: .decodes(upright: PixelSize(width: 120, height: 80))),
            HostileSample(name: "gps-phone-jpeg", data: try phoneJPEGWithGPS(),
                          outcome: .decodes(upright: PixelSize(width: 240, height: 320))),
            HostileSample(name: "gps-phone-webp", data: try phoneWebPWithGPS(),
                          outcome: .decodes(upright: PixelSize(width: 320, height: 240))),
        ]
    }

    // MARK: Decompression bombs

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

    // MARK: EXIF

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

    // MARK: Helpers

    static func jpeg(width: Int, height: Int) throws(DownsampleError) -> Data {
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: width, height: height), width: width, height: height,
                                 bands: 3, as: CompositionEncoding(format: .jpeg, quality: 90))
    }

    /// Red, green, blue and white quadrants (any orientation mistake shows).
    static func quadrantPixels(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                switch (x < width / 2, y < height / 2) {
                case (true, true): pixels[i + 1] = 0; pixels[i + 2] = 0
                case (false, true): pixels[i] = 0; pixels[i + 2] = 0
                case (true, false): pixels[i] = 0; pixels[i + 1] = 0
                case (false, false): break
                }
            }
        }
        return pixels
    }

    /// `count` solid frames stacked top to bottom: red first, then blue, green...
    static func animationFrames(width: Int, height: Int, count: Int) -> [UInt8] {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 0, 255], [0, 255, 0]]
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * count * 3)
        for frame in 0..<count {
            let colour = colours[frame % colours.count]
            for _ in 0..<(width * height) { pixels += colour }
        }
        return pixels
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

    struct RIFFChunk {
        var fourCC: String
        var size: Int
        /// The whole chunk: header, payload and padding.
        var bytes: [UInt8]
    }

    static func riffChunks(_ data: Data) -> [RIFFChunk] {
        let bytes = [UInt8](data)
        var chunks: [RIFFChunk] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let end = min(bytes.count, offset + 8 + size + (size & 1))
            chunks.append(RIFFChunk(fourCC: String(decoding: bytes[offset..<offset + 4], as: UTF8.self), size: size,
                                    bytes: Array(bytes[offset..<end])))
            offset = end
        }
        return chunks
    }

    static func riff(_ chunks: [(String, [UInt8])]) -> Data {
        var body: [UInt8] = Array("WEBP".utf8)
        for (fourCC, payload) in chunks {
            body += Array(fourCC.utf8) + ExifBlockBuilder.le32(payload.count) + payload
            if payload.count % 2 == 1 { body.append(0) }
        }
        return Data(Array("RIFF".utf8) + ExifBlockBuilder.le32(body.count) + body)
    }

    static func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}
