import Foundation

/// Encoded bytes whose format was sniffed and header checked against the limits; no pixel is decoded.
public struct ImageSource: Sendable {
    let data: Data
    public let header: ImageHeader
    let limits: DecodeLimits

    public var format: ImageFormat { header.format }

    public init(data: Data, limits: DecodeLimits = .default) throws(DownsampleError) {
        try VipsRuntime.ensureStarted()
        guard !data.isEmpty else { throw .empty }
        guard data.count <= limits.maxEncodedBytes else {
            throw .tooManyBytes(byteCount: data.count, limit: limits.maxEncodedBytes)
        }
        guard let format = ImageFormat.sniff(data) else {
            throw .notAnImage(looksLike: ImageFormat.describeNonImage(data))
        }
        if let declared = DeclaredSize.of(data, format: format), declared.width * declared.height > limits.maxPixels {
            throw .tooManyPixels(format: format, width: declared.width, height: declared.height, limit: limits.maxPixels)
        }
        // No copy: the image handle is released before the closure returns.
        let header = try vips(or: { .unreadableHeader(format: format, reason: $0) }) {
            try data.withUnsafeBytes { memory in
                let image = try VipsImageHandle.open(memory: memory)
                let exif = image.exifBlock
                return ImageHeader(
                    format: format, width: image.width, height: image.height, bands: image.bands,
                    hasAlpha: image.hasAlpha, isSixteenBit: image.isSixteenBit,
                    colourSpace: image.interpretationName, hasICCProfile: image.hasICCProfile,
                    pageCount: max(1, image.pageCount), hasExif: exif != nil,
                    exifOrientation: exif.map(ExifReader.orientation(in:)) ?? 0)
            }
        }
        guard header.width > 0, header.height > 0 else {
            throw .unreadableHeader(format: format, reason: "declared size \(header.width)x\(header.height)")
        }
        guard header.width * header.height <= limits.maxPixels else {
            throw .tooManyPixels(format: format, width: header.width, height: header.height, limit: limits.maxPixels)
        }
        self.data = data
        self.header = header
        self.limits = limits
    }

    func corrupt(_ reason: String) -> DownsampleError {
        .corrupt(format: header.format, width: header.width, height: header.height, reason: reason)
    }
}
