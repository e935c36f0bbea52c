import CWarmVips

/// The float copy the reference's resample reads is made in memory up to this
/// size and streamed above it: the same pixels, less CPU when copied. It is
/// made after the strategy's span is measured, so it is in no peak.
let referenceMaterializeLimit = 256 << 20

/// The quality reference that renderer and thumbnail outputs are compared
/// against: the full, upright RGBA decode resampled to `size` with Lanczos3
/// (libvips' highest-quality kernel, alpha premultiplied around the resample;
/// an opaque image's colour bands resampled alone, which gives the same pixels).
///
/// Costs one full decode (the naive bitmap) plus the output bitmap; it is a
/// measurement tool, never a display path. The result's `strategy` is
/// `.naive`: it is the full decode, resampled. Made from the naive decode of
/// `source` the caller already holds, so that measuring an image does not
/// decode it fully a third time.
/// - Precondition: `naive` is `NaiveDecode`'s output for `source`.
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
    // libvips rounds the output size; a pixel too many is cropped, a pixel too
    // few means the reference cannot be compared and is an error.
    if resampled.width < size.width || resampled.height < size.height {
        throw source.corrupt("the Lanczos3 reference came out \(resampled.width)x\(resampled.height), smaller than \(size)")
    }
    return DecodedImage(strategy: .naive, image: try vips(or: source.corrupt) {
        let exact = resampled.width == size.width && resampled.height == size.height
        return try (exact ? resampled : resampled.cropped(left: 0, top: 0, width: size.width, height: size.height)).materialized()
    })
}
