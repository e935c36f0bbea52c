import CWarmVips

/// Renderer-style resize, in the order `UIGraphicsImageRenderer` works: the
/// target-size canvas exists first (the renderer's context), the image is
/// then decoded in full (`UIImage` decodes lazily, when it is first drawn),
/// resampled and drawn into the canvas, and the full bitmap is released.
/// Retained bytes are the canvas's; the peak holds the canvas on top of
/// everything the naive decode holds, so it is naive's peak plus the canvas.
public struct RendererResize: DecodeStrategy {
    /// Bilinear, like Core Graphics' default interpolation when drawing.
    public init() {}
    public var kind: StrategyKind { .renderer }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let size = target.outputSize(for: source.header)
        let canvas = try vips(or: source.corrupt) { try VipsImageHandle.blankCanvas(width: size.width, height: size.height, bands: 4) }
        do {
            let full = try NaiveDecode.fullBitmap(source)
            try vips(or: source.corrupt) {
                let hscale = Double(size.width) / Double(full.width), vscale = Double(size.height) / Double(full.height)
                let same = size.width == full.width && size.height == full.height
                // A source without alpha decodes with alpha 255: no premultiply needed (a fifth of the CPU).
                try canvas.draw(same ? full : full.resized(hscale: hscale, vscale: vscale, kernel: VIPS_KERNEL_LINEAR,
                                                           opaque: !source.header.hasAlpha))
            }
        }  // `full` is released here, as the renderer releases the decoded UIImage.
        return DecodedImage(strategy: kind, image: canvas)
    }
}
