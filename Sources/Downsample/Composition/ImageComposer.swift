import CWarmVips
import Foundation

/// How `ImageComposer` encodes an image (CMYK, profiles, 16 bits and animations are made by Tests/Support).
public struct CompositionEncoding: Sendable, Hashable {
    public var format: ImageFormat
    var quality: Int
    public var orientationTag: Int?
    var progressive: Bool

    public init(format: ImageFormat, quality: Int = 85, orientationTag: Int? = nil, progressive: Bool = false) {
        self.format = format
        self.quality = quality
        self.orientationTag = orientationTag
        self.progressive = progressive
    }

    func failure(_ reason: String) -> DownsampleError { .encodeFailed(format: format.rawValue, reason: reason) }
}

/// Makes encoded images from raw pixels or real photographs (tests, catalogs); costs one output-size bitmap.
public enum ImageComposer {
    /// Encodes raw 8-bit samples (`bands` 1: grey, 2: grey+alpha, 3: RGB, 4: RGBA).
    public static func encode(pixels: [UInt8], width: Int, height: Int, bands: Int,
                              as encoding: CompositionEncoding) throws(DownsampleError) -> Data {
        try VipsRuntime.ensureStarted()
        precondition(pixels.count == width * height * bands, "pixel buffer does not match \(width)x\(height)x\(bands)")
        return try vips(or: encoding.failure) {
            try encode(VipsImageHandle.fromPixels(pixels, width: width, height: height, bands: bands), as: encoding)
        }
    }

    /// A seeded gradient with a red block top-left, so orientation mistakes are visible.
    public static func pattern(width: Int, height: Int, seed: UInt64 = 1, alpha: Bool = false) -> [UInt8] {
        let bands = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let noise = UInt8(truncatingIfNeeded: state & 0x0F)
                let i = (y * width + x) * bands
                let corner = x < max(1, width / 4) && y < max(1, height / 4)
                pixels[i] = corner ? 255 : UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1)) &+ noise
                pixels[i + 1] = corner ? 0 : UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1)) &+ noise
                pixels[i + 2] = corner ? 0 : UInt8(truncatingIfNeeded: ((x + y) * 127) / max(1, width + height)) &+ noise
                if alpha { pixels[i + 3] = corner ? 255 : UInt8(truncatingIfNeeded: 64 + (x * 191) / max(1, width - 1)) }
            }
        }
        return pixels
    }

    /// Centre-crops a photograph to `size`, stored turned so that `encoding.orientationTag` shows it upright.
    public static func photo(_ data: Data, size: PixelSize, as encoding: CompositionEncoding) throws(DownsampleError) -> Data {
        try VipsRuntime.ensureStarted()
        let source = try ImageSource(data: data, limits: DecodeLimits(maxPixels: .max, maxEncodedBytes: .max))
        let upright = try NaiveDecode.fullBitmap(source)
        let scale = max(Double(size.width) / Double(upright.width), Double(size.height) / Double(upright.height))
        return try vips(or: encoding.failure) {
            let resized = try upright.resized(hscale: scale, vscale: scale, kernel: VIPS_KERNEL_LANCZOS3)
            let left = max(0, (resized.width - size.width) / 2), top = max(0, (resized.height - size.height) / 2)
            let cropped = try resized.cropped(left: left, top: top, width: min(size.width, resized.width),
                                              height: min(size.height, resized.height))
            return try encode(storedForTag(cropped, encoding), as: encoding)
        }
    }

    /// The upright `image` stored so that applying `encoding`'s orientation tag makes it upright again.
    static func storedForTag(_ image: VipsImageHandle, _ encoding: CompositionEncoding) throws(VipsFailure) -> VipsImageHandle {
        let inverse: [Int: Int] = [2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6]
        guard let tag = encoding.orientationTag, let undo = inverse[tag] else { return image }
        return try image.autorotated(orientation: undo)
    }

    static func encode(_ image: VipsImageHandle, as encoding: CompositionEncoding) throws(VipsFailure) -> Data {
        var image = image
        if encoding.format == .jpeg && image.hasAlpha {
            image = try image.flattenedOnWhite()
        }
        if let tag = encoding.orientationTag {
            image = try image.withOrientationTag(tag)
        }
        let q = encoding.quality
        let suffix: String
        switch encoding.format {
        case .jpeg: suffix = ".jpg[Q=\(q)\(encoding.progressive ? ",interlace" : "")]"
        case .png: suffix = ".png[compression=6\(encoding.progressive ? ",interlace" : "")]"
        case .webp: suffix = ".webp[Q=\(q)]"
        case .gif: suffix = ".gif"
        case .tiff: suffix = ".tif[compression=deflate]"
        case .heif: suffix = ".heic[Q=\(q)]"
        }
        return try image.encoded(suffix: suffix)
    }
}
