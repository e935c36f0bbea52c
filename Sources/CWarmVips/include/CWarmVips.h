// CWarmVips: typed, non-variadic wrappers over the libvips, libjpeg, libpng,
// libwebp and glibc calls Swift cannot make (libvips' API is C variadic and
// NULL-terminated; <malloc.h> is not in Swift's Glibc module). No policy
// lives here: Swift decides what to call and in which order.
//
// Ownership: every `VipsImage **out` is a new reference owned by the caller
// (g_object_unref); every `void **buf` returned is the caller's (g_free). int
// results are 0 on success and -1 on failure, the reason then in the libvips
// error buffer (vips_error_buffer_copy).
#ifndef CWARMVIPS_H
#define CWARMVIPS_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>
#include <vips/vector.h>

// --- process set-up -------------------------------------------------------

/// Starts libvips: one worker per pipeline (parallelism comes from many
/// images), no operation cache (memory follows the images in use), ORC off,
/// warnings dropped (failures that matter reach the error buffer).
int warm_vips_init(void);

// --- images ----------------------------------------------------------------

/// Opens encoded bytes lazily (header only), from a copy the image owns;
/// `fail_on_error`: truncated or corrupt data is an error, not a grey image.
VipsImage *warm_image_new_from_buffer(const void *buf, size_t len, int fail_on_error, int sequential);

/// As warm_image_new_from_buffer without the copy (the buffer must outlive
/// the image and all made from it); a JPEG with `jpeg_shrink` > 1 is decoded
/// at 1/`jpeg_shrink` by libjpeg in the DCT domain.
VipsImage *warm_image_new_from_memory(const void *buf, size_t len, int fail_on_error, int sequential,
                                      int jpeg_shrink);

/// 1 for an RGB profile whose 'desc' (ICC v2) or 'mluc' (v4) description
/// contains "sRGB": converting from it to sRGB would change nothing.
int warm_icc_profile_is_srgb(const void *profile, size_t len);

/// Sets *opaque to 1 when the image has no alpha band or its alpha is 255 everywhere.
int warm_alpha_is_opaque(VipsImage *image, int *opaque);

// --- operations ------------------------------------------------------------

typedef enum {
    WARM_ALPHA_ALWAYS = 0,           ///< RGBA: an opaque alpha band is added when missing
    WARM_ALPHA_KEEP = 1,             ///< RGBA if the image has alpha, RGB otherwise
    WARM_ALPHA_FLATTEN_ON_WHITE = 2, ///< RGB: alpha is composited on white (for JPEG)
} WarmAlphaMode;

/// Colour-manages to 8-bit sRGB: embedded ICC profiles and CMYK are
/// transformed, greyscale and 16-bit converted, alpha as `alpha` says.
int warm_to_srgb(VipsImage *in, WarmAlphaMode alpha, VipsImage **out);

/// Upright for EXIF `orientation` (anything outside 1..8 is 1); the tag is removed.
int warm_autorot(VipsImage *in, int orientation, VipsImage **out);

/// Resamples with separate scales and a kernel, alpha premultiplied around it; `opaque` (every alpha
/// 255) resamples the colour bands alone, in their own format: no float premultiply.
int warm_resize(VipsImage *in, double hscale, double vscale, VipsKernel kernel, int opaque, VipsImage **out);

/// The quality reference: warm_resize's Lanczos3 pixel for pixel at about half
/// the CPU (an `opaque` image's colour bands are resampled without
/// premultiplying; the floats are rendered once when at most `materialize_limit` bytes).
int warm_reference_resize(VipsImage *in, double hscale, double vscale, int opaque, size_t materialize_limit,
                          VipsImage **out);

/// libvips thumbnail (shrink-on-load, inside size x size, never upscaling) of
/// bytes that are not copied; orientation is left to the caller (no_rotate).
int warm_thumbnail_memory(const void *buf, size_t len, int size, int fail_on_error, VipsImage **out);
/// An 8-bit sRGB or grey PNG flattened onto white and resized to exactly
/// width x height; 1 (nothing in *out) for any other PNG.
int warm_png_flat_resized(const void *buf, size_t len, int width, int height, int fail_on_error, VipsImage **out);

/// JPEG in, JPEG thumbnail out without libvips (WarmDirectThumbnail.c): libjpeg
/// decodes at 1/`shrink`, a streamed Lanczos3 makes it exactly `width` x
/// `height` (as stored), EXIF `orientation` turns it upright, libjpeg encodes
/// it at `quality` without metadata. 0 and the bytes in *out (g_free); 1
/// for what it does not take (a profile other than sRGB, CMYK, 12-bit, any
/// libjpeg warning or error): the caller then goes through libvips.
int warm_jpeg_thumbnail_jpeg(const void *buf, size_t len, int shrink, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len);

/// The same for a PNG, decoded row by row by libpng and flattened onto white;
/// 1 for a profile other than sRGB, 16 bits, interlacing, or any libpng warning.
int warm_png_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                            int orientation, int quality, void **out, size_t *out_len);

/// The same for a WebP, decoded by libwebp straight at `width` x `height`;
/// 1 for a profile other than sRGB, an animation, or a decode error.
int warm_webp_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len);

int warm_crop(VipsImage *in, int left, int top, int width, int height, VipsImage **out);

/// A new in-memory 8-bit image of zeros, its pages already written.
int warm_blank_canvas(int width, int height, int bands, VipsImage **out);

/// Draws `picture` into the in-memory `canvas` at (0, 0), in place.
int warm_draw_into(VipsImage *canvas, VipsImage *picture);

int warm_flatten_on_white(VipsImage *in, VipsImage **out);

/// A copy whose "orientation" metadata is set (saved as EXIF).
int warm_copy_set_orientation(VipsImage *in, int orientation, VipsImage **out);

/// Encodes with a format suffix and option string, e.g. ".jpg[Q=85,strip]".
int warm_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len);

// --- glibc -------------------------------------------------------------------

/// mallopt(M_MMAP_THRESHOLD), which also turns the dynamic threshold off. 1 on success.
int warm_malloc_set_mmap_threshold(size_t bytes);

/// mallopt(M_ARENA_MAX). 1 on success.
int warm_malloc_set_arena_max(int count);

/// malloc_trim(0): 1 when memory was returned to the kernel.
int warm_malloc_trim(void);

/// pipe2(fds, O_CLOEXEC) (a GNU extension Swift's Glibc module does not
/// export): a pipe no child inherits unless it is dup2'ed onto its stdio.
int warm_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, from) (glibc 2.34, not
/// exported to Swift): the child closes every descriptor from `from` up.
/// `actions` is a posix_spawn_file_actions_t *.
int warm_spawn_actions_close_from(void *actions, int from);

#endif
