import CWarmVips
import Foundation

extension ImageSource {
    /// A JPEG thumbnail of this JPEG made without libvips' pipeline
    /// (`warm_jpeg_thumbnail_jpeg`): libjpeg decodes at the `ShrinkOnLoad`
    /// scale, a Lanczos3 resample makes the exact output size, the pixels are
    /// turned upright and libjpeg encodes them, metadata-free. The same
    /// decode, kernel and size as the libvips path, at about half its cost on
    /// a server-sized JPEG (bench/findings.md, section 8).
    ///
    /// nil for whatever that path does not take (not a JPEG, a profile other
    /// than sRGB, CMYK, any warning from libjpeg on corrupt data): the caller
    /// then goes through libvips, whose errors name the image as before.
    func directJPEGThumbnail(memory: UnsafeRawBufferPointer, target: DecodeTarget, quality: Int) -> EncodedImage? {
        guard header.format == .jpeg, DirectJPEG.isEnabled else { return nil }
        let output = storedOutputSize(target)
        let factor = ShrinkOnLoad.jpegFactor(stored: PixelSize(width: header.width, height: header.height), output: output)
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = warm_jpeg_thumbnail_jpeg(memory.baseAddress, memory.count, Int32(factor),
                                              Int32(clamping: output.width), Int32(clamping: output.height),
                                              Int32(clamping: header.orientation), Int32(min(100, max(1, quality))),
                                              &buffer, &length)
        guard status == 0, let buffer else { return nil }
        defer { warm_free(buffer) }
        let upright = header.orientation >= 5 ? PixelSize(width: output.height, height: output.width) : output
        return EncodedImage(data: Data(bytes: buffer, count: length), size: upright, format: .jpeg)
    }
}

/// The switch for `directJPEGThumbnail`: on, unless `WARM_DIRECT_JPEG=0`
/// (for A/B measurements against the libvips path).
enum DirectJPEG {
    static let isEnabled = ProcessInfo.processInfo.environment["WARM_DIRECT_JPEG"] != "0"
}
