import CWarmVips
import Foundation

/// A photograph decoded once (upright 8-bit sRGB) that `ImageComposer.variant(of:_:as:)` cuts many images from.
/// Costs width x height x 3 bytes for as long as it is kept.
public struct SourcePhoto: Sendable {
    public let width: Int
    public let height: Int
    let pixels: [UInt8]

    /// Decodes `data` (shrink-on-load) so that its longest side is at most `maxSide`.
    public init(data: Data, maxSide: Int) throws(DownsampleError) {
        try VipsRuntime.ensureStarted()
        // Materialised while `data` lends its bytes to libvips.
        let rgb = try vips(or: CompositionEncoding(format: .png).failure) {
            try data.withUnsafeBytes { memory in
                try VipsImageHandle.thumbnail(memory: memory, size: maxSide).toSRGB(alpha: WARM_ALPHA_FLATTEN_ON_WHITE).materialized()
            }
        }
        guard rgb.bands == 3, let pixels = rgb.pixelBytes else {
            throw .encodeFailed(format: "png", reason: "the photo did not decode to 3-band RGB (\(rgb.bands) bands)")
        }
        self.width = rgb.width
        self.height = rgb.height
        self.pixels = pixels
    }
}

/// How one image is cut from a `SourcePhoto`; equal variants give equal pixels.
public struct PhotoVariant: Sendable, Hashable {
    public var size: PixelSize
    /// Share of the largest region of `size`'s aspect that fits the (turned) photo, 0.3...1.
    public var cropFraction: Double
    public var cropX: Double
    public var cropY: Double
    public var quarterTurns: Int
    public var mirrored: Bool
    public var noiseAmplitude: Int
    public var noiseSeed: UInt64

    public init(size: PixelSize, cropFraction: Double = 1, cropX: Double = 0.5, cropY: Double = 0.5,
                quarterTurns: Int = 0, mirrored: Bool = false, noiseAmplitude: Int = 0, noiseSeed: UInt64 = 1) {
        self.size = size
        self.cropFraction = min(1, max(0.3, cropFraction))
        self.cropX = min(1, max(0, cropX))
        self.cropY = min(1, max(0, cropY))
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.mirrored = mirrored
        self.noiseAmplitude = max(0, min(64, noiseAmplitude))
        self.noiseSeed = noiseSeed
    }
}

extension ImageComposer {
    /// Pixels are stored turned so that `encoding`'s orientation tag shows them upright; costs one output bitmap.
    public static func variant(of photo: SourcePhoto, _ variant: PhotoVariant,
                               as encoding: CompositionEncoding) throws(DownsampleError) -> Data {
        try VipsRuntime.ensureStarted()
        return try vips(or: encoding.failure) { try cut(variant, of: photo, as: encoding) }
    }

    private static func cut(_ variant: PhotoVariant, of photo: SourcePhoto, as encoding: CompositionEncoding) throws -> Data {
        var image = try VipsImageHandle.fromPixels(photo.pixels, width: photo.width, height: photo.height, bands: 3)
        // Orientation values that apply a turn (6: 90, 3: 180, 8: 270 clockwise) or a mirror (2).
        if variant.quarterTurns != 0 {
            image = try image.autorotated(orientation: [1, 6, 3, 8][variant.quarterTurns])
        }
        if variant.mirrored { image = try image.autorotated(orientation: 2) }

        let size = variant.size
        let aspect = Double(size.width) / Double(size.height)
        var cropWidth = Double(image.width), cropHeight = cropWidth / aspect
        if cropHeight > Double(image.height) { cropHeight = Double(image.height); cropWidth = cropHeight * aspect }
        let width = max(1, Int(cropWidth * variant.cropFraction)), height = max(1, Int(cropHeight * variant.cropFraction))
        let left = Int(Double(image.width - width) * variant.cropX), top = Int(Double(image.height - height) * variant.cropY)
        image = try image.cropped(left: left, top: top, width: width, height: height)
        image = try image.resized(hscale: Double(size.width) / Double(width), vscale: Double(size.height) / Double(height),
                                  kernel: VIPS_KERNEL_LANCZOS3)
        if image.width != size.width || image.height != size.height {
            image = try image.cropped(left: 0, top: 0, width: min(size.width, image.width), height: min(size.height, image.height))
        }
        image = try image.materialized()
        if variant.noiseAmplitude > 0, var pixels = image.pixelBytes {
            addNoise(to: &pixels, amplitude: variant.noiseAmplitude, seed: variant.noiseSeed)
            image = try VipsImageHandle.fromPixels(pixels, width: image.width, height: image.height, bands: image.bands)
        }
        return try encode(storedForTag(image, encoding), as: encoding)
    }

    static func addNoise(to pixels: inout [UInt8], amplitude: Int, seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        let span = UInt64(2 * amplitude + 1)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let value = Int(buffer[index]) + Int(state % span) - amplitude
                buffer[index] = UInt8(clamping: value)
            }
        }
    }
}

extension SourcePhoto {
    public init(rgbPixels: [UInt8], width: Int, height: Int) throws(DownsampleError) {
        guard width > 0, height > 0, rgbPixels.count == width * height * 3 else {
            throw .encodeFailed(format: "png", reason: "\(rgbPixels.count) samples do not make a \(width)x\(height) RGB image")
        }
        self.width = width
        self.height = height
        self.pixels = rgbPixels
    }
}
