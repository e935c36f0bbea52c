import WarmSupport
import Downsample
import Foundation

/// Measures one image with each strategy, every run a child forked by a measuring process; the lowest
/// peak of each strategy's runs is kept.
public struct StrategyMeasurer: Sendable {
    public struct Configuration: Sendable {
        var target: DecodeTarget
        var limits: DecodeLimits
        /// The shipped engine with the run's output format and quality: the thumbnail strategy.
        var encoder: ThumbnailEncoder
        /// Compute SSIM and PSNR (costs a full decode, a Lanczos3 resample and a pass over the pixels).
        var scoresQuality: Bool
        /// Runs per image of each strategy; the lowest peak of each is kept.
        var repeats: Repeats
        var pool: MeasuringPool

        public init(target: DecodeTarget, limits: DecodeLimits = .default, encoder: ThumbnailEncoder = ThumbnailEncoder(),
                    scoresQuality: Bool = true, repeats: Repeats = Repeats(), pool: MeasuringPool) {
            self.target = target
            self.limits = limits
            self.encoder = encoder
            self.scoresQuality = scoresQuality
            self.repeats = repeats
            self.pool = pool
        }
    }

    /// Runs per image of each strategy (`--measure-repeats`). The defaults come from two whole-catalog
    /// runs' naive peaks and from renderer's cost (bench/findings.md, section 14).
    public struct Repeats: Sendable, Equatable {
        public var naive = 2
        public var renderer = 1
        public var thumbnail = 3

        public init() {}

        /// Nil unless every count is at least 1.
        public init?(naive: Int, renderer: Int, thumbnail: Int) {
            guard min(naive, renderer, thumbnail) >= 1 else { return nil }
            (self.naive, self.renderer, self.thumbnail) = (naive, renderer, thumbnail)
        }

        func count(of kind: StrategyKind) -> Int {
            switch kind {
            case .naive: naive
            case .renderer: renderer
            case .thumbnail: thumbnail
            }
        }
    }

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Measures `data`; an image whose header is refused never reaches a child. `variants` (the warm's) are kept in
    /// the record, those at the measured size scored (SSIM) when quality is.
    public func measure(data: Data, productId: Int?, url: String, variants: [VariantMetrics]? = nil) async -> ImageMetricsRecord {
        let (record, handedOver) = await BlockingWork.run { [self] () -> (ImageMetricsRecord, String?) in
            var (record, opened) = startRecord(data: data, productId: productId, url: url)
            guard opened else { return (record, nil) }
            return (record, handOver(data, failureIn: &record))
        }
        var kept = record
        kept.variants = variants
        guard let file = handedOver else { return kept }
        defer { try? FileManager.default.removeItem(atPath: file) }
        let requests = requests(imagePath: file, variantFormats: Self.formats(of: variants))
        var folded = kept
        folded.fold(requests, await configuration.pool.run(requests))
        return folded
    }

    /// Every run of one image, renderer's first (the longest job) first; it scores quality after its span.
    func requests(imagePath: String, variantFormats: [OutputFormat] = []) -> [MeasureRequest] {
        [StrategyKind.renderer, .naive, .thumbnail].flatMap { kind in
            (0..<configuration.repeats.count(of: kind)).map { run in
                let scores = kind == .renderer && run == 0 && configuration.scoresQuality
                return MeasureRequest(strategy: kind, imagePath: imagePath, configuration: configuration, scoresQuality: scores,
                                      variantFormats: scores ? variantFormats.filter { $0 != configuration.encoder.format } : [])
            }
        }
    }

    /// The formats of the warm's variants, each once.
    static func formats(of variants: [VariantMetrics]?) -> [OutputFormat] {
        var formats: [OutputFormat] = []
        for name in (variants ?? []).map(\.format) {
            if let format = OutputFormat(rawValue: name), !formats.contains(format) { formats.append(format) }
        }
        return formats
    }

    /// The record's image fields, from the header alone (no pixels decoded);
    /// false when the header is refused (the record then says why).
    func startRecord(data: Data, productId: Int?, url: String) -> (ImageMetricsRecord, Bool) {
        var record = ImageMetricsRecord(
            productId: productId, url: url, format: ImageFormat.sniff(data), sourceBytes: data.count,
            width: nil, height: nil, orientation: nil, targetLongestSide: configuration.target.longestSide,
            peakMethod: .forkedProcess)
        record.sourceSHA256 = SHA256Hex.digest(of: data)
        (record.outputFormat, record.outputQuality) = (configuration.encoder.format, configuration.encoder.settings.jpegQuality)
        (record.build, record.decoders) = (WarmVersion.buildMode, VipsRuntime.decoderVersions)
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
            // "thumbnail" is the run's first format; "thumbnail.webp" and the like, its other variants' formats.
            let format = name == StrategyKind.thumbnail.rawValue ? outputFormat?.rawValue
                : name.hasPrefix("thumbnail.") ? String(name.dropFirst("thumbnail.".count)) : nil
            if let format, let index = variants?.firstIndex(where: { $0.format == format && $0.size == targetLongestSide }) {
                variants?[index].ssim = scores.ssim
            }
            guard let kind = StrategyKind(rawValue: name) else { continue }
            strategies[kind]?.ssim = scores.ssim
            strategies[kind]?.psnr = scores.psnr
        }
    }
}
