/// Thumbnail-at-decode as shipped (`ThumbnailEncoder`); the bitmap is what an app holds once it decodes the bytes.
public struct ThumbnailAtDecode: DecodeStrategy {
    var encoder: ThumbnailEncoder

    init(encoder: ThumbnailEncoder = ThumbnailEncoder()) {
        self.encoder = encoder
    }

    public var kind: StrategyKind { .thumbnail }

    public func decode(_ source: ImageSource, target: DecodeTarget) throws(DownsampleError) -> DecodedImage {
        try Self.decode(try encoder.encode(source, target: target))
    }

    /// The bitmap an app gets from the engine's `encoded` bytes (upright already: they carry no orientation).
    public static func decode(_ encoded: EncodedImage) throws(DownsampleError) -> DecodedImage {
        DecodedImage(strategy: .thumbnail, image: try NaiveDecode.fullBitmap(try ImageSource(data: encoded.data)),
                     decodedPixels: encoded.decodedPixels)
    }
}
