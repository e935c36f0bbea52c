import CWarmVips

/// The reference's float copy is rendered in memory up to this size (same pixels, less CPU), streamed above it;
/// made after the strategy's span is measured, so it is in no peak.
let referenceMaterializeLimit = 256 << 20

/// The quality reference: the full upright decode resampled to `size` with Lanczos3. Made from the naive decode the
/// caller already holds, so an image is not fully decoded a third time; a measurement tool, never a display path.
public func referenceImage(for source: ImageSource, size: PixelSize, from naive: DecodedImage) throws(DownsampleError) -> DecodedImage {
    precondition(naive.strategy == .naive, "the reference must be made from the naive (full) decode")
    let full = naive.image
    guard size.width > 0, size.height > 0 else { throw source.corrupt("reference size \(size) is empty") }
    if size.width == full.width && size.height == full.height {
        return DecodedImage(strategy: .naive, image: full)
    }
    let hscale = Double(size.width) / Double(full.width)
    let vscale = Double(size.height) / Double(full.height)
    // A source without alpha got alpha 255 in the naive bitmap; one with alpha is checked (one pass over it).
    let opaque = !source.header.hasAlpha || ((try? full.isOpaque()) ?? false)
    let resampled = try vips(or: source.corrupt) {
        try full.referenceResized(hscale: hscale, vscale: vscale, opaque: opaque, materializeLimit: referenceMaterializeLimit)
    }
    // libvips rounds the output size: a pixel too many is cropped, one too few cannot be compared.
    if resampled.width < size.width || resampled.height < size.height {
        throw source.corrupt("the Lanczos3 reference came out \(resampled.width)x\(resampled.height), smaller than \(size)")
    }
    return DecodedImage(strategy: .naive, image: try vips(or: source.corrupt) {
        let exact = resampled.width == size.width && resampled.height == size.height
        return try (exact ? resampled : resampled.cropped(left: 0, top: 0, width: size.width, height: size.height)).materialized()
    })
}
