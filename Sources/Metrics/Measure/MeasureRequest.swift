import Downsample
import Foundation
import WarmSupport

/// One JSON line to a measuring process: one strategy once on one file, with quality scored after the
/// span when `scoresQuality`.
struct MeasureRequest: Sendable, Hashable, Codable {
    var strategy: StrategyKind
    var imagePath: String
    var target: DecodeTarget
    var limits: DecodeLimits
    /// The run's output format and encoder settings: what the thumbnail engine encodes.
    var format: OutputFormat
    var settings: EncoderSettings
    var scoresQuality: Bool?
    /// With `scoresQuality`, the run's other formats, each scored as "thumbnail.<format>".
    var variantFormats: [OutputFormat]?

    init(strategy: StrategyKind, imagePath: String, configuration: StrategyMeasurer.Configuration, scoresQuality: Bool = false,
         variantFormats: [OutputFormat] = []) {
        self.strategy = strategy
        self.imagePath = imagePath
        target = configuration.target
        limits = configuration.limits
        format = configuration.encoder.format
        settings = configuration.encoder.settings
        self.scoresQuality = scoresQuality ? true : nil
        self.variantFormats = variantFormats.isEmpty ? nil : variantFormats
    }

    var encoder: ThumbnailEncoder { ThumbnailEncoder(format: format, settings: settings) }
}

/// What a measuring child answers: the strategy's metrics, or why it failed
/// (`error` from the decoder, `failure` when the child itself did not answer).
struct MeasureReply: Sendable, Equatable, Codable {
    struct Scores: Sendable, Equatable, Codable {
        var ssim: Double?
        var psnr: Double?
    }

    var metrics: ImageMetricsRecord.StrategyMetrics?
    var error: String?
    var errorReason: String?
    /// Renderer's and thumbnail's scores, by strategy name.
    var scores: [String: Scores]?
    var failure: String?
}

extension MeasureRequest {
    /// Runs the job in this process (a child forked by `MeasuringServer`), `mappedFiles` paged in first.
    func runHere(faultingIn mappedFiles: [Range<Int>]) -> MeasureReply {
        let source: ImageSource
        do {
            source = try ImageSource(data: try Data(contentsOf: URL(fileURLWithPath: imagePath)), limits: limits)
        } catch let error as DownsampleError {
            return MeasureReply(error: error.description, errorReason: error.reasonCode)
        } catch {
            return MeasureReply(error: "the image file cannot be read: \(error.localizedDescription)", errorReason: "unreadable-file")
        }
        ProcessMemory.faultIn(mappedFiles)
        switch measureSpan(source) {
        case .success(let (metrics, output)):
            guard scoresQuality == true else { return MeasureReply(metrics: metrics) }
            return MeasureReply(metrics: metrics, scores: scores(of: source, given: output))
        case .failure(let error):
            return MeasureReply(error: error.description, errorReason: error.reasonCode)
        }
    }

    /// What a strategy leaves: a bitmap, or the engine's encoded thumbnail.
    enum Output {
        case bitmap(DecodedImage)
        case encoded(EncodedImage)
    }

    /// Runs the strategy between a reset of the peak and its reading, its
    /// output kept alive until then (as a cache would keep it).
    func measureSpan(_ source: ImageSource) -> Result<(ImageMetricsRecord.StrategyMetrics, Output), DownsampleError> {
        ProcessAllocator.trim()
        _ = ProcessMemory.resetPeak()
        let rssBefore = ProcessMemory.resident()?.rssBytes ?? 0
        let cpuBefore = ProcessCPUTime.seconds()
        let clock = ContinuousClock()
        let started = clock.now
        let result = Result { () throws(DownsampleError) -> Output in
            switch strategy {
            case .thumbnail: return .encoded(try encoder.encode(source, target: target))
            case .naive, .renderer: return .bitmap(try strategy.strategy.decode(source, target: target))
            }
        }
        let wall = clock.now - started
        let cpuSeconds = ProcessCPUTime.seconds() - cpuBefore
        let peakBytes = withExtendedLifetime(result) { max(0, (ProcessMemory.resident()?.peakBytes ?? rssBefore) - rssBefore) }
        return result.map { output in
            var metrics = ImageMetricsRecord.StrategyMetrics(
                retainedBytes: 0, peakBytes: peakBytes, cpuSeconds: max(0, cpuSeconds), wallSeconds: wall.inSeconds,
                outputWidth: 0, outputHeight: 0)
            switch output {
            case .bitmap(let image):
                (metrics.retainedBytes, metrics.outputWidth, metrics.outputHeight) = (image.retainedBytes, image.width, image.height)
                metrics.decodedPixels = image.decodedPixels
            case .encoded(let encoded):
                metrics.decodedPixels = encoded.decodedPixels
                // What the app holds once it decodes these bytes.
                metrics.retainedBytes = encoded.size.width * encoded.size.height * 4
                (metrics.outputWidth, metrics.outputHeight) = (encoded.size.width, encoded.size.height)
                metrics.outputSHA256 = SHA256Hex.digest(of: encoded.data)
            }
            return (metrics, output)
        }
    }

    /// SSIM and PSNR against a Lanczos3 reference from the naive bitmap; the thumbnail is scored as the
    /// app sees it, its encoded bytes decoded.
    func scores(of source: ImageSource, given: Output) -> [String: MeasureReply.Scores] {
        var outputs: [StrategyKind: DecodedImage] = [:]
        var encoded: EncodedImage?
        switch given {
        case .bitmap(let image): outputs[strategy] = image
        case .encoded(let image): encoded = image
        }
        guard let full = try? NaiveDecode().decode(source, target: target) else { return [:] }
        if outputs[.renderer] == nil { outputs[.renderer] = try? RendererResize().decode(source, target: target) }
        if let thumbnail = try? encoded ?? encoder.encode(source, target: target) {
            outputs[.thumbnail] = try? ThumbnailAtDecode.decode(thumbnail)
        }
        var scored: [(String, DecodedImage)] = [StrategyKind.renderer, .thumbnail].compactMap { kind in
            outputs[kind].map { (kind.rawValue, $0) }
        }
        for format in variantFormats ?? [] {
            let encoder = ThumbnailEncoder(format: format, settings: settings)
            if let image = try? ThumbnailAtDecode.decode(encoder.encode(source, target: target)) {
                scored.append(("thumbnail.\(format.rawValue)", image))
            }
        }
        var scores: [String: MeasureReply.Scores] = [:]
        var references: [PixelSize: DecodedImage] = [:]
        for (name, output) in scored {
            if references[output.size] == nil { references[output.size] = try? referenceImage(for: source, size: output.size, from: full) }
            guard let reference = references[output.size], let score = ImageSimilarity.compare(output, to: reference) else { continue }
            scores[name] = .init(ssim: score.ssim, psnr: score.psnr)
        }
        return scores
    }
}
