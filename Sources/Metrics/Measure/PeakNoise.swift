import Downsample
import Foundation
import WarmSupport

/// Run-to-run variation of `peakBytes` on one image, printed in reports so a reader knows which
/// differences are real.
struct PeakNoise: Sendable, Equatable {
    struct Spread: Sendable, Equatable {
        var kind: StrategyKind
        var samplesBytes: [Int]
        var minBytes: Int { samplesBytes.min() ?? 0 }
        var maxBytes: Int { samplesBytes.max() ?? 0 }
        var medianBytes: Int { Percentile.of(samplesBytes.sorted(), 50) ?? 0 }
        var rangeBytes: Int { maxBytes - minBytes }
        var standardDeviationBytes: Double {
            guard !samplesBytes.isEmpty else { return 0 }
            let mean = Double(samplesBytes.reduce(0, +)) / Double(samplesBytes.count)
            let variance = samplesBytes.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(samplesBytes.count)
            return variance.squareRoot()
        }
    }

    /// What was measured, as a phrase ("a synthetic 1600x1200 JPEG at 300 px").
    var subject: String
    var repeats: Int
    var peakMethod: PeakMethod
    var spreads: [Spread]

    static func measure(data: Data, subject: String, target: DecodeTarget, repeats: Int, pool: MeasuringPool) async -> PeakNoise {
        let measurer = StrategyMeasurer(configuration: .init(target: target, scoresQuality: false, pool: pool))
        var samples: [StrategyKind: [Int]] = [:]
        for run in 0..<repeats {
            let record = await measurer.measure(data: data, productId: nil, url: "noise-\(run)")
            for kind in StrategyKind.allCases {
                if let peak = record.strategies[kind]?.peakBytes { samples[kind, default: []].append(peak) }
            }
        }
        return PeakNoise(subject: subject, repeats: repeats, peakMethod: .forkedProcess,
                         spreads: StrategyKind.allCases.map { Spread(kind: $0, samplesBytes: samples[$0] ?? []) })
    }

    /// Measures the noise on a synthetic photograph-like JPEG, so the figure needs no input files.
    static func measureSyntheticJPEG(size: PixelSize = PixelSize(width: 1600, height: 1200), target: DecodeTarget,
                                            repeats: Int, pool: MeasuringPool) async throws(DownsampleError) -> PeakNoise {
        let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120,
                                             bands: 3, as: CompositionEncoding(format: .jpeg))
        let data = try ImageComposer.photo(small, size: size, as: CompositionEncoding(format: .jpeg))
        return await measure(data: data, subject: "a synthetic \(size) JPEG (\(data.count) bytes) at \(target.longestSide) px",
                             target: target, repeats: repeats, pool: pool)
    }
}
