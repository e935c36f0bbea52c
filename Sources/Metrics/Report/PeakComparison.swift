import Downsample

/// Per-image checks of the seeds' two claims: renderer's peak is at least naive's (within the noise),
/// and thumbnail-at-decode's is below naive's for every JPEG larger than 4x the target.
struct PeakComparison: Sendable, Equatable {
    struct RendererAgainstNaive: Sendable, Equatable {
        var images: Int
        var atLeastNaive: Int
        /// Images where renderer's peak >= naive's minus the measuring noise (`PeakComparison.noiseBytes`).
        var atLeastNaiveWithinNoise: Int
        /// The largest naive - renderer over the images where renderer was lower (0 if none).
        var largestShortfallBytes: Int
        var largestShortfallFraction: Double
        var medianDifferenceBytes: Int
    }

    /// Thumbnail against naive on JPEGs whose longest side exceeds 4x the target.
    struct ThumbnailOnLargeJPEGs: Sendable, Equatable {
        var images: Int
        var belowNaive: Int
        /// The smallest naive / thumbnail peak ratio among them (nil when there are none).
        var smallestRatio: Double?
    }

    /// Above the most one image's naive peak moved between two measuring runs (bench/findings.md section 16).
    static let noiseBytes = 384 << 10

    static var noiseText: String {
        "\(noiseBytes >> 10) KiB, above the most one image's naive peak moved between two whole-catalog measuring runs (280 and 272 KiB over 1,295 images in two pairs)"
    }

    var renderer: RendererAgainstNaive
    var thumbnail: ThumbnailOnLargeJPEGs

    init(records: [ImageMetricsRecord]) {
        var differences: [Int] = []
        var withinNoise = 0
        var shortfall = 0, shortfallFraction = 0.0
        var largeJPEGs = 0, below = 0
        var smallestRatio: Double?
        for record in records where record.isComplete {
            guard let naive = record.strategies.naive?.peakBytes, let renderer = record.strategies.renderer?.peakBytes,
                  let thumbnail = record.strategies.thumbnail?.peakBytes else { continue }
            differences.append(renderer - naive)
            if renderer >= naive - Self.noiseBytes { withinNoise += 1 }
            if naive - renderer > shortfall {
                shortfall = naive - renderer
                shortfallFraction = naive > 0 ? Double(shortfall) / Double(naive) : 0
            }
            if record.format == .jpeg, let width = record.width, let height = record.height,
               max(width, height) > 4 * record.targetLongestSide {
                largeJPEGs += 1
                if thumbnail < naive { below += 1 }
                let ratio = Double(naive) / Double(max(1, thumbnail))
                smallestRatio = min(smallestRatio ?? ratio, ratio)
            }
        }
        let sorted = differences.sorted()
        renderer = RendererAgainstNaive(
            images: differences.count, atLeastNaive: differences.filter { $0 >= 0 }.count, atLeastNaiveWithinNoise: withinNoise,
            largestShortfallBytes: shortfall, largestShortfallFraction: shortfallFraction,
            medianDifferenceBytes: Percentile.of(sorted, 50) ?? 0)
        thumbnail = ThumbnailOnLargeJPEGs(images: largeJPEGs, belowNaive: below, smallestRatio: smallestRatio)
    }
}
