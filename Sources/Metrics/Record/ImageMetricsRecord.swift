import Downsample
import Foundation

/// What was measured for one catalog image: one JSON Lines row, field names fixed (other tools read
/// them); every optional is written as an explicit `null`, so each row has every key.
public struct ImageMetricsRecord: Sendable, Equatable, Codable {
    public var productId: Int?
    public var url: String
    /// Set by sharded runs (which worker measured the image); nil otherwise.
    public var shard: String?
    /// Sniffed from the bytes; nil when they are not a known image format.
    public var format: ImageFormat?
    public var sourceBytes: Int
    /// As stored, before orientation; nil when the header could not be read.
    public var width: Int?
    public var height: Int?
    /// EXIF orientation the decoders applied (1-8); nil when unknown.
    public var orientation: Int?
    /// The display size the strategies decoded for (longest upright side, pixels).
    public var targetLongestSide: Int
    /// How `peakBytes` was measured (see `PeakMethod`); nil when not measured.
    public var peakMethod: PeakMethod?
    /// False for an image warmed but not measured (`unmeasured(...)`).
    public var measured = true
    /// Why the image (or one of its strategies) failed, as a sentence; nil when all three decoded.
    public var error: String?
    /// A short stable token for grouping failures (`DownsampleError.reasonCode`); nil when no error.
    public var errorReason: String?
    public var strategies = Strategies()
    /// Every size in every format the run cached; nil from `warm report --measure` and older files.
    public var variants: [VariantMetrics]?

    public var isComplete: Bool {
        error == nil && StrategyKind.allCases.allSatisfy { strategies[$0] != nil }
    }

    public var sourcePixels: Int? {
        guard let width, let height else { return nil }
        return width * height
    }

    /// One strategy's measurements; peak, times and quality are nil in an unmeasured record.
    public struct StrategyMetrics: Sendable, Equatable, Codable {
        public var retainedBytes: Int
        /// Most memory the process gained while the strategy ran, its output still alive.
        public var peakBytes: Int?
        /// Process user + system CPU time (libvips works on its own threads).
        public var cpuSeconds: Double?
        public var wallSeconds: Double?
        public var outputWidth: Int
        public var outputHeight: Int
        /// Mean SSIM of luma against the Lanczos3 reference (1 is identical); nil for naive.
        public var ssim: Double?
        /// PSNR of RGB against the reference, in dB, capped at 100; nil for naive.
        public var psnr: Double?
        /// Thumbnail only: lowercase hex SHA-256 of the bytes the engine encoded,
        /// the same as the cached file's for that image, size, format and quality.
        public var outputSHA256: String?

        public var outputSize: PixelSize { PixelSize(width: outputWidth, height: outputHeight) }

        /// True when this run's peak was measured and is below `other`'s (or `other` has none).
        public func hasLowerPeak(than other: StrategyMetrics) -> Bool {
            guard let peakBytes else { return false }
            return other.peakBytes.map { peakBytes < $0 } ?? true
        }

        enum CodingKeys: String, CodingKey {
            case retainedBytes, peakBytes, cpuSeconds, wallSeconds, outputWidth, outputHeight, ssim, psnr, outputSHA256
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(retainedBytes, forKey: .retainedBytes)
            try c.encode(peakBytes, forKey: .peakBytes)
            try c.encode(cpuSeconds, forKey: .cpuSeconds)
            try c.encode(wallSeconds, forKey: .wallSeconds)
            try c.encode(outputWidth, forKey: .outputWidth)
            try c.encode(outputHeight, forKey: .outputHeight)
            try c.encode(ssim, forKey: .ssim)
            try c.encode(psnr, forKey: .psnr)
            try c.encodeIfPresent(outputSHA256, forKey: .outputSHA256)
        }
    }

    public struct Strategies: Sendable, Equatable, Codable {
        public var naive: StrategyMetrics?
        public var renderer: StrategyMetrics?
        public var thumbnail: StrategyMetrics?

        public subscript(kind: StrategyKind) -> StrategyMetrics? {
            get {
                switch kind {
                case .naive: return naive
                case .renderer: return renderer
                case .thumbnail: return thumbnail
                }
            }
            set {
                switch kind {
                case .naive: naive = newValue
                case .renderer: renderer = newValue
                case .thumbnail: thumbnail = newValue
                }
            }
        }

        enum CodingKeys: String, CodingKey { case naive, renderer, thumbnail }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(naive, forKey: .naive)
            try c.encode(renderer, forKey: .renderer)
            try c.encode(thumbnail, forKey: .thumbnail)
        }
    }

    enum CodingKeys: String, CodingKey {
        case productId, url, shard, format, sourceBytes, width, height, orientation, targetLongestSide,
             peakMethod, measured, error, errorReason, strategies, variants
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(productId, forKey: .productId)
        try c.encode(url, forKey: .url)
        try c.encode(shard, forKey: .shard)
        try c.encode(format, forKey: .format)
        try c.encode(sourceBytes, forKey: .sourceBytes)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(orientation, forKey: .orientation)
        try c.encode(targetLongestSide, forKey: .targetLongestSide)
        try c.encode(peakMethod, forKey: .peakMethod)
        try c.encode(measured, forKey: .measured)
        try c.encode(error, forKey: .error)
        try c.encode(errorReason, forKey: .errorReason)
        try c.encode(strategies, forKey: .strategies)
        try c.encodeIfPresent(variants, forKey: .variants)
    }
}

// In an extension, so that the record keeps its memberwise initializer.
extension ImageMetricsRecord {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        productId = try c.decodeIfPresent(Int.self, forKey: .productId)
        url = try c.decode(String.self, forKey: .url)
        shard = try c.decodeIfPresent(String.self, forKey: .shard)
        format = try c.decodeIfPresent(ImageFormat.self, forKey: .format)
        sourceBytes = try c.decode(Int.self, forKey: .sourceBytes)
        width = try c.decodeIfPresent(Int.self, forKey: .width)
        height = try c.decodeIfPresent(Int.self, forKey: .height)
        orientation = try c.decodeIfPresent(Int.self, forKey: .orientation)
        targetLongestSide = try c.decode(Int.self, forKey: .targetLongestSide)
        peakMethod = try c.decodeIfPresent(PeakMethod.self, forKey: .peakMethod)
        // Absent in files written before unmeasured records existed: all measured.
        measured = try c.decodeIfPresent(Bool.self, forKey: .measured) ?? true
        error = try c.decodeIfPresent(String.self, forKey: .error)
        errorReason = try c.decodeIfPresent(String.self, forKey: .errorReason)
        strategies = try c.decode(Strategies.self, forKey: .strategies)
        variants = try c.decodeIfPresent([VariantMetrics].self, forKey: .variants)
    }
}

/// One cache variant of an image (a size in a format) as the run encoded and stored it.
public struct VariantMetrics: Sendable, Equatable, Codable {
    /// `jpeg`, `webp`, `avif` or `png`.
    public var format: String
    public var size: Int
    public var width: Int
    public var height: Int
    public var bytes: Int
    /// CPU time of this variant's encode alone (the decode and resize it shares are not in it).
    public var encodeCPUSeconds: Double?

    public init(format: String, size: Int, width: Int, height: Int, bytes: Int, encodeCPUSeconds: Double?) {
        self.format = format
        self.size = size
        self.width = width
        self.height = height
        self.bytes = bytes
        self.encodeCPUSeconds = encodeCPUSeconds
    }

    /// What the variant takes on a device once decoded: width x height x 4 (RGBA).
    public var decodedBytes: Int { width * height * 4 }
}
