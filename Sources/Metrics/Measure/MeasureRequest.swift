import Downsample
import Foundation

/// One job for a measuring process (`MeasuringServer`), sent as one JSON
/// line: measure one strategy once on one image file, or score renderer's
/// and thumbnail's output against the Lanczos3 reference (unmeasured), or
/// both: a strategy run with `scoresQuality` scores after its span, reusing
/// its own output, so that renderer's full decode and resample are not done
/// again just to be scored (on a 4032x3024 JPEG, a quality job of its own
/// took 1.2-1.4 s, the renderer run 0.4-0.5 s).
public struct MeasureRequest: Sendable, Hashable, Codable {
    public enum Job: String, Sendable, Hashable, Codable {
        case naive, renderer, thumbnail, quality

        init(_ kind: StrategyKind) {
            switch kind {
            case .naive: self = .naive
            case .renderer: self = .renderer
            case .thumbnail: self = .thumbnail
            }
        }

        var strategy: StrategyKind? {
            switch self {
            case .naive: return .naive
            case .renderer: return .renderer
            case .thumbnail: return .thumbnail
            case .quality: return nil
            }
        }
    }

    public var job: Job
    public var imagePath: String
    public var targetLongestSide: Int
    public var maxPixels: Int
    public var maxEncodedBytes: Int
    public var peakMethod: PeakMethod
    /// A strategy job that also answers the quality scores once its span is measured.
    public var scoresQuality: Bool?

    init(job: Job, imagePath: String, target: DecodeTarget, limits: DecodeLimits, peakMethod: PeakMethod,
         scoresQuality: Bool = false) {
        self.scoresQuality = scoresQuality ? true : nil
        self.job = job
        self.imagePath = imagePath
        self.targetLongestSide = target.longestSide
        self.maxPixels = limits.maxPixels
        self.maxEncodedBytes = limits.maxEncodedBytes
        self.peakMethod = peakMethod
    }

    var target: DecodeTarget { DecodeTarget(longestSide: targetLongestSide) }
    var limits: DecodeLimits { DecodeLimits(maxPixels: maxPixels, maxEncodedBytes: maxEncodedBytes) }
}

/// What a measuring process answers to one `MeasureRequest`: a strategy's
/// report, quality scores, or why the job failed.
public struct MeasureReply: Sendable, Equatable, Codable {
    public struct Scores: Sendable, Equatable, Codable {
        public var ssim: Double?
        public var psnr: Double?
    }

    public var report: IsolatedStrategyRun.Report?
    /// Renderer's and thumbnail's scores, by strategy name.
    public var scores: [String: Scores]?
    /// Why the measuring process could not answer (the child crashed, ...).
    public var failure: String?
}

extension MeasureRequest {
    /// Runs the job in this process (a forked child of `MeasuringServer`).
    func runHere() -> MeasureReply {
        if let kind = job.strategy {
            let run = IsolatedStrategyRun(kind: kind, imagePath: imagePath, target: target, limits: limits,
                                          preferredPeakMethod: peakMethod)
            let (report, measured) = run.measureHere()
            guard scoresQuality == true, let measured else { return MeasureReply(report: report) }
            return MeasureReply(report: report, scores: scores(of: measured.source, given: [kind: measured.output]))
        }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: imagePath)),
              let source = try? ImageSource(data: data, limits: limits) else {
            return MeasureReply(scores: [:])
        }
        return MeasureReply(scores: scores(of: source, given: [:]))
    }

    /// Renderer's and thumbnail's SSIM and PSNR against the Lanczos3
    /// reference (made from the naive bitmap), decoding unmeasured every
    /// output not `given`.
    private func scores(of source: ImageSource, given: [StrategyKind: DecodedImage]) -> [String: MeasureReply.Scores] {
        let measurer = StrategyMeasurer(configuration: .init(target: target, limits: limits))
        var outputs = given
        for kind in StrategyKind.allCases where outputs[kind] == nil {
            outputs[kind] = try? kind.strategy.decode(source, target: target)
        }
        var record = ImageMetricsRecord(productId: nil, url: imagePath, format: source.header.format, sourceBytes: source.data.count,
                                        width: nil, height: nil, orientation: nil, targetLongestSide: targetLongestSide,
                                        peakMethod: peakMethod)
        for (kind, output) in outputs {
            record.strategies[kind] = .init(retainedBytes: output.retainedBytes, peakBytes: 0, cpuSeconds: 0,
                                            wallSeconds: 0, outputWidth: output.width, outputHeight: output.height)
        }
        measurer.addQuality(to: &record, outputs: outputs, source: source)
        var scores: [String: MeasureReply.Scores] = [:]
        for kind in [StrategyKind.renderer, .thumbnail] {
            if let metrics = record.strategies[kind] { scores[kind.rawValue] = .init(ssim: metrics.ssim, psnr: metrics.psnr) }
        }
        return scores
    }
}
