// CWarmVips: thin, typed, non-variadic wrappers over the libvips, libexif and
// GLib calls that Swift cannot make directly (libvips' convenience API is C
// variadic and NULL-terminated). No policy lives here: Swift decides what to
// call and in which order; each function does one library call or one small,
// fixed composition of them.
//
// Ownership: every `VipsImage **out` is a new reference owned by the caller
// (release with warm_image_unref). Every `char *` and `void **buf` returned is
// owned by the caller (release with warm_free). Return values of type int are
// 0 on success and -1 on failure; the failure reason is then in the libvips
// error buffer (warm_error_take).
#ifndef CWARMVIPS_H
#define CWARMVIPS_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>
#include <vips/vector.h>

// --- process set-up -------------------------------------------------------

/// Initialise libvips once per process. `threads_per_image` sets libvips' own
/// worker pool per pipeline (1: parallelism comes from many images at once);
/// the operation cache is disabled so that memory follows the images in use.
/// libvips' warnings (per-tile decode complaints) are dropped: every failure
/// that matters reaches the caller through the error buffer. Set
/// WARM_VIPS_WARNINGS=1 to see them on stderr.
int warm_vips_init(const char *argv0, int threads_per_image);

/// Turns libvips' run-time SIMD code generator (ORC) on or off. warm_vips_init
/// leaves it off (Debian 12's ORC 0.4.33 crashes when several threads compile
/// at once); a decode worker process, which runs one pipeline at a time,
/// turns it back on.
void warm_vips_set_vector(int enabled);

/// Takes (copies and clears) the libvips error buffer. Caller frees.
char *warm_error_take(void);
void warm_free(void *p);

/// The process-wide high-water mark of libvips' tracked allocations (pixel buffers).
size_t warm_tracked_mem_highwater(void);

// --- images ----------------------------------------------------------------

void warm_image_unref(VipsImage *image);

/// Opens encoded bytes lazily: only the header is read. The bytes are copied
/// into a reference-counted blob that the image owns, so the caller's buffer
/// need not outlive the image. `fail_on_error` maps to the loaders'
/// fail_on=error (truncated or corrupt data is an error, not a grey image).
/// `sequential` asks for sequential access (streaming decode).
VipsImage *warm_image_new_from_buffer(const void *buf, size_t len, int fail_on_error, int sequential);

/// Opens encoded bytes lazily without copying them: the caller's buffer must
/// outlive the image and every image made from it (callers keep all of them
/// inside one scope that holds the buffer). Otherwise as warm_image_new_from_buffer.
VipsImage *warm_image_new_from_memory(const void *buf, size_t len, int fail_on_error, int sequential);

/// Opens JPEG bytes (not copied, as warm_image_new_from_memory) for a
/// sequential decode at 1/`shrink` of the stored size (1, 2, 4 or 8), which
/// libjpeg does in the DCT domain: the full-size bitmap never exists.
VipsImage *warm_jpeg_new_from_memory(const void *buf, size_t len, int shrink, int fail_on_error);

/// 1 when the image carries an ICC profile whose description names sRGB
/// ("sRGB IEC61966-2.1", "sRGB built-in", ...): transforming from it to sRGB
/// changes nothing, so the caller can skip lcms. 0 otherwise.
int warm_image_icc_is_srgb(VipsImage *image);

/// The test behind warm_image_icc_is_srgb, on a profile's bytes: an RGB
/// profile whose 'desc' (ICC v2) or 'mluc' (v4) description contains "sRGB".
int warm_icc_profile_is_srgb(const void *profile, size_t len);

/// A memory image made from a copy of raw pixels (tests and generated images).
VipsImage *warm_image_new_from_pixels(const void *pixels, size_t len, int width, int height,
                                      int bands, VipsBandFormat format,
                                      VipsInterpretation interpretation);

int warm_image_width(VipsImage *image);
int warm_image_height(VipsImage *image);
int warm_image_bands(VipsImage *image);
VipsBandFormat warm_image_format(VipsImage *image);
VipsInterpretation warm_image_interpretation(VipsImage *image);
int warm_image_has_alpha(VipsImage *image);
int warm_image_has_icc(VipsImage *image);
int warm_image_n_pages(VipsImage *image);
/// libvips' short name for an interpretation ("srgb", "cmyk", "b-w", "rgb16"...).
/// Static string: do not free.
const char *warm_interpretation_nick(VipsInterpretation interpretation);
/// Sets *opaque to 1 when the image has no alpha band or its alpha is 255 everywhere.
int warm_alpha_is_opaque(VipsImage *image, int *opaque);
/// Size in bytes of the whole image as a bitmap (width * height * bands * sample size).
size_t warm_image_sizeof(VipsImage *image);
/// The loader libvips picked ("jpegload_source", ...); NULL if none. Caller frees.
char *warm_image_loader(VipsImage *image);
/// The raw EXIF block libvips found in the file, or NULL/0 when there is none.
/// The pointer stays valid while the image lives.
const void *warm_image_exif(VipsImage *image, size_t *len);
/// Pixel memory of a materialised image (see warm_materialize); NULL otherwise.
const void *warm_image_data(VipsImage *image, size_t *len);

