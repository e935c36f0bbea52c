import Downsample

extension ImageMetricsRecord {
    /// The record of an image a run warmed but did not measure: what is known
    /// without decoding it again. Retained bytes are computed the way each
    /// strategy allocates its RGBA bitmap (4 bytes a pixel): naive the whole
    /// source, renderer its canvas of `DecodeTarget.outputSize(upright:)`, thumbnail the
    /// thumbnail the run stored (the same decode as thumbnail-at-decode's).
    /// Peaks, times and quality are nil, `peakMethod` too, and `measured` is false.
    ///
    /// - Parameters:
    ///   - width, height: the source as stored, before orientation.
    ///   - orientation: the EXIF orientation applied (1-8); nil when unknown
    ///     (a record made from a cache entry), then whether the source stands
    ///     turned is read from the thumbnail's shape.
    ///   - thumbnailSize: the stored thumbnail at `targetLongestSide`.
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
