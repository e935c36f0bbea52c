import ChildProcesses
import Downsample
import Foundation
import WarmSupport

/// Measures one image with each decode strategy (an `ImageMetricsRecord`).
/// Every run is a child forked by a measuring process (`MeasuringPool`,
/// `MeasuringServer`), handed the image in a temporary file; the lowest peak
/// of each strategy's repeats is kept, and the first renderer run also scores quality.
public struct StrategyMeasurer: Sendable {
    public struct Configuration: Sendable {
        public var target: DecodeTarget
        public var limits: DecodeLimits
        /// The shipped engine with the run's output format and quality: the thumbnail strategy.
        public var encoder: ThumbnailEncoder
        /// Compute SSIM and PSNR (costs a full decode, a Lanczos3 resample and a pass over the pixels).
        public var scoresQuality: Bool
        /// Runs per image of thumbnail, and of naive and of renderer; the lowest peak of each is kept.
        public var thumbnailRepeats: Int
        public var fullDecodeRepeats: Int
        public var pool: MeasuringPool

        public init(target: DecodeTarget, limits: DecodeLimits = .default, encoder: ThumbnailEncoder = ThumbnailEncoder(),
                    scoresQuality: Bool = true, thumbnailRepeats: Int = Self.defaultThumbnailRepeats,
                    fullDecodeRepeats: Int = Self.defaultFullDecodeRepeats, pool: MeasuringPool) {
            self.target = target
            self.limits = limits
            self.encoder = encoder
            self.scoresQuality = scoresQuality
            self.thumbnailRepeats = max(1, thumbnailRepeats)
            self.fullDecodeRepeats = max(1, fullDecodeRepeats)
            self.pool = pool
        }

        // Chosen from two whole-catalog runs' naive peaks: bench/findings.md, section 14.
        public static let defaultThumbnailRepeats = 3
        public static let defaultFullDecodeRepeats = 2

        func repeats(of kind: StrategyKind) -> Int {
            kind == .thumbnail ? thumbnailRepeats : fullDecodeRepeats
        }
    }

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Measures `data`; an image whose header is refused never reaches a child.
    public func measure(data: Data, productId: Int?, url: String) async -> ImageMetricsRecord {
        let (record, handedOver) = await BlockingWork.run { [self] () -> (ImageMetricsRecord, String?) in
            var (record, opened) = startRecord(data: data, productId: productId, url: url)
            guard opened else { return (record, nil) }
            return (record, handOver(data, failureIn: &record))
        }
        guard let file = handedOver else { return record }
        defer { try? FileManager.default.removeItem(atPath: file) }
        var requests: [MeasureRequest] = []
        for kind in [StrategyKind.renderer, .naive, .thumbnail] {
            for run in 0..<configuration.repeats(of: kind) {
                // Renderer's first run, the longest job, goes first and scores quality after its span.
                let scores = kind == .renderer && run == 0 && configuration.scoresQuality
                requests.append(MeasureRequest(strategy: kind, imagePath: file, configuration: configuration, scoresQuality: scores))
            }
        }
        var folded = record
        folded.fold(requests, await configuration.pool.run(requests))
        return folded
    }

    /// The record's image fields, from the header alone (no pixels decoded);
    /// false when the header is refused (the record then says why).
    func startRecord(data: Data, productId: Int?, url: String) -> (ImageMetricsRecord, Bool) {
        var record = ImageMetricsRecord(
            productId: productId, url: url, format: ImageFormat.sniff(data), sourceBytes: data.count,
            width: nil, height: nil, orientation: nil, targetLongestSide: configuration.target.longestSide,
            peakMethod: .forkedProcess)
        do {
            let source = try ImageSource(data: data, limits: configuration.limits)
            record.format = source.header.format
            record.width = source.header.width
            record.height = source.header.height
            record.orientation = source.header.orientation
            return (record, true)
        } catch {
            record.fill(from: error)
            return (record, false)
        }
    }

    /// Writes `data` to a temporary file for the measuring children; nil (and the record says why) when it cannot.
    func handOver(_ data: Data, failureIn record: inout ImageMetricsRecord) -> String? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("warm-measure-\(UUID().uuidString)").path
        do {
            try data.write(to: URL(fileURLWithPath: path))
            return path
        } catch {
            record.error = "the image could not be handed to the measuring processes: \(error.localizedDescription)"
            record.errorReason = "measurement-failed"
            return nil
        }
    }
}

extension ImageMetricsRecord {
    /// Records an image that failed before any strategy ran, keeping what the error tells.
    mutating func fill(from error: DownsampleError) {
        self.error = error.description
        errorReason = error.reasonCode
        switch error {
        case .tooManyPixels(let format, let width, let height, _), .corrupt(let format, let width, let height, _):
            self.format = format
            self.width = width
            self.height = height
        case .unreadableHeader(let format, _):
            self.format = format
        default:
            break
        }
    }

    /// Folds the children's replies in: the lowest peak per strategy (with
    /// that run's times), the first failure of each strategy (the record keeps the first of all), the scores.
    mutating func fold(_ requests: [MeasureRequest], _ replies: [MeasureReply]) {
        var failed = Set<StrategyKind>()
        for (request, reply) in zip(requests, replies) where !failed.contains(request.strategy) {
            let kind = request.strategy
            guard let metrics = reply.metrics else {
                if error == nil {
                    (error, errorReason) = reply.failure.map { ("measuring the \(kind.rawValue) decode failed: \($0)", "measurement-failed") }
                        ?? ("the \(kind.rawValue) decode failed: \(reply.error ?? "no reason given")", reply.errorReason)
                }
                strategies[kind] = nil
                failed.insert(kind)
                continue
            }
            if let best = strategies[kind], !metrics.hasLowerPeak(than: best) { continue }
            strategies[kind] = metrics
        }
        for (name, scores) in replies.compactMap(\.scores).flatMap({ $0 }) {
            guard let kind = StrategyKind(rawValue: name) else { continue }
            strategies[kind]?.ssim = scores.ssim
            strategies[kind]?.psnr = scores.psnr
        }
    }
}
