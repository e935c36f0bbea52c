import CWarmVips
import Foundation
import WarmSupport

/// How far libjpeg's DCT scaling shrinks a JPEG before the Lanczos3 resample; why 1.5x the output (as Pillow's
/// `draft()`) and not libvips' 2x is in bench/findings.md, section 7.
enum ShrinkOnLoad {
    static let minimumRatio = 1.5

    /// The largest of 8, 4, 2, 1 keeping both sides at least `minimumRatio` times `output`; libjpeg rounds up.
    static func jpegFactor(stored: PixelSize, output: PixelSize) -> Int {
        for factor in [8, 4, 2] {
            let width = (stored.width + factor - 1) / factor, height = (stored.height + factor - 1) / factor
            if Double(width) >= minimumRatio * Double(output.width) && Double(height) >= minimumRatio * Double(output.height) {
                #if DEBUG
                // The planted regression: one shrink-on-load step lost, the JPEG decoded at twice the scale it needs.
                if losesShrinkStep { return factor / 2 }
                #endif
                return factor
            }
        }
        return 1
    }

    #if DEBUG
    /// Debug only: `WARM_TEST_PLANT_LOST_SHRINK_STEP=1` plants the regression `warm check`'s catalog figures must catch.
    static let losesShrinkStep = ProcessInfo.processInfo.environment["WARM_TEST_PLANT_LOST_SHRINK_STEP"] == "1"
    #endif
}

extension ImageSource {
    /// At `target`'s size as stored, still lazy; `memory` (`data`'s bytes) must outlive all made from it.
    func shrunk(memory: UnsafeRawBufferPointer, to target: DecodeTarget) throws(DownsampleError) -> VipsImageHandle {
        try vips(or: corrupt) {
            guard header.format == .jpeg else { return try VipsImageHandle.thumbnail(memory: memory, size: target.longestSide) }
            let output = storedOutputSize(target)
            let factor = ShrinkOnLoad.jpegFactor(stored: PixelSize(width: header.width, height: header.height), output: output)
            let loaded = try VipsImageHandle.open(memory: memory, sequential: true, jpegShrink: factor)
            guard loaded.width != output.width || loaded.height != output.height else { return loaded }
            return try loaded.resized(hscale: Double(output.width) / Double(loaded.width),
                                      vscale: Double(output.height) / Double(loaded.height), kernel: VIPS_KERNEL_LANCZOS3)
        }
    }

    func storedOutputSize(_ target: DecodeTarget) -> PixelSize {
        let upright = target.outputSize(for: header)
        return header.orientation >= 5 ? PixelSize(width: upright.height, height: upright.width) : upright
    }

    /// As `shrunk`, for a JPEG output: a PNG is flattened onto white in 8 bits before the resize, where libvips'
    /// `thumbnail` would resize premultiplied floats; others are flattened later by `toSRGB`.
    func shrunkWithoutAlpha(memory: UnsafeRawBufferPointer, to target: DecodeTarget) throws(DownsampleError) -> VipsImageHandle {
        if header.format == .png,
           let flat = try vips(or: corrupt, { try VipsImageHandle.pngFlattened(memory: memory, size: storedOutputSize(target)) }) {
            return flat
        }
        return try shrunk(memory: memory, to: target)
    }

    /// The libvips path's JPEG thumbnail without libvips (bench/findings.md, section 8), encoded when `jpeg`, and with
    /// `keepBitmap` the upright RGB bitmap it came from, for the other formats' encoders (nil for a translucent
    /// source: they keep its alpha), and the pixels its decoder produced. Nil for a format it does not handle; no
    /// bytes and no bitmap for what it gives up on (foreign profile, CMYK, 16 bits, animation, any decoder
    /// warning): libvips then decodes it, and `decodedPixels` still counts what the attempt decoded.
    func directThumbnail(memory: UnsafeRawBufferPointer, target: DecodeTarget, quality: Int,
                         jpeg: Bool, keepBitmap: Bool) -> (jpeg: EncodedImage?, bitmap: VipsImageHandle?, decodedPixels: Int)? {
        let output = storedOutputSize(target)
        let width = Int32(clamping: output.width), height = Int32(clamping: output.height)
        let orientation = Int32(clamping: header.orientation), quality = Int32(OutputFormat.encoderQuality(quality))
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        var kept = WarmDirectPixels(rgb: nil, width: 0, height: 0)
        var decoded: Int64 = 0
        let status: Int32? = withUnsafeMutablePointer(to: &buffer) { out in
            withUnsafeMutablePointer(to: &kept) { keep in
                let (out, keep) = (jpeg ? out : nil, keepBitmap ? keep : nil)
                switch header.format {
                case .jpeg:
                    let factor = ShrinkOnLoad.jpegFactor(stored: PixelSize(width: header.width, height: header.height), output: output)
                    return warm_jpeg_thumbnail_jpeg(memory.baseAddress, memory.count, Int32(factor), width, height,
                                                    orientation, quality, out, &length, keep, &decoded)
                case .png:
                    return warm_png_thumbnail_jpeg(memory.baseAddress, memory.count, width, height, orientation, quality,
                                                   out, &length, keep, &decoded)
                case .webp:
                    return warm_webp_thumbnail_jpeg(memory.baseAddress, memory.count, width, height, orientation, quality,
                                                    out, &length, keep, &decoded)
                default:
                    return nil
                }
            }
        }
        guard let status else { return nil }
        DecodeCount.note(.direct, self, target)
        defer { g_free(buffer); free(kept.rgb) }
        guard status == 0 else { return (nil, nil, Int(decoded)) }
        let encoded = buffer.map {
            EncodedImage(data: Data(bytes: $0, count: length), size: target.outputSize(for: header), format: .jpeg)
        }
        let bitmap = kept.rgb.flatMap { rgb in
            try? VipsImageHandle.fromPixels(UnsafeRawBufferPointer(start: rgb, count: Int(kept.width) * Int(kept.height) * 3),
                                            width: Int(kept.width), height: Int(kept.height), bands: 3)
        }
        return (encoded, bitmap, Int(decoded))
    }
}
