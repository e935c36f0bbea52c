import CWarmVips
import Foundation

/// Owns one libvips image reference, the only holder of a `VipsImage` pointer. `@unchecked Sendable`: an image is never
/// mutated once made (each method builds a new one), GObject refcounts are atomic, libvips reads it from any thread.
final class VipsImageHandle: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<VipsImage>

    private init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    private static func made(_ image: UnsafeMutablePointer<VipsImage>?) throws(VipsFailure) -> VipsImageHandle {
        guard let image else { throw VipsFailure(message: VipsRuntime.takeError()) }
        return VipsImageHandle(image)
    }

    private static func made(_ call: (inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws(VipsFailure) -> VipsImageHandle {
        var out: UnsafeMutablePointer<VipsImage>?
        guard call(&out) == 0 else { throw VipsFailure(message: VipsRuntime.takeError()) }
        return try made(out)
    }

    private func apply(_ call: (UnsafeMutablePointer<VipsImage>, inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws(VipsFailure) -> VipsImageHandle {
        try Self.made { call(pointer, &$0) }
    }

    // MARK: Making images (corrupt or truncated data is an error, not a grey image)

    /// Opens a copy of encoded bytes lazily: only the header is read now.
    static func open(_ data: Data) throws(VipsFailure) -> VipsImageHandle {
        try made(data.withUnsafeBytes { warm_image_open($0.baseAddress, $0.count, 1, 0, 1) })
    }

    /// Opens bytes lazily without copying: the image and all made from it must not outlive `memory`.
    /// A JPEG with `jpegShrink` (2, 4 or 8) is decoded at that fraction in the DCT domain.
    static func open(memory: UnsafeRawBufferPointer, sequential: Bool = false, jpegShrink: Int = 1) throws(VipsFailure) -> VipsImageHandle {
        try made(warm_image_open(memory.baseAddress, memory.count, 0, sequential ? 1 : 0, Int32(jpegShrink)))
    }

    /// Pixels the loaders under this lazy image will decode (the largest image its pipeline starts from); read it
    /// before materialising, which cuts the pipeline.
    var sourcePixels: Int { Int(warm_image_source_pixels(pointer)) }

    /// libvips thumbnail (shrink-on-load, within size x size) from bytes not copied (see `open(memory:)`).
    static func thumbnail(memory: UnsafeRawBufferPointer, size: Int) throws(VipsFailure) -> VipsImageHandle {
        try made { warm_thumbnail_memory(memory.baseAddress, memory.count, Int32(clamping: size), &$0) }
    }

    /// An 8-bit PNG flattened onto white, resized to `size`, from bytes not copied; nil for a PNG it does not take.
    static func pngFlattened(memory: UnsafeRawBufferPointer, size: PixelSize) throws(VipsFailure) -> VipsImageHandle? {
        var out: UnsafeMutablePointer<VipsImage>?
        let status = warm_png_flat_resized(memory.baseAddress, memory.count, Int32(clamping: size.width),
                                           Int32(clamping: size.height), &out)
        if status == 1 { return nil }
        guard status == 0 else { throw VipsFailure(message: VipsRuntime.takeError()) }
        return try made(out)
    }

    /// A new in-memory 8-bit RGBA bitmap of zeros, its pages already written.
    static func blankCanvas(width: Int, height: Int) throws(VipsFailure) -> VipsImageHandle {
        try made { warm_blank_canvas(Int32(width), Int32(height), &$0) }
    }

    /// Draws `picture` into this in-memory image at (0, 0), in place.
    func draw(_ picture: VipsImageHandle) throws(VipsFailure) {
        guard warm_draw_into(pointer, picture.pointer) == 0 else { throw VipsFailure(message: VipsRuntime.takeError()) }
    }

    /// 8-bit samples: grey (+ alpha) for 1 or 2 bands, sRGB (+ alpha) for 3 or 4.
    static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws(VipsFailure) -> VipsImageHandle {
        let made = pixels.withUnsafeBytes { raw in
            Result { () throws(VipsFailure) in try fromPixels(raw, width: width, height: height, bands: bands) }
        }
        return try made.get()
    }

    /// `fromPixels` from memory the image copies (it may be freed once this returns).
    static func fromPixels(_ raw: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int) throws(VipsFailure) -> VipsImageHandle {
        let image = try made(vips_image_new_from_memory_copy(raw.baseAddress, raw.count, Int32(width), Int32(height),
                                                             Int32(bands), VIPS_FORMAT_UCHAR))
        image.pointer.pointee.`Type` = bands <= 2 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        return image
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
    var bitmapBytes: Int { width * height * bands * Int(vips_format_sizeof(vips_image_get_format(pointer))) }

    var exifBlock: Data? {
        var bytes: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_typeof(pointer, VIPS_META_EXIF_NAME) != 0,
              vips_image_get_blob(pointer, VIPS_META_EXIF_NAME, &bytes, &length) == 0, let bytes, length > 0 else { return nil }
        return Data(bytes: bytes, count: length)
    }

    /// A copy of the pixels of a materialised image (row-major, interleaved).
    var pixelBytes: [UInt8]? {
        let image = pointer.pointee
        guard image.dtype == VIPS_IMAGE_SETBUF || image.dtype == VIPS_IMAGE_SETBUF_FOREIGN, let data = image.data,
              bitmapBytes > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: bitmapBytes))
    }

    /// True when there is no alpha band or the alpha is fully opaque (reads pixels).
    func isOpaque() throws(VipsFailure) -> Bool {
        var opaque: Int32 = 1
        guard warm_alpha_is_opaque(pointer, &opaque) == 0 else { throw VipsFailure(message: VipsRuntime.takeError()) }
        return opaque != 0
    }

    // MARK: Operations (each returns a new image)

    func toSRGB(alpha: WarmAlphaMode = WARM_ALPHA_ALWAYS) throws(VipsFailure) -> VipsImageHandle {
        try apply { warm_to_srgb($0, alpha, &$1) }
    }
    func autorotated(orientation: Int) throws(VipsFailure) -> VipsImageHandle {
        try apply { warm_autorot($0, Int32(clamping: orientation), &$1) }
    }
    func materialized() throws(VipsFailure) -> VipsImageHandle { try Self.made(vips_image_copy_memory(pointer)) }
    func resized(hscale: Double, vscale: Double, kernel: VipsKernel, opaque: Bool = false) throws(VipsFailure) -> VipsImageHandle {
        try apply { warm_resize($0, hscale, vscale, kernel, opaque ? 1 : 0, &$1) }
    }
    /// Lanczos3 as `resized` does it, faster, for the quality reference: `opaque` only when every alpha is 255.
    func referenceResized(hscale: Double, vscale: Double, opaque: Bool, materializeLimit: Int) throws(VipsFailure) -> VipsImageHandle {
        try apply { warm_reference_resize($0, hscale, vscale, opaque ? 1 : 0, max(0, materializeLimit), &$1) }
    }
    func cropped(left: Int, top: Int, width: Int, height: Int) throws(VipsFailure) -> VipsImageHandle {
        try apply { warm_crop($0, Int32(left), Int32(top), Int32(width), Int32(height), &$1) }
    }
    func flattenedOnWhite() throws(VipsFailure) -> VipsImageHandle { try apply { warm_flatten_on_white($0, &$1) } }
    func withOrientationTag(_ orientation: Int) throws(VipsFailure) -> VipsImageHandle {
        try apply { warm_copy_set_orientation($0, Int32(clamping: orientation), &$1) }
    }

    /// Encodes with a libvips suffix and options, e.g. ".jpg[Q=85,strip]".
    func encoded(suffix: String) throws(VipsFailure) -> Data {
        try bytes { warm_write_to_buffer(pointer, suffix, $0, $1) }
    }

    /// A bare lossy WebP from libwebp (no saver, no metadata chunk) of this 8-bit RGB or RGBA image.
    func webpEncoded(_ settings: WarmWebPSettings) throws(VipsFailure) -> Data {
        var settings = settings
        return try bytes { warm_webp_encode(pointer, &settings, $0, $1) }
    }

    /// AVIF from libheif's AV1 encoder (no saver, no metadata) of this 8-bit RGB or RGBA image.
    func avifEncoded(_ settings: WarmAVIFSettings) throws(VipsFailure) -> Data {
        var settings = settings
        return try bytes { warm_avif_encode(pointer, &settings, $0, $1) }
    }

    /// The bytes an encoder call left in a g_malloc'd buffer (0 on success), copied and freed.
    private func bytes(_ encode: (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32)
        throws(VipsFailure) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard encode(&buffer, &length) == 0, let buffer else { throw VipsFailure(message: VipsRuntime.takeError()) }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: length)
    }
}

struct VipsFailure: Error {
    let message: String
}

/// Runs libvips calls, a failure becoming `failure(message)`. The body's throws are untyped so that its
/// closures need no annotation; only `VipsFailure` is thrown in them.
func vips<T>(or failure: (String) -> DownsampleError, _ body: () throws -> T) throws(DownsampleError) -> T {
    do {
        return try body()
    } catch {
        throw failure((error as? VipsFailure)?.message ?? "\(error)")
    }
}
