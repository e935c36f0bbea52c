import CWarmVips
import Foundation

/// The libvips steps of cutting an image out of a photograph, for the demo catalog (DemoCatalog's `PhotoVariant`),
/// which decides what to cut; here because they are libvips calls, which stay in this module.
extension ImageComposer {
    /// Upright 8-bit RGB samples of an encoded photograph, shrunk on load so that its longest side is at most
    /// `maxSide`; costs that bitmap (width x height x 3 bytes).
    public static func rgbPixels(of data: Data, maxSide: Int) throws(DownsampleError) -> (pixels: [UInt8], size: PixelSize) {
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
        return (pixels, PixelSize(width: rgb.width, height: rgb.height))
    }

    /// RGB `pixels` of `size` turned (an EXIF orientation value: 6, 3, 8 turn by 90, 180, 270 degrees clockwise, 2
    /// mirrors; applied in order), cut to `crop` (in the turned image) and resampled with Lanczos3 to `output` (or a
    /// pixel less where the resampling rounds down): the RGB samples and their size. Costs the output bitmap.
    public static func cut(rgb pixels: [UInt8], size: PixelSize, orientations: [Int],
                           crop: (left: Int, top: Int, width: Int, height: Int),
                           to output: PixelSize) throws(DownsampleError) -> (pixels: [UInt8], size: PixelSize) {
        try VipsRuntime.ensureStarted()
        let failure = { (reason: String) in DownsampleError.encodeFailed(format: "rgb", reason: reason) }
        let image = try vips(or: failure) { () throws -> VipsImageHandle in
            var image = try VipsImageHandle.fromPixels(pixels, width: size.width, height: size.height, bands: 3)
            for orientation in orientations {
                image = try image.autorotated(orientation: orientation)
            }
            image = try image.cropped(left: crop.left, top: crop.top, width: crop.width, height: crop.height)
            image = try image.resized(hscale: Double(output.width) / Double(crop.width),
                                      vscale: Double(output.height) / Double(crop.height), kernel: VIPS_KERNEL_LANCZOS3)
            if image.width != output.width || image.height != output.height {
                image = try image.cropped(left: 0, top: 0, width: min(output.width, image.width),
                                          height: min(output.height, image.height))
            }
            return try image.materialized()
        }
        guard let samples = image.pixelBytes else {
            throw failure("the cut image has no 8-bit samples")
        }
        return (samples, PixelSize(width: image.width, height: image.height))
    }

    /// Encodes upright 8-bit samples stored turned, so that `encoding`'s orientation tag shows them upright again.
    public static func encode(uprightPixels pixels: [UInt8], width: Int, height: Int, bands: Int,
                              as encoding: CompositionEncoding) throws(DownsampleError) -> Data {
        try VipsRuntime.ensureStarted()
        precondition(pixels.count == width * height * bands, "pixel buffer does not match \(width)x\(height)x\(bands)")
        return try vips(or: encoding.failure) {
            try encode(storedForTag(VipsImageHandle.fromPixels(pixels, width: width, height: height, bands: bands), encoding),
                       as: encoding)
        }
    }
}
