import Downsample
import Foundation

/// Images made by the tests themselves (libvips draws and encodes them).
enum TestImages {
    /// An upright image in four solid quadrants: red top-left, green top-right,
    /// blue bottom-left, white bottom-right. No two of the eight EXIF
    /// transforms map it onto itself, so any orientation mistake shows.
    static func quadrants(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let colour: (UInt8, UInt8, UInt8)
                switch (x < width / 2, y < height / 2) {
                case (true, true): colour = (255, 0, 0)
                case (false, true): colour = (0, 255, 0)
                case (true, false): colour = (0, 0, 255)
                case (false, false): colour = (255, 255, 255)
                }
                let i = (y * width + x) * 3
                pixels[i] = colour.0; pixels[i + 1] = colour.1; pixels[i + 2] = colour.2
            }
        }
        return pixels
    }

    /// The stored pixels of a file whose EXIF orientation is `orientation`,
    /// such that a correct viewer shows `upright`. Written from the EXIF
    /// definition (where stored row 0 and column 0 end up), independently of
    /// libvips, so the decoders are checked against the standard.
    static func stored(_ upright: [UInt8], width: Int, height: Int, orientation: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        let swaps = orientation >= 5
        let storedWidth = swaps ? height : width, storedHeight = swaps ? width : height
        var out = [UInt8](repeating: 0, count: upright.count)
        for ys in 0..<storedHeight {
            for xs in 0..<storedWidth {
                let (xd, yd): (Int, Int)
                switch orientation {
                case 2: (xd, yd) = (width - 1 - xs, ys)
                case 3: (xd, yd) = (width - 1 - xs, height - 1 - ys)
                case 4: (xd, yd) = (xs, height - 1 - ys)
                case 5: (xd, yd) = (ys, xs)
                case 6: (xd, yd) = (width - 1 - ys, xs)
                case 7: (xd, yd) = (width - 1 - ys, height - 1 - xs)
                case 8: (xd, yd) = (ys, height - 1 - xs)
                default: (xd, yd) = (xs, ys)
                }
                let s = (ys * storedWidth + xs) * 3, d = (yd * width + xd) * 3
                out[s] = upright[d]; out[s + 1] = upright[d + 1]; out[s + 2] = upright[d + 2]
            }
        }
        return (out, storedWidth, storedHeight)
    }

    static func jpeg(width: Int, height: Int, seed: UInt64 = 1, quality: Int = 90) throws -> Data {
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: width, height: height, seed: seed),
                                 width: width, height: height, bands: 3,
                                 as: CompositionEncoding(format: .jpeg, quality: quality))
    }

    /// A phone-size image made by resizing a small pattern (fast: the resize runs in libvips).
    static func large(_ size: PixelSize, as encoding: CompositionEncoding) throws -> Data {
        try ImageComposer.photo(try jpeg(width: 160, height: 120), size: size, as: encoding)
    }

    /// RGBA of the pixel at (x, y).
    static func pixel(_ image: DecodedImage, _ pixels: [UInt8], x: Int, y: Int) -> [Int] {
        let i = (y * image.width + x) * 4
        return pixels[i..<i + 4].map(Int.init)
    }

    /// A PNG whose IHDR declares `width` x `height` (with a valid CRC) but whose
    /// data is that of a 1x1 image: a decompression bomb's header in a few bytes.
    static func pngDeclaring(width: Int, height: Int) throws -> Data {
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

    /// A baseline JPEG whose SOF0 marker is patched to declare `width` x `height`.
    static func jpegDeclaring(width: Int, height: Int) throws -> Data {
        var jpeg = [UInt8](try jpeg(width: 16, height: 16))
        var i = 2
        while i + 9 < jpeg.count {
            guard jpeg[i] == 0xFF else { i += 1; continue }
            let marker = jpeg[i + 1]
            if marker == 0xC0 || marker == 0xC2 {
                jpeg[i + 5] = UInt8(height >> 8); jpeg[i + 6] = UInt8(height & 0xFF)
                jpeg[i + 7] = UInt8(width >> 8); jpeg[i + 8] = UInt8(width & 0xFF)
                return Data(jpeg)
            }
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            i += 2 + length
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// zlib's CRC-32, written out because the tests need it for one PNG chunk.
    static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    /// The process's peak resident set (VmHWM), in bytes.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
