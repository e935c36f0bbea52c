// Non-variadic wrappers for C calls Swift cannot make; no policy here. `VipsImage **out` is a new reference
// (g_object_unref), `void **buf` the caller's (g_free); -1 on failure, the reason in vips_error_buffer_copy.
#ifndef CWARMVIPS_H
#define CWARMVIPS_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>
#include <vips/vector.h>

// --- process set-up -------------------------------------------------------

/// Starts libvips: one thread per pipeline (parallelism comes from many images), no operation cache, ORC off,
/// warnings dropped (failures that matter reach the error buffer).
int warm_vips_init(void);

// --- images ----------------------------------------------------------------

/// Opens lazily (a copy with `copy`, else the buffer must outlive the image and all made from it); truncated or
/// corrupt data is an error, not a grey image; a JPEG with `jpeg_shrink` > 1 is decoded at 1/`jpeg_shrink` (DCT).
VipsImage *warm_image_open(const void *buf, size_t len, int copy, int sequential, int jpeg_shrink);

/// 1 for an RGB profile whose 'desc' (ICC v2) or 'mluc' (v4) description contains "sRGB".
int warm_icc_profile_is_srgb(const void *profile, size_t len);

/// Sets *opaque to 1 when the image has no alpha band or its alpha is 255 everywhere.
int warm_alpha_is_opaque(VipsImage *image, int *opaque);

// --- operations ------------------------------------------------------------

typedef enum {
    WARM_ALPHA_ALWAYS = 0,           ///< RGBA: an opaque alpha band is added when missing
    WARM_ALPHA_KEEP = 1,             ///< RGBA if the image has alpha, RGB otherwise
    WARM_ALPHA_FLATTEN_ON_WHITE = 2, ///< RGB: alpha is composited on white (for JPEG)
} WarmAlphaMode;

/// Colour-manages to 8-bit sRGB (ICC profiles, CMYK, greyscale, 16-bit), alpha as `alpha` says.
int warm_to_srgb(VipsImage *in, WarmAlphaMode alpha, VipsImage **out);

/// Upright for EXIF `orientation` (anything outside 1..8 is 1); the tag is removed.
int warm_autorot(VipsImage *in, int orientation, VipsImage **out);

/// Resamples with separate scales and a kernel, alpha premultiplied around it; `opaque` (every alpha
/// 255) resamples the colour bands alone, in their own format: no float premultiply.
int warm_resize(VipsImage *in, double hscale, double vscale, VipsKernel kernel, int opaque, VipsImage **out);

/// The quality reference: warm_resize's Lanczos3 pixel for pixel, cheaper (`opaque` skips the premultiply;
/// the floats are rendered once when at most `materialize_limit` bytes).
int warm_reference_resize(VipsImage *in, double hscale, double vscale, int opaque, size_t materialize_limit,
                          VipsImage **out);

/// libvips thumbnail (shrink-on-load, inside size x size) of bytes not copied; orientation left to the caller.
int warm_thumbnail_memory(const void *buf, size_t len, int size, VipsImage **out);

/// Pixels the loaders under a lazy `image` will decode: the largest width x height among the images its pipeline
/// starts from (a loader's output, already shrunk on load). Call it before the image is materialised.
long long warm_image_source_pixels(VipsImage *image);

/// The decoders' versions, e.g. "libvips 8.14.1, libjpeg-turbo 2.1.5, libpng 1.6.39, libwebp 1.2.4".
void warm_decoder_versions(char *text, size_t size);
/// An 8-bit sRGB or grey PNG flattened onto white and resized to width x height; 1 (nothing in *out) otherwise.
int warm_png_flat_resized(const void *buf, size_t len, int width, int height, VipsImage **out);

/// The upright 8-bit RGB bitmap a direct thumbnail was made from (`rgb`: malloc'd, the caller frees it), so that
/// WebP and AVIF encode it instead of decoding the source again; `rgb` stays NULL for a translucent source.
typedef struct {
    unsigned char *rgb;
    int width, height;
} WarmDirectPixels;

/// JPEG to an upright `width` x `height` (as stored) JPEG without libvips: 0 and the bytes in *out (g_free), or 1
/// for what it does not take (non-sRGB profile, CMYK, 12-bit, any libjpeg warning), which then goes through libvips.
/// `out` NULL: no JPEG is encoded; `keep` non-NULL: the bitmap is handed over there too.
/// `decoded` (never NULL) gets the pixels the decoder produced: the DCT-scaled size for a JPEG, the stored size for a
/// PNG or a WebP (libwebp scales after decoding), 0 when decoding never began; set on failure too.
int warm_jpeg_thumbnail_jpeg(const void *buf, size_t len, int shrink, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len, WarmDirectPixels *keep,
                             long long *decoded);

/// The same for a PNG, flattened onto white; 1 for a non-sRGB profile, 16 bits, interlacing or any libpng warning.
int warm_png_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                            int orientation, int quality, void **out, size_t *out_len, WarmDirectPixels *keep,
                            long long *decoded);

/// The same for a WebP, decoded straight at `width` x `height`; 1 for a non-sRGB profile, an animation, an error.
int warm_webp_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len, WarmDirectPixels *keep,
                             long long *decoded);

int warm_crop(VipsImage *in, int left, int top, int width, int height, VipsImage **out);

/// A new in-memory 8-bit RGBA image of zeros, its pages already written.
int warm_blank_canvas(int width, int height, VipsImage **out);

/// Draws `picture` into the in-memory `canvas` at (0, 0), in place.
int warm_draw_into(VipsImage *canvas, VipsImage *picture);

/// RGBA or grey+alpha composited on white.
int warm_flatten_on_white(VipsImage *in, VipsImage **out);

/// A copy whose "orientation" metadata is set (saved as EXIF).
int warm_copy_set_orientation(VipsImage *in, int orientation, VipsImage **out);

/// Encodes with a format suffix and option string, e.g. ".jpg[Q=85,strip]".
int warm_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len);

/// libwebp's lossy encoder: WebPConfigPreset(DEFAULT, quality), then these fields (EncoderSettings says why).
typedef struct {
    float quality;  ///< 0-100, libwebp's scale
    int method;     ///< 0-6: speed against size
    int segments;   ///< 1-4: how many groups of macroblocks get their own quantiser and filter
} WarmWebPSettings;

/// An 8-bit RGB or RGBA image (alpha kept) as a bare lossy WebP, no metadata chunk: 0 and the bytes in *buf.
int warm_webp_encode(VipsImage *in, const WarmWebPSettings *settings, void **buf, size_t *len);

/// libheif's AV1 encoder as libvips' heifsave drives it (EncoderSettings says why these).
typedef struct {
    int quality;  ///< 1-100, libheif's lossy quality (libvips' Q)
    int effort;   ///< 0-9, libvips' effort: aom's speed is 9 - effort
} WarmAVIFSettings;

/// An 8-bit RGB or RGBA image (alpha as an auxiliary image) as AVIF, 4:2:0 below quality 90, no metadata, aom on
/// one thread: 0 and the bytes in *buf (g_free them).
int warm_avif_encode(VipsImage *in, const WarmAVIFSettings *settings, void **buf, size_t *len);

// --- glibc -------------------------------------------------------------------

/// mallopt(M_MMAP_THRESHOLD), which also turns the dynamic threshold off. 1 on success.
int warm_malloc_set_mmap_threshold(size_t bytes);

/// mallopt(M_ARENA_MAX). 1 on success.
int warm_malloc_set_arena_max(int count);

/// malloc_trim(0): 1 when memory was returned to the kernel.
int warm_malloc_trim(void);

#endif
