import CTestImages
import Downsample
import Foundation

/// How a test encodes an odd image a catalog may hold but warm never makes:
/// CMYK, an embedded ICC profile, 16 bits, an animation (`CTestImages`).
public struct OddEncoding: Sendable, Hashable {
    public var format: ImageFormat
    public var quality: Int
    /// Convert to CMYK with libvips' built-in profile (JPEG).
    public var cmyk: Bool
    /// 16 bits per sample (PNG).
    public var sixteenBit: Bool
    /// Embed this ICC profile ("srgb", "p3", or a path) with the pixels transformed to it.
    public var iccProfile: String?
    /// Frames of an animation (GIF, WebP), stacked top to bottom in the pixels.
    public var frameCount: Int

    public init(format: ImageFormat, quality: Int = 85, cmyk: Bool = false, sixteenBit: Bool = false,
                iccProfile: String? = nil, frameCount: Int = 1) {
        self.format = format
        self.quality = quality
        self.cmyk = cmyk
        self.sixteenBit = sixteenBit
        self.iccProfile = iccProfile
        self.frameCount = max(1, frameCount)
    }
}

extension ImageComposer {
    /// Encodes raw 8-bit samples (`bands` 1: grey, 3: RGB) the odd way `encoding` says.
    public static func encode(pixels: [UInt8], width: Int, height: Int, bands: Int,
                              as encoding: OddEncoding) throws(DownsampleError) -> Data {
        try VipsRuntime.ensureStarted()
        precondition(pixels.count == width * height * bands, "pixel buffer does not match \(width)x\(height)x\(bands)")
        let q = encoding.quality
        let suffix: String
        switch encoding.format {
        case .jpeg: suffix = ".jpg[Q=\(q)]"
        case .png: suffix = ".png[compression=6]"
        case .webp: suffix = ".webp[Q=\(q)]"
        case .gif: suffix = ".gif"
        case .tiff: suffix = ".tif[compression=deflate]"
        case .heif: suffix = ".heic[Q=\(q)]"
        }
        var out: UnsafeMutableRawPointer?
        var length = 0
        let status = pixels.withUnsafeBytes { raw in
            test_image_encode(raw.baseAddress, Int32(width), Int32(height), Int32(bands),
                              encoding.cmyk ? "cmyk" : encoding.iccProfile, encoding.sixteenBit ? 1 : 0,
                              encoding.frameCount > 1 ? Int32(height / encoding.frameCount) : 0, suffix, &out, &length)
        }
        guard status == 0, let out else {
            let reason = vips_error_buffer().map { String(cString: $0) } ?? "unknown libvips error"
            vips_error_clear()
            throw .encodeFailed(format: encoding.format.rawValue, reason: reason)
        }
        defer { g_free(out) }
        return Data(bytes: out, count: length)
    }
}
