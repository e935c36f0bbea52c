import CWarmVips
import Foundation

/// Owns one libvips image reference: the only type in the project that holds a
/// `VipsImage` pointer. The reference is released in `deinit`.
///
/// `@unchecked Sendable` is safe here: a libvips image is never mutated after
/// the operation that made it returns (every method below builds a new image),
/// GObject reference counting is atomic, and libvips operations may run on the
/// same input image from several threads at once.
final class VipsImageHandle: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<VipsImage>

    private init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    // MARK: Making images

    /// Opens encoded bytes lazily: only the header is read now.
    static func open(_ data: Data, failOnError: Bool = true, sequential: Bool = false) -> Result<VipsImageHandle, VipsFailure> {
        let image = data.withUnsafeBytes { raw in
            warm_image_new_from_buffer(raw.baseAddress, raw.count, failOnError ? 1 : 0, sequential ? 1 : 0)
        }
        guard let image else { return .failure(VipsFailure(VipsRuntime.takeError())) }
        return .success(VipsImageHandle(image))
    }

    /// Opens encoded bytes lazily without copying them (only the header is
    /// read now). The image and everything made from it must not outlive
    /// `memory`: callers keep them inside the scope that lends the bytes.
    static func open(memory: UnsafeRawBufferPointer, failOnError: Bool = true, sequential: Bool = false) -> Result<VipsImageHandle, VipsFailure> {
        guard let image = warm_image_new_from_memory(memory.baseAddress, memory.count, failOnError ? 1 : 0, sequential ? 1 : 0) else {
            return .failure(VipsFailure(VipsRuntime.takeError()))
        }
        return .success(VipsImageHandle(image))
    }

    /// A sequential JPEG decode at 1/`shrink` (1, 2, 4 or 8) done by libjpeg
    /// in the DCT domain, from bytes that are not copied (see `open(memory:)`).
    static func jpeg(memory: UnsafeRawBufferPointer, shrink: Int, failOnError: Bool = true) -> Result<VipsImageHandle, VipsFailure> {
        guard let image = warm_jpeg_new_from_memory(memory.baseAddress, memory.count, Int32(shrink), failOnError ? 1 : 0) else {
            return .failure(VipsFailure(VipsRuntime.takeError()))
        }
        return .success(VipsImageHandle(image))
    }

    /// libvips thumbnail with shrink-on-load, fitting in size x size, never
    /// upscaling, from bytes that are not copied (see `open(memory:)`).
    static func thumbnail(memory: UnsafeRawBufferPointer, size: Int, failOnError: Bool = true) -> Result<VipsImageHandle, VipsFailure> {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = warm_thumbnail_memory(memory.baseAddress, memory.count, Int32(clamping: size), failOnError ? 1 : 0, &out)
        return wrap(status, out)
    }

    /// An 8-bit PNG flattened onto white and resized to exactly `size`, from
    /// bytes that are not copied (see `open(memory:)`); nil when the image is
    /// not one this path takes (16-bit, not sRGB or grey, a non-sRGB profile,
    /// several pages: `thumbnail(memory:size:)` takes those).
    static func pngFlattened(memory: UnsafeRawBufferPointer, size: PixelSize, failOnError: Bool = true) -> Result<VipsImageHandle?, VipsFailure> {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = warm_png_flat_resized(memory.baseAddress, memory.count, Int32(clamping: size.width),
                                           Int32(clamping: size.height), failOnError ? 1 : 0, &out)
        if status == 1 { return .success(nil) }
        return wrap(status, out).map { $0 }
    }

    /// A new in-memory 8-bit bitmap of zeros, its pages already written.
    static func blankCanvas(width: Int, height: Int, bands: Int) -> Result<VipsImageHandle, VipsFailure> {
        var out: UnsafeMutablePointer<VipsImage>?
        return wrap(warm_blank_canvas(Int32(width), Int32(height), Int32(bands), &out), out)
    }

    /// Draws `picture` into this in-memory image at (0, 0), in place.
    func draw(_ picture: VipsImageHandle) -> Result<Void, VipsFailure> {
        guard warm_draw_into(pointer, picture.pointer) == 0 else { return .failure(VipsFailure(VipsRuntime.takeError())) }
        return .success(())
    }

    /// A memory image from a copy of raw 8-bit samples.
    static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int,
                           interpretation: VipsInterpretation) -> Result<VipsImageHandle, VipsFailure> {
        let image = pixels.withUnsafeBytes { raw in
            warm_image_new_from_pixels(raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands),
                                       VIPS_FORMAT_UCHAR, interpretation)
        }
        guard let image else { return .failure(VipsFailure(VipsRuntime.takeError())) }
        return .success(VipsImageHandle(image))
    }

    private static func wrap(_ status: Int32, _ out: UnsafeMutablePointer<VipsImage>?) -> Result<VipsImageHandle, VipsFailure> {
        guard status == 0, let out else { return .failure(VipsFailure(VipsRuntime.takeError())) }
        return .success(VipsImageHandle(out))
    }

    private func apply(_ body: (UnsafeMutablePointer<VipsImage>, inout UnsafeMutablePointer<VipsImage>?) -> Int32) -> Result<VipsImageHandle, VipsFailure> {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = body(pointer, &out)
        return Self.wrap(status, out)
    }

    // MARK: Header

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    var hasICCProfile: Bool { vips_image_get_typeof(pointer, VIPS_META_ICC_NAME) != 0 }
    var pageCount: Int { Int(vips_image_get_n_pages(pointer)) }
    var isSixteenBit: Bool { vips_image_get_format(pointer) == VIPS_FORMAT_USHORT }
    /// libvips' short name for the colour space ("srgb", "cmyk", "b-w"...).
    var interpretationName: String {
        let nick = vips_enum_nick(vips_interpretation_get_type(), Int32(vips_image_get_interpretation(pointer).rawValue))
        return nick.map { String(cString: $0) } ?? "unknown"
    }
    /// Bytes of the whole image as a bitmap: width x height x bands x sample size.
    var bitmapBytes: Int { Int(warm_image_sizeof(pointer)) }

    /// The raw EXIF block, if the file has one.
    var exifBlock: Data? {
        var bytes: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(pointer, VIPS_META_EXIF_NAME) != 0,
              vips_image_get_blob(pointer, VIPS_META_EXIF_NAME, &bytes, &length) == 0, let bytes, length > 0 else { return nil }
        return Data(bytes: bytes, count: length)
    }

    /// A copy of the pixels of a materialised image (row-major, interleaved).
    var pixelBytes: [UInt8]? {
        var length = 0
        guard let bytes = warm_image_data(pointer, &length), length > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// True when there is no alpha band or the alpha is fully opaque (reads pixels).
    func isOpaque() -> Result<Bool, VipsFailure> {
        var opaque: Int32 = 1
        guard warm_alpha_is_opaque(pointer, &opaque) == 0 else { return .failure(VipsFailure(VipsRuntime.takeError())) }
        return .success(opaque != 0)
    }

    // MARK: Operations (each returns a new image)

    func toSRGBA() -> Result<VipsImageHandle, VipsFailure> { apply { warm_to_srgb($0, WARM_ALPHA_ALWAYS, &$1) } }
    func toSRGB(alpha: WarmAlphaMode) -> Result<VipsImageHandle, VipsFailure> { apply { warm_to_srgb($0, alpha, &$1) } }
    func autorotated(orientation: Int) -> Result<VipsImageHandle, VipsFailure> {
        apply { warm_autorot($0, Int32(clamping: orientation), &$1) }
    }
    func materialized() -> Result<VipsImageHandle, VipsFailure> {
        Self.wrap(0, vips_image_copy_memory(pointer))
    }
    func resized(hscale: Double, vscale: Double, kernel: VipsKernel) -> Result<VipsImageHandle, VipsFailure> {
        apply { warm_resize($0, hscale, vscale, kernel, &$1) }
    }
    /// Lanczos3 as `resized` does it, pixel for pixel, faster for the quality
    /// reference (see warm_reference_resize): `opaque` only when every alpha is 255.
    func referenceResized(hscale: Double, vscale: Double, opaque: Bool, materializeLimit: Int) -> Result<VipsImageHandle, VipsFailure> {
        apply { warm_reference_resize($0, hscale, vscale, opaque ? 1 : 0, max(0, materializeLimit), &$1) }
    }
    func cropped(left: Int, top: Int, width: Int, height: Int) -> Result<VipsImageHandle, VipsFailure> {
        apply { warm_crop($0, Int32(left), Int32(top), Int32(width), Int32(height), &$1) }
    }
    func strippedOfMetadata() -> Result<VipsImageHandle, VipsFailure> { apply { warm_strip_metadata($0, &$1) } }
    func flattened(red: Double = 255, green: Double = 255, blue: Double = 255) -> Result<VipsImageHandle, VipsFailure> {
        apply { warm_flatten($0, red, green, blue, &$1) }
    }
    func withOrientationTag(_ orientation: Int) -> Result<VipsImageHandle, VipsFailure> {
        apply { warm_copy_set_orientation($0, Int32(clamping: orientation), &$1) }
    }

    /// Encodes with a libvips suffix and options, e.g. ".jpg[Q=85,strip]".
    func encoded(suffix: String) -> Result<Data, VipsFailure> {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard warm_write_to_buffer(pointer, suffix, &buffer, &length) == 0, let buffer else {
            return .failure(VipsFailure(VipsRuntime.takeError()))
        }
        defer { g_free(buffer) }
        return .success(Data(bytes: buffer, count: length))
    }
}

/// A libvips failure: the message from its error buffer.
struct VipsFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