// --- operations ------------------------------------------------------------

/// Colour-manage to 8-bit sRGB with an alpha band (RGBA, 4 bytes per pixel):
/// embedded ICC profiles and CMYK are transformed, greyscale and 16-bit are
/// converted, and an opaque alpha band is added when missing.
int warm_to_srgba(VipsImage *in, VipsImage **out);

/// What `warm_to_srgb` does with alpha.
typedef enum {
    WARM_ALPHA_ALWAYS = 0,           ///< RGBA: an opaque alpha band is added when missing
    WARM_ALPHA_KEEP = 1,             ///< RGBA if the image has alpha, RGB otherwise
    WARM_ALPHA_FLATTEN_ON_WHITE = 2, ///< RGB: alpha is composited on white (for JPEG)
} WarmAlphaMode;

/// `warm_to_srgba` with a choice of alpha handling; the encoder's path uses
/// it to avoid adding an alpha band it would remove again.
int warm_to_srgb(VipsImage *in, WarmAlphaMode alpha, VipsImage **out);

/// Makes the image upright for the given EXIF orientation (1..8; anything else
/// is treated as 1) and removes the orientation tag.
int warm_autorot(VipsImage *in, int orientation, VipsImage **out);

/// Renders the (lazy) pipeline into a new memory bitmap.
int warm_materialize(VipsImage *in, VipsImage **out);

/// Resamples with separate horizontal and vertical scales and a kernel,
/// premultiplying alpha around the resample.
int warm_resize(VipsImage *in, double hscale, double vscale, VipsKernel kernel, VipsImage **out);

/// The quality reference's resample: Lanczos3 of an 8-bit image with alpha,
/// as warm_resize does it (alpha premultiplied in floats around the resample),
/// pixel for pixel, at about half the CPU: when `opaque` (every alpha 255) the
/// colour bands are resampled as floats without premultiplying (the same
/// floats) and alpha 255 joined back; the float image is rendered into memory
/// first when it takes at most `materialize_limit` bytes. Other images go to
/// warm_resize.
int warm_reference_resize(VipsImage *in, double hscale, double vscale, int opaque, size_t materialize_limit,
                          VipsImage **out);

/// libvips thumbnail with shrink-on-load, fitting inside size x size and never
/// upscaling, from bytes that are not copied: the caller's buffer must outlive
/// the result (see warm_image_new_from_memory). Orientation is left to the
/// caller (no_rotate), so that all strategies share one orientation path.
int warm_thumbnail_memory(const void *buf, size_t len, int size, int fail_on_error, VipsImage **out);
/// A PNG flattened onto white and resized to exactly width x height (8-bit
/// throughout); 1 when the image is not one this path takes (see the .c).
int warm_png_flat_resized(const void *buf, size_t len, int width, int height, int fail_on_error, VipsImage **out);

/// A JPEG thumbnail of a JPEG without libvips' pipeline (WarmDirectThumbnail.c):
/// libjpeg decodes at 1/`shrink` (1, 2, 4 or 8), a Lanczos3 resample makes it
/// exactly `width` x `height` (the output as stored, before orientation), EXIF
/// `orientation` (1-8) turns it upright, and libjpeg encodes it at `quality`
/// with optimised Huffman tables and no metadata. 0 and the encoded bytes in
/// *out (free with warm_free); 1, and nothing in *out, for whatever this path
/// does not take: a profile other than sRGB, CMYK, 12-bit, any warning or
/// error from libjpeg (corrupt data). The caller then goes through libvips.
int warm_jpeg_thumbnail_jpeg(const void *buf, size_t len, int shrink, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len);

/// The same for a PNG (WarmDirectThumbnail.c): libpng decodes it row by row,
/// each row flattened onto white, and the resample streams them, so that only
/// as many rows as the kernel is tall are held. 1 for a profile other than
/// sRGB, 16 bits, interlacing, or any warning or error from libpng.
int warm_png_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                            int orientation, int quality, void **out, size_t *out_len);

