import Cache
import Downsample
import Foundation
import WarmMetrics
import WarmSupport

/// What `ImageWarmer` did with one image, handed to the measuring stage (`MetricsRecorder`), which makes the metrics
/// record from it: the warm itself builds no record. Lives for one image.
struct WarmedImage: Sendable {
    var productId: Int?
    var url: String
    /// `ImageMetricsRecord.role`: nil for a list thumbnail, "carousel" for a detail's carousel image. An image shown
    /// both ways is handed over twice, once as each.
    var role: String?
    /// The size its record's strategies decode for: the smallest `--size`, or `--detail-size`.
    var targetLongestSide: Int
    /// The variants its record covers: the role's (`WarmConfiguration.variants(for:)`).
    var variants: [CacheVariant]
    var work: Work

    enum Work: Sendable {
        /// Downloaded and thumbnailed by this run (every variant written): the source, its header, each variant with its
        /// image, the smallest first (carousel sizes included).
        case thumbnailed(source: Data, header: ImageHeader, thumbnails: [VariantImage], encoder: EncoderSettings)
        /// Fresh or revalidated: the job's variants' cache rows, the first the smallest (carousel sizes included).
        case cached([CacheEntry])
    }

    /// The downloaded bytes, for the measuring processes; nil when this run did not download the image.
    var source: Data? {
        guard case .thumbnailed(let source, _, _, _) = work else { return nil }
        return source
    }

    /// The record of an image outside the sample, with what the warm knows; nil when it knows no size. From the cache
    /// rows, no orientation (the manifest keeps none) and no encode CPU (known only for variants this run encoded).
    func unmeasuredRecord() -> ImageMetricsRecord? {
        var record = unmeasuredSizes()
        record?.role = role
        return record
    }

    private func unmeasuredSizes() -> ImageMetricsRecord? {
        switch work {
        case .thumbnailed(let source, let header, let thumbnails, let encoder):
            guard let smallest = thumbnails.first(where: { isRecorded($0.variant) })?.image else { return nil }
            var record = ImageMetricsRecord.unmeasured(
                productId: productId, url: url, format: header.format, sourceBytes: source.count, width: header.width,
                height: header.height, orientation: header.orientation, targetLongestSide: targetLongestSide,
                thumbnailSize: smallest.size)
            record.sourceSHA256 = SHA256Hex.digest(of: source)
            (record.outputFormat, record.outputQuality) = (smallest.format, encoder.jpegQuality)
            // What the warm's own decode for the measured size counted (every format of a size shares it).
            record.strategies.thumbnail?.decodedPixels = thumbnails
                .first { $0.variant.longestSide == targetLongestSide }?.image.decodedPixels
            (record.build, record.decoders) = (WarmVersion.buildMode, VipsRuntime.decoderVersions)
            record.variants = variantMetrics
            return record
        case .cached(let entries):
            guard let entry = entries.first(where: { isRecorded($0.variant) }), let sourceBytes = entry.sourceBytes, let width = entry.sourceWidth,
                  let height = entry.sourceHeight, let outputWidth = entry.outputWidth,
                  let outputHeight = entry.outputHeight else { return nil }
            var record = ImageMetricsRecord.unmeasured(
                productId: productId, url: url, format: entry.sourceFormat.flatMap(ImageFormat.init(rawValue:)),
                sourceBytes: sourceBytes, width: width, height: height, orientation: nil,
                targetLongestSide: targetLongestSide, thumbnailSize: PixelSize(width: outputWidth, height: outputHeight))
            record.variants = variantMetrics
            return record
        }
    }

    private func isRecorded(_ variant: CacheVariant) -> Bool {
        variants.contains { $0.name == variant.name }
    }

    /// Each recorded variant's size and bytes, as the report's variant table reads them.
    var variantMetrics: [VariantMetrics] {
        switch work {
        case .thumbnailed(_, _, let thumbnails, _):
            return thumbnails.filter { isRecorded($0.variant) }.map { matched in
                let image = matched.image
                return VariantMetrics(format: image.format.rawValue, size: matched.variant.longestSide, width: image.size.width,
                                      height: image.size.height, bytes: image.data.count, encodeCPUSeconds: image.encodeCPUSeconds)
            }
        case .cached(let entries):
            return entries.filter { isRecorded($0.variant) }.compactMap { entry -> VariantMetrics? in
                guard let width = entry.outputWidth, let height = entry.outputHeight, let bytes = entry.outputBytes else { return nil }
                return VariantMetrics(format: entry.variant.format.rawValue, size: entry.variant.longestSide, width: width,
                                      height: height, bytes: bytes, encodeCPUSeconds: nil)
            }
        }
    }
}
