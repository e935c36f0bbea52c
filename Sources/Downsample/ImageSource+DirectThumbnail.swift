import CWarmVips
import Foundation

extension ImageSource {
    /// A JPEG thumbnail of this JPEG, PNG or WebP made without libvips'
    /// pipeline (`warm_jpeg_thumbnail_jpeg`, `warm_png_thumbnail_jpeg`,
    /// `warm_webp_thumbnail_jpeg`): libjpeg decodes at the `ShrinkOnLoad`
    /// scale, or libpng row by row with each row flattened onto white, and a
    /// streamed Lanczos3 resample makes the exact output size; libwebp decodes
    /// straight at the output size; the pixels are turned upright and libjpeg
    /// encodes them, metadata-free. The same decode, kernel and size as the
    /// libvips path, at a fraction of its cost (bench/findings.md, section 8).
    ///
    /// nil for whatever that path does not take (another format, a profile
    /// other than sRGB, CMYK, 16 bits, interlacing, an animation, any warning
    /// from the decoder on corrupt data): the caller then goes through libvips, whose
    /// errors name the image as before.
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
        defer { warm_free(buffer) }
        return EncodedImage(data: Data(bytes: buffer, count: length), size: target.outputSize(for: header), format: .jpeg)
    }
}
