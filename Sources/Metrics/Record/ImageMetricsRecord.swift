import Downsample
import Foundation
import WarmSupport

/// What was measured for one catalog image: one JSON Lines row, field names fixed (other tools read
/// them); every optional is written as an explicit `null`, so each row has every key.
public struct ImageMetricsRecord: Sendable, Equatable, Codable {
    @NullEncoded public var productId: Int? = nil
    public var url: String
    /// Set by sharded runs (which worker measured the image); nil otherwise.
    @NullEncoded public var shard: String? = nil
    /// Sniffed from the bytes; nil when they are not a known image format.
    @NullEncoded public var format: ImageFormat? = nil
    var sourceBytes: Int
    /// Lowercase hex SHA-256 of the source bytes: the image's identity wherever the catalog is served (`warm check`);
    /// nil for a record made from a cache entry (its bytes were not read) and in older files.
    @NullEncoded public var sourceSHA256: String? = nil
    /// As stored, before orientation; nil when the header could not be read.
    @NullEncoded public var width: Int? = nil
    @NullEncoded public var height: Int? = nil
    /// EXIF orientation the decoders applied (1-8); nil when unknown.
    @NullEncoded public var orientation: Int? = nil
    /// The display size the strategies decoded for (longest upright side, pixels).
    public var targetLongestSide: Int
    /// Where the app shows it at that size: "carousel" for a product detail's carousel image (at `--detail-size`);
    /// nil for a list thumbnail. An image shown both ways has a record of each.
    @NullEncoded public var role: String? = nil
    /// The thumbnail engine's output format and quality for this run; nil in a record made from a cache entry
    /// (encoded by an earlier run) and in older files.
    @NullEncoded public var outputFormat: OutputFormat? = nil
    @NullEncoded public var outputQuality: Int? = nil
    /// The build that measured the record ("debug" or "release", `WarmVersion.buildMode`) and the decoders it linked
    /// (`VipsRuntime.decoderVersions`); nil in older files.
    @NullEncoded public var build: String? = nil
    @NullEncoded public var decoders: String? = nil
    /// How `peakBytes` was measured (see `PeakMethod`); nil when not measured.
    @NullEncoded var peakMethod: PeakMethod? = nil
    /// False for an image warmed but not measured (`unmeasured(...)`).
    @TrueWhenAbsent var measured = true
    /// Why the image (or one of its strategies) failed, as a sentence; nil when all three decoded.
    @NullEncoded public var error: String? = nil
    /// A short stable token for grouping failures (`DownsampleError.reasonCode`); nil when no error.
    @NullEncoded var errorReason: String? = nil
    public var strategies = Strategies()
    /// Every size in every format the run cached; nil from `warm report --measure` and older files.
    public var variants: [VariantMetrics]?

    public static let carouselRole = "carousel"

    /// A list thumbnail's record: what `warm check` and the report's main tables cover.
    public var isThumbnail: Bool { role == nil }

    var isComplete: Bool {
        error == nil && StrategyKind.allCases.allSatisfy { strategies[$0] != nil }
    }

    var sourcePixels: Int? {
        guard let width, let height else { return nil }
        return width * height
    }

    /// One strategy's measurements; peak, times and quality are nil in an unmeasured record.
    public struct StrategyMetrics: Sendable, Equatable, Codable {
        var retainedBytes: Int
        /// Most memory the process gained while the strategy ran, its output still alive.
        @NullEncoded public var peakBytes: Int? = nil
        /// Process user + system CPU time (libvips works on its own threads).
        @NullEncoded var cpuSeconds: Double? = nil
        @NullEncoded var wallSeconds: Double? = nil
        var outputWidth: Int
        var outputHeight: Int
        /// Pixels the strategy decoded from the source (`EncodedImage.decodedPixels`): counted, not timed, so the
        /// same on any machine, load and build. Nil in older files and for strategies that did not run.
        @NullEncoded public var decodedPixels: Int? = nil
        /// Mean SSIM of luma against the Lanczos3 reference (1 is identical); nil for naive.
        @NullEncoded public var ssim: Double? = nil
        /// PSNR of RGB against the reference, in dB, capped at 100; nil for naive.
        @NullEncoded var psnr: Double? = nil
        /// Thumbnail only: lowercase hex SHA-256 of the bytes the engine encoded,
        /// the same as the cached file's for that image, size, format and quality.
        var outputSHA256: String?

        /// True when this run's peak was measured and is below `other`'s (or `other` has none).
        func hasLowerPeak(than other: StrategyMetrics) -> Bool {
            guard let peakBytes else { return false }
            return other.peakBytes.map { peakBytes < $0 } ?? true
        }
    }

    public struct Strategies: Sendable, Equatable, Codable {
        @NullEncoded public var naive: StrategyMetrics? = nil
        @NullEncoded public var renderer: StrategyMetrics? = nil
        @NullEncoded public var thumbnail: StrategyMetrics? = nil

        public subscript(kind: StrategyKind) -> StrategyMetrics? {
            get { self[keyPath: Self.field(kind)] }
            set { self[keyPath: Self.field(kind)] = newValue }
        }

        private static func field(_ kind: StrategyKind) -> WritableKeyPath<Strategies, StrategyMetrics?> {
            switch kind {
            case .naive: \.naive
            case .renderer: \.renderer
            case .thumbnail: \.thumbnail
            }
        }
    }
}

/// An optional written as an explicit `null` when nil (synthesised `Codable` would leave the key out).
@propertyWrapper
public struct NullEncoded<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// `measured`, absent from files written before unmeasured records existed: all measured.
@propertyWrapper
struct TrueWhenAbsent: Codable, Sendable, Equatable {
    var wrappedValue: Bool

    init(wrappedValue: Bool) {
        self.wrappedValue = wrappedValue
    }

    init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Bool.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    // Synthesised decoding calls these for the wrappers; they accept a missing key.
    func decode<T>(_: NullEncoded<T>.Type, forKey key: Key) throws -> NullEncoded<T> {
        NullEncoded(wrappedValue: try decodeIfPresent(T.self, forKey: key))
    }

    func decode(_: TrueWhenAbsent.Type, forKey key: Key) throws -> TrueWhenAbsent {
        TrueWhenAbsent(wrappedValue: try decodeIfPresent(Bool.self, forKey: key) ?? true)
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
    /// SSIM against the full-decode reference, as the strategies' (measured images, at the measured size only).
    var ssim: Double?

    public init(format: String, size: Int, width: Int, height: Int, bytes: Int, encodeCPUSeconds: Double?) {
        self.format = format
        self.size = size
        self.width = width
        self.height = height
        self.bytes = bytes
        self.encodeCPUSeconds = encodeCPUSeconds
    }

    /// What the variant takes on a device once decoded: width x height x 4 (RGBA).
    var decodedBytes: Int { width * height * 4 }
}
