import Downsample

extension ImageMetricsRecord {
    /// An image warmed but not measured: retained bytes as each strategy allocates its RGBA bitmap, the
    /// rest nil. With no `orientation` (a cache entry's record) the thumbnail's shape says if it is turned.
    public static func unmeasured(productId: Int?, url: String, format: ImageFormat?, sourceBytes: Int, width: Int, height: Int,
                                  orientation: Int?, targetLongestSide: Int, thumbnailSize: PixelSize) -> ImageMetricsRecord {
        let turned: Bool
        if let orientation {
            turned = (5...8).contains(orientation)
        } else {
            turned = width != height && thumbnailSize.width != thumbnailSize.height
                && (width > height) != (thumbnailSize.width > thumbnailSize.height)
        }
        let upright = turned ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
        let canvas = DecodeTarget(longestSide: targetLongestSide).outputSize(upright: upright)
        func computed(_ size: PixelSize) -> StrategyMetrics {
            StrategyMetrics(retainedBytes: size.width * size.height * 4, peakBytes: nil, cpuSeconds: nil, wallSeconds: nil,
                            outputWidth: size.width, outputHeight: size.height)
        }
        return ImageMetricsRecord(
            productId: productId, url: url, format: format, sourceBytes: sourceBytes, width: width, height: height,
            orientation: orientation, targetLongestSide: targetLongestSide, peakMethod: nil, measured: false,
            strategies: Strategies(naive: computed(upright), renderer: computed(canvas), thumbnail: computed(thumbnailSize)))
    }
}
