@testable import Downsample
import Foundation
import ImageSamples

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

    /// A PNG whose IHDR declares `width` x `height` but holds a 1x1 image (see `HostileImages`).
    static func pngDeclaring(width: Int, height: Int) throws -> Data {
        try HostileImages.pngDeclaring(width: width, height: height)
    }

    /// A baseline JPEG whose SOF0 marker is patched to declare `width` x `height`.
    static func jpegDeclaring(width: Int, height: Int) throws -> Data {
        try HostileImages.jpegDeclaring(width: width, height: height)
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

extension ThumbnailAtDecode {
    /// The engine's libvips path, lossless: PNG output never takes the direct path, and keeps alpha.
    static let libvipsPath = ThumbnailAtDecode(encoder: ThumbnailEncoder(format: .png))
}
