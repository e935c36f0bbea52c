import Cache
import Downsample

/// One cache variant and the thumbnail stored under it, matched by format and size, never by position: the decoder's
/// order is its own (`Thumbnails`), the run's variants are the configuration's.
struct VariantImage: Sendable {
    var variant: CacheVariant
    var image: EncodedImage

    /// For each variant, the image in its format whose longest side is the variant's, or the source's when the source
    /// is smaller (a thumbnail is never upscaled, so then every larger variant gets that same image).
    /// - Throws: `.encodeFailed` naming the variant when the decoder made no such image.
    static func match(_ variants: [CacheVariant], in thumbnails: Thumbnails) throws(DownsampleError) -> [VariantImage] {
        let sourceLongestSide = max(thumbnails.header.width, thumbnails.header.height)
        var matched: [VariantImage] = []
        for variant in variants {
            let longestSide = min(variant.longestSide, sourceLongestSide)
            guard let image = thumbnails.images.first(where: { image in
                image.format == variant.format && max(image.size.width, image.size.height) == longestSide
            }) else {
                throw .encodeFailed(format: variant.format.rawValue,
                                    reason: "the decoder made no \(longestSide)-pixel image for the \(variant) variant")
            }
            matched.append(VariantImage(variant: variant, image: image))
        }
        return matched
    }
}