/// The same for a WebP: libwebp decodes it straight at `width` x `height`
/// (its scaling, as libvips' thumbnail loads a WebP), alpha flattened onto
/// white. 1 for an embedded profile, an animation, or a decode error.
int warm_webp_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len);

/// Cuts out a rectangle.
int warm_crop(VipsImage *in, int left, int top, int width, int height, VipsImage **out);

/// Flattens alpha onto an opaque background colour.
/// A new in-memory 8-bit image of zeros (all pages written).
int warm_blank_canvas(int width, int height, int bands, VipsImage **out);

/// Draws `picture` into the in-memory `canvas` at (0, 0), in place.
int warm_draw_into(VipsImage *canvas, VipsImage *picture);

int warm_flatten(VipsImage *in, double r, double g, double b, VipsImage **out);

/// Casts to a band format (tests: 16-bit images).
int warm_cast(VipsImage *in, VipsBandFormat format, VipsImage **out);

/// Converts to another colour space (generated images: RGB16, GREY16).
int warm_colourspace(VipsImage *in, VipsInterpretation interpretation, VipsImage **out);

/// Sets the interpretation without touching pixel values.
int warm_copy_interpretation(VipsImage *in, VipsInterpretation interpretation, VipsImage **out);

/// Transforms to a named or file ICC profile ("cmyk", "srgb", a path) and
/// attaches it (tests: CMYK JPEG, embedded profiles).
int warm_icc_export(VipsImage *in, const char *profile, VipsImage **out);

/// A copy of the image whose "orientation" metadata is set (saved as EXIF).
int warm_copy_set_orientation(VipsImage *in, int orientation, VipsImage **out);

/// A copy whose "page-height" is set: the image is then `height / page_height`
/// frames stacked top to bottom, saved as an animation by the GIF and WebP savers.
int warm_copy_set_page_height(VipsImage *in, int page_height, VipsImage **out);

/// A copy with every metadata field removed (EXIF, XMP, IPTC, ICC,
/// orientation...), so nothing but pixels reaches an output file.
int warm_strip_metadata(VipsImage *in, VipsImage **out);

/// Encodes with a format suffix and option string, e.g. ".jpg[Q=85,strip]".
int warm_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len);

// --- libexif ---------------------------------------------------------------

/// EXIF orientation from an EXIF block or a whole JPEG file; 0 when absent.
/// Values outside 1..8 are returned as they are.
int warm_exif_orientation(const void *data, size_t len);

// --- GLib ------------------------------------------------------------------

/// Lower-case hex SHA-256 of the bytes. Caller frees.
char *warm_sha256_hex(const void *data, size_t len);

// --- glibc allocator (measurement) ----------------------------------------
// Added for WarmMetrics' peak measurement: <malloc.h> is not part of Swift's
// Glibc module, so mallopt and malloc_trim are reached through here.

/// Fixes glibc's mmap threshold at `bytes` (disabling the dynamic threshold),
/// so that every allocation at least that large is its own mapping, resident
/// while alive and returned to the kernel on free. Returns 1 on success, 0 when
/// the C library does not support it.
int warm_malloc_set_mmap_threshold(size_t bytes);

/// Limits glibc to `count` malloc arenas (M_ARENA_MAX). With one arena, the
/// heap pages libvips' worker threads allocate from are the ones malloc_trim
/// returns, instead of per-thread arenas whose free pages stay resident and
/// hide later growth. Returns 1 on success, 0 when unsupported.
int warm_malloc_set_arena_max(int count);

/// Returns free heap memory to the kernel (glibc malloc_trim(0)). Returns 1 when
/// memory was released, 0 otherwise (or when unsupported).
int warm_malloc_trim(void);

/// Limits this process's address space to `bytes` (RLIMIT_AS): an allocation
/// past it fails instead of growing. 0 on success, -1 (errno set) otherwise.
int warm_limit_address_space(size_t bytes);

// --- processes --------------------------------------------------------------

/// pipe2(fds, O_CLOEXEC) (a GNU extension Swift's Glibc module does not
/// export): a pipe no child inherits unless it is dup2'ed onto its stdio.
int warm_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, from) (glibc 2.34, not
/// exported to Swift): the child closes every descriptor from `from` up.
/// `actions` is a posix_spawn_file_actions_t *.
int warm_spawn_actions_close_from(void *actions, int from);

#endif
