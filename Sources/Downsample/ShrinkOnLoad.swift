import CWarmVips
import Foundation

/// How far libjpeg shrinks a JPEG while decoding it (its DCT scaling: 1/2,
/// 1/4 or 1/8), before the Lanczos3 resample to the exact output size.
///
/// The shrunk image keeps at least 1.5 times the output's sides, as Pillow's
/// `draft()` does: why 1.5 and not libvips' 2 is in bench/findings.md, section 7.
public enum ShrinkOnLoad {
    /// The shrunk image's sides must stay at least this many times the output's.
    public static let minimumRatio = 1.5

    /// The largest of 8, 4, 2 and 1 that keeps both sides of a `stored`-size
    /// JPEG at least `minimumRatio` times `output` (both as stored, before
    /// orientation). libjpeg rounds scaled sides up.
    public static func jpegFactor(stored: PixelSize, output: PixelSize) -> Int {
        for factor in [8, 4, 2] {
            let width = (stored.width + factor - 1) / factor, height = (stored.height + factor - 1) / factor
            if Double(width) >= minimumRatio * Double(output.width) && Double(height) >= minimumRatio * Double(output.height) {
                return factor
            }
        }
        return 1
    }
}

extension ImageSource {
    /// The image at `target`'s output size, as stored (not yet rotated or
    /// colour-converted), still lazy: JPEG through libjpeg's DCT scaling and a
    /// Lanczos3 resample to the exact size, other formats through libvips'
    /// `thumbnail`. `memory` must be `data`'s bytes, lent for as long as the
    /// result and anything made from it lives.
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

    /// `target`'s output size as stored, before orientation turns it.
    func storedOutputSize(_ target: DecodeTarget) -> PixelSize {
        let upright = target.outputSize(for: header)
        return header.orientation >= 5 ? PixelSize(width: upright.height, height: upright.width) : upright
    }

    /// The image at `target`'s output size, as stored, with no alpha: what a
    /// JPEG output needs. A PNG is flattened onto white before it is resized,
    /// in 8 bits (`VipsImageHandle.pngFlattened`), where libvips' `thumbnail`
    /// would resize premultiplied floats; everything else is `shrunk`, and
    /// flattened later by `toSRGB`.
    func shrunkWithoutAlpha(memory: UnsafeRawBufferPointer, to target: DecodeTarget) throws(DownsampleError) -> VipsImageHandle {
        if header.format == .png,
           let flat = try vips(or: corrupt, { try VipsImageHandle.pngFlattened(memory: memory, size: storedOutputSize(target)) }) {
            return flat
        }
        return try shrunk(memory: memory, to: target)
    }
}
