/// The three ways of turning encoded bytes into a displayable bitmap that this project compares.
public enum StrategyKind: String, Sendable, Codable, CaseIterable, Hashable {
    /// Decode the whole image and keep the full bitmap (`UIImage(data:)`).
    case naive
    /// Decode the whole image, draw it into a target-size canvas, keep the canvas (`UIGraphicsImageRenderer`).
    case renderer
    /// Shrink while decoding, never holding the full bitmap (`CGImageSourceCreateThumbnailAtIndex`).
    case thumbnail
}

/// Encoded source in, upright 8-bit sRGB RGBA bitmap out; stateless values, safe from many tasks at once.
public protocol DecodeStrategy: Sendable {
    var kind: StrategyKind { get }
    /// CPU-bound and synchronous: call it from a task whose concurrency is bounded by the core count.
    func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage
}

extension StrategyKind {
    public var strategy: any DecodeStrategy {
        switch self {
        case .naive: return NaiveDecode()
        case .renderer: return RendererResize()
        case .thumbnail: return ThumbnailAtDecode()
        }
    }
}
