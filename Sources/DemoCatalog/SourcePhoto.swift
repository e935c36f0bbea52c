import Downsample
import Foundation

/// A photograph decoded once (upright 8-bit sRGB) that `PhotoVariant`s cut many images from.
/// Costs width x height x 3 bytes for as long as it is kept.
struct SourcePhoto: Sendable {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    /// Decodes `data` (shrink-on-load) so that its longest side is at most `maxSide`.
    init(data: Data, maxSide: Int) throws(DownsampleError) {
        let (pixels, size) = try ImageComposer.rgbPixels(of: data, maxSide: maxSide)
        self.width = size.width
        self.height = size.height
        self.pixels = pixels
    }

    init(rgbPixels: [UInt8], width: Int, height: Int) throws(DownsampleError) {
        guard width > 0, height > 0, rgbPixels.count == width * height * 3 else {
            throw .encodeFailed(format: "png", reason: "\(rgbPixels.count) samples do not make a \(width)x\(height) RGB image")
        }
        self.width = width
        self.height = height
        self.pixels = rgbPixels
    }

    /// The image `variant` cuts from this photo, its pixels stored turned so that `encoding`'s orientation tag shows
    /// them upright; costs one output bitmap.
    func image(_ variant: PhotoVariant, as encoding: CompositionEncoding) throws(DownsampleError) -> Data {
        // Orientation values that apply a turn (6: 90, 3: 180, 8: 270 clockwise) or a mirror (2).
        let orientations: [Int] = (variant.quarterTurns != 0 ? [[1, 6, 3, 8][variant.quarterTurns]] : []) + (variant.mirrored ? [2] : [])
        let turned = variant.quarterTurns % 2 == 1 ? (width: height, height: width) : (width: width, height: height)

        let size = variant.size
        let aspect = Double(size.width) / Double(size.height)
        var cropWidth = Double(turned.width), cropHeight = cropWidth / aspect
        if cropHeight > Double(turned.height) { cropHeight = Double(turned.height); cropWidth = cropHeight * aspect }
        let width = max(1, Int(cropWidth * variant.cropFraction)), height = max(1, Int(cropHeight * variant.cropFraction))
        let left = Int(Double(turned.width - width) * variant.cropX), top = Int(Double(turned.height - height) * variant.cropY)
        var cut = try ImageComposer.cut(rgb: pixels, size: PixelSize(width: self.width, height: self.height),
                                        orientations: orientations, crop: (left, top, width, height), to: size)
        if variant.noiseAmplitude > 0 {
            PhotoVariant.addNoise(to: &cut.pixels, amplitude: variant.noiseAmplitude, seed: variant.noiseSeed)
        }
        return try ImageComposer.encode(uprightPixels: cut.pixels, width: cut.size.width, height: cut.size.height, bands: 3,
                                        as: encoding)
    }
}
