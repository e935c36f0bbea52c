import Downsample
import Foundation

/// What `warm inspect` reports: the header, and each strategy's output size and retained bytes read
/// from the bitmap it really produced.
public struct ImageInspection: Sendable, Codable {
    public struct StrategyResult: Sendable, Codable {
        public var outputWidth: Int
        public var outputHeight: Int
        public var retainedBytes: Int
    }

    public var input: String
    public var sourceBytes: Int
    public var format: ImageFormat
    /// As stored, before orientation.
    public var width: Int
    public var height: Int
    public var bands: Int
    public var colourSpace: String
    public var hasAlpha: Bool
    public var orientation: Int
    var targetLongestSide: Int
    public var strategies: [String: StrategyResult]

    public static func inspect(_ data: Data, named input: String, target: DecodeTarget,
                               limits: DecodeLimits = .default) throws(DownsampleError) -> ImageInspection {
        let source = try ImageSource(data: data, limits: limits)
        var strategies: [String: StrategyResult] = [:]
        for kind in StrategyKind.allCases {
            let image = try kind.strategy.decode(source, target: target)
            strategies[kind.rawValue] = StrategyResult(outputWidth: image.width, outputHeight: image.height,
                                                       retainedBytes: image.retainedBytes)
        }
        let header = source.header
        return ImageInspection(input: input, sourceBytes: data.count, format: header.format, width: header.width,
                               height: header.height, bands: header.bands, colourSpace: header.colourSpace,
                               hasAlpha: header.hasAlpha, orientation: header.orientation,
                               targetLongestSide: target.longestSide, strategies: strategies)
    }
}
