import CWarmVips

/// Renderer-style resize: a naive full decode, then a resample into a new
/// target-size bitmap (as drawing into a `UIGraphicsImageRenderer` canvas
/// does), then the full bitmap is released. Retained bytes are the target
/// bitmap's; the peak holds both bitmaps at once.
public struct RendererResize: DecodeStrategy {
    /// Bilinear, like Core Graphics' default interpolation when drawing.
    public init() {}
    public var kind: StrategyKind { .renderer }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        let canvas: VipsImageHandle
        do {
            let full = try NaiveDecode.fullBitmap(source)
            let size = target.outputSize(for: source.header)
            if size.width == full.width && size.height == full.height {
                canvas = full
            } else {
                let hscale = Double(size.width) / Double(full.width)
                let vscale = Double(size.height) / Double(full.height)
                let resampled = try full.resized(hscale: hscale, vscale: vscale, kernel: VIPS_KERNEL_LINEAR)
                    .orCorrupt(source)
                canvas = try resampled.materialized().orCorrupt(source)
            }
        }  // `full` is released here, as the renderer releases the decoded UIImage.
        return DecodedImage(strategy: kind, image: canvas)
    }
}
