import CWarmVips

/// In `UIGraphicsImageRenderer`'s order: the canvas first, then the full (lazy `UIImage`) decode drawn into it.
/// The peak is naive's plus the canvas; the canvas is what is retained.
public struct RendererResize: DecodeStrategy {
    /// Bilinear, like Core Graphics' default interpolation when drawing.
    public init() {}
    public var kind: StrategyKind { .renderer }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let size = target.outputSize(for: source.header)
        let canvas = try vips(or: source.corrupt) { try VipsImageHandle.blankCanvas(width: size.width, height: size.height) }
        let decodedPixels: Int
        do {
            let full = try NaiveDecode.fullBitmap(source)
            decodedPixels = full.width * full.height
            try vips(or: source.corrupt) {
                let hscale = Double(size.width) / Double(full.width), vscale = Double(size.height) / Double(full.height)
                let same = size.width == full.width && size.height == full.height
                // A source without alpha decodes with alpha 255: no float premultiply needed.
                try canvas.draw(same ? full : full.resized(hscale: hscale, vscale: vscale, kernel: VIPS_KERNEL_LINEAR,
                                                           opaque: !source.header.hasAlpha))
            }
        }  // `full` is released here, as the renderer releases the decoded UIImage.
        return DecodedImage(strategy: kind, image: canvas, decodedPixels: decodedPixels)
    }
}
