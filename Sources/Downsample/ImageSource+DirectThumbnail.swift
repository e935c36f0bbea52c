import CWarmVips
import Foundation

extension ImageSource {
    /// A JPEG thumbnail of this JPEG, PNG or WebP made by libjpeg/libpng/libwebp
    /// with a streamed Lanczos3 resample: the libvips path's decode, kernel and
    /// size at a fraction of its cost (bench/findings.md, section 8). nil for
    /// what it does not take (a foreign profile, CMYK, 16 bits, interlacing,
    /// animation, any decoder warning): libvips then decodes, naming the image in its errors.
    func directThumbnail(memory: UnsafeRawBufferPointer, target: DecodeTarget, quality: Int) -> EncodedImage? {
        let output = storedOutputSize(target)
        let width = Int32(clamping: output.width), height = Int32(clamping: output.height)
        let orientation = Int32(clamping: header.orientation), quality = Int32(OutputFormat.encoderQuality(quality))
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch header.format {
        case .jpeg:
            let factor = ShrinkOnLoad.jpegFactor(stored: PixelSize(width: header.width, height: header.height), output: output)
            status = warm_jpeg_thumbnail_jpeg(memory.baseAddress, memory.count, Int32(factor), width, height,
                                              orientation, quality, &buffer, &length)
        case .png:
            status = warm_png_thumbnail_jpeg(memory.baseAddress, memory.count, width, height, orientation, quality, &buffer, &length)
        case .webp:
            status = warm_webp_thumbnail_jpeg(memory.baseAddress, memory.count, width, height, orientation, quality, &buffer, &length)
        default:
            return nil
        }
        guard status == 0, let buffer else { return nil }
        defer { g_free(buffer) }
        return EncodedImage(data: Data(bytes: buffer, count: length), size: target.outputSize(for: header), format: .jpeg)
    }
}
