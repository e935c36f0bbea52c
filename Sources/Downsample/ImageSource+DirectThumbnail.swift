import CWarmVips
import Foundation

extension ImageSource {
    /// The libvips path's JPEG thumbnail without libvips (bench/findings.md, section 8); nil for what it does not
    /// take (foreign profile, CMYK, 16 bits, animation, any decoder warning): libvips then decodes it.
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
