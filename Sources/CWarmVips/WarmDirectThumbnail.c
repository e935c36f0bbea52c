// JPEG, PNG or WebP to a JPEG thumbnail without libvips' per-image pipeline cost (bench/findings.md, section 8);
// whatever these do not take, they answer 1 for, and the caller goes through libvips.
#include "CWarmVips.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <webp/decode.h>

typedef float warm_v4 __attribute__((vector_size(16)));

// --- Lanczos3, streamed ------------------------------------------------------

static double warm_lanczos3(double x) {
    if (x == 0.0)
        return 1.0;
    if (x <= -3.0 || x >= 3.0)
        return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

// Lanczos3 taps from `in` to `out` samples (out <= in), centres aligned, kernel stretched by in / out, sums 1.
typedef struct {
    int *start;
    int *count;
    float *weight; // `stride` weights per output
    int stride;
} WarmTaps;

static void warm_taps_free(WarmTaps *taps) {
    free(taps->start);
    free(taps->count);
    free(taps->weight);
}

static int warm_taps_make(int in, int out, WarmTaps *taps) {
    double scale = (double) in / out;
    double support = 3.0 * scale;
    taps->stride = (int) ceil(support) * 2 + 1;
    taps->start = malloc(sizeof(int) * (size_t) out);
    taps->count = malloc(sizeof(int) * (size_t) out);
    taps->weight = calloc((size_t) out * (size_t) taps->stride, sizeof(float));
    if (!taps->start || !taps->count || !taps->weight)
        return -1;
    for (int x = 0; x < out; x++) {
        double centre = (x + 0.5) * scale;
        int first = (int) floor(centre - support + 0.5);
        int last = (int) floor(centre + support + 0.5);
        if (first < 0)
            first = 0;
        if (last > in)
            last = in;
        int n = last - first;
        if (n > taps->stride)
            n = taps->stride;
        float *w = taps->weight + (size_t) x * taps->stride;
        double sum = 0;
        for (int k = 0; k < n; k++) {
            double value = warm_lanczos3((first + k + 0.5 - centre) / scale);
            w[k] = (float) value;
            sum += value;
        }
        for (int k = 0; k < n && sum != 0; k++)
            w[k] = (float) (w[k] / sum);
        taps->start[x] = first;
        taps->count[x] = n;
    }
    return 0;
}

// Reads the next RGB input row into `row`; a decoder error leaves by longjmp.
typedef void (*WarmRowReader)(void *context, unsigned char *row);

// A shrinking resample that holds only the input rows one output row needs: a ring as tall as the vertical kernel.
typedef struct {
    WarmTaps across, down;
    int in_w, in_h, out_w, out_h;
    int ring_rows, have;
    size_t row_bytes; // what the reader writes: at least in_w * 3
    unsigned char *ring;
    float *sums;
    unsigned char *tall; // one row, resampled vertically
    warm_v4 *wide;       // the same, 4 floats a pixel
} WarmResampler;

static void warm_resampler_free(WarmResampler *r) {
    if (!r)
        return;
    warm_taps_free(&r->across);
    warm_taps_free(&r->down);
    free(r->ring);
    free(r->sums);
    free(r->tall);
    free(r->wide);
    free(r);
}

static WarmResampler *warm_resampler_new(int in_w, int in_h, size_t row_bytes, int out_w, int out_h) {
    if (in_w < 1 || in_h < 1 || out_w < 1 || out_h < 1 || out_w > in_w || out_h > in_h || row_bytes < (size_t) in_w * 3)
        return NULL;
    WarmResampler *r = calloc(1, sizeof(WarmResampler));
    if (!r)
        return NULL;
    r->in_w = in_w;
    r->in_h = in_h;
    r->out_w = out_w;
    r->out_h = out_h;
    r->row_bytes = row_bytes;
    if (warm_taps_make(in_w, out_w, &r->across) || warm_taps_make(in_h, out_h, &r->down)) {
        warm_resampler_free(r);
        return NULL;
    }
    r->ring_rows = r->down.stride;
    r->ring = malloc(row_bytes * (size_t) r->ring_rows);
    r->sums = malloc(sizeof(float) * (size_t) in_w * 3);
    r->tall = malloc((size_t) in_w * 3);
    r->wide = malloc(sizeof(warm_v4) * (size_t) in_w);
    if (!r->ring || !r->sums || !r->tall || !r->wide) {
        warm_resampler_free(r);
        return NULL;
    }
    return r;
}

static inline unsigned char warm_round_uchar(float v) {
    v += 0.5f;
    return v <= 0 ? 0 : v >= 255 ? 255 : (unsigned char) v;
}

// Vertically, rounded to 8 bits, then horizontally, as libvips' resize does; four partial sums so the
// additions do not wait on each other. The caller reads the input rows after the last one an output row needs.
__attribute__((target_clones("avx2", "default")))
static void warm_resampler_run(WarmResampler *r, WarmRowReader read, void *context, unsigned char *out) {
    size_t span = (size_t) r->in_w * 3;
    for (int y = 0; y < r->out_h; y++) {
        int first = r->down.start[y], count = r->down.count[y];
        while (r->have < first + count) {
            read(context, r->ring + r->row_bytes * (size_t) (r->have % r->ring_rows));
            r->have++;
        }
        const float *w = r->down.weight + (size_t) y * r->down.stride;
        float *restrict sums = r->sums;
        const unsigned char *restrict top = r->ring + r->row_bytes * (size_t) (first % r->ring_rows);
        for (size_t i = 0; i < span; i++)
            sums[i] = top[i] * w[0];
        for (int k = 1; k < count; k++) {
            const unsigned char *restrict line = r->ring + r->row_bytes * (size_t) ((first + k) % r->ring_rows);
            float wk = w[k];
            for (size_t i = 0; i < span; i++)
                sums[i] += line[i] * wk;
        }
        unsigned char *restrict tall = r->tall;
        for (size_t i = 0; i < span; i++)
            tall[i] = warm_round_uchar(sums[i]);
        for (int x = 0; x < r->in_w; x++)
            r->wide[x] = (warm_v4) { tall[3 * x], tall[3 * x + 1], tall[3 * x + 2], 0 };
        unsigned char *target = out + (size_t) y * r->out_w * 3;
        for (int x = 0; x < r->out_w; x++) {
            const float *wx = r->across.weight + (size_t) x * r->across.stride;
            const warm_v4 *s = r->wide + r->across.start[x];
            int n = r->across.count[x], k = 0;
            warm_v4 a = { 0, 0, 0, 0 }, b = a, c = a, d = a;
            for (; k + 4 <= n; k += 4) {
                a += s[k] * wx[k];
                b += s[k + 1] * wx[k + 1];
                c += s[k + 2] * wx[k + 2];
                d += s[k + 3] * wx[k + 3];
            }
            for (; k < n; k++)
                a += s[k] * wx[k];
            warm_v4 sum = (a + b) + (c + d);
            target[3 * x] = warm_round_uchar(sum[0]);
            target[3 * x + 1] = warm_round_uchar(sum[1]);
            target[3 * x + 2] = warm_round_uchar(sum[2]);
        }
    }
}

// --- upright and encode --------------------------------------------------------

// The stored RGB image turned upright by EXIF `orientation` (height x width for 5-8).
static void warm_upright_rgb(const unsigned char *in, int w, int h, int orientation, unsigned char *out) {
    int uw = orientation >= 5 && orientation <= 8 ? h : w;
    int uh = orientation >= 5 && orientation <= 8 ? w : h;
    for (int uy = 0; uy < uh; uy++) {
        for (int ux = 0; ux < uw; ux++) {
            int sx, sy;
            switch (orientation) {
            case 2: sx = w - 1 - ux; sy = uy; break;
            case 3: sx = w - 1 - ux; sy = h - 1 - uy; break;
            case 4: sx = ux; sy = h - 1 - uy; break;
            case 5: sx = uy; sy = ux; break;
            case 6: sx = uy; sy = h - 1 - ux; break;
            case 7: sx = w - 1 - uy; sy = h - 1 - ux; break;
            case 8: sx = w - 1 - uy; sy = ux; break;
            default: sx = ux; sy = uy; break;
            }
            memcpy(out + ((size_t) uy * uw + ux) * 3, in + ((size_t) sy * w + sx) * 3, 3);
        }
    }
}

struct warm_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void warm_jpeg_error_exit(j_common_ptr info) {
    longjmp(((struct warm_jpeg_error *) info->err)->jump, 1);
}

// A warning (corrupt data libjpeg papers over) hands the image back to libvips, whose loader decides.
static void warm_jpeg_emit_message(j_common_ptr info, int level) {
    if (level < 0)
        longjmp(((struct warm_jpeg_error *) info->err)->jump, 1);
}

static void warm_jpeg_silent(j_common_ptr info) { (void) info; }

static int warm_jpeg_encode_rgb(const unsigned char *pixels, int w, int h, int quality,
                                void **out, size_t *out_len) {
    struct jpeg_compress_struct info;
    struct warm_jpeg_error error;
    unsigned char *volatile encoded = NULL;
    unsigned long encoded_len = 0;
    info.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = warm_jpeg_error_exit;
    error.pub.output_message = warm_jpeg_silent;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(encoded);
        return -1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **) &encoded, &encoded_len);
    info.image_width = (JDIMENSION) w;
    info.image_height = (JDIMENSION) h;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.optimize_coding = TRUE;
    // libvips' jpegsave (subsample_mode auto): chroma at full resolution from quality 90 up, halved both ways below.
    if (quality >= 90)
        for (int c = 0; c < info.num_components; c++)
            info.comp_info[c].h_samp_factor = info.comp_info[c].v_samp_factor = 1;
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW line = (JSAMPROW) (pixels + (size_t) info.next_scanline * w * 3);
        jpeg_write_scanlines(&info, &line, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = g_malloc(encoded_len);
    memcpy(*out, encoded, encoded_len);
    *out_len = encoded_len;
    free(encoded);
    return 0;
}

// Takes `pixels` (width x height RGB as stored, malloc'd): turned upright, encoded as JPEG when `out` is set, and
// handed to `keep` when set (else freed), so that other formats encode the same bitmap. 0, or 1 (nothing kept).
static int warm_upright_finish(unsigned char *pixels, int width, int height, int orientation, int quality,
                               void **out, size_t *out_len, WarmDirectPixels *keep) {
    unsigned char *upright = pixels;
    int uw = width, uh = height;
    if (orientation >= 2 && orientation <= 8) {
        upright = malloc((size_t) width * height * 3);
        if (upright)
            warm_upright_rgb(pixels, width, height, orientation, upright);
        free(pixels);
        if (!upright)
            return 1;
        if (orientation >= 5) {
            uw = height;
            uh = width;
        }
    }
    if (out && warm_jpeg_encode_rgb(upright, uw, uh, quality, out, out_len)) {
        free(upright);
        return 1;
    }
    if (keep) {
        keep->rgb = upright;
        keep->width = uw;
        keep->height = uh;
    } else {
        free(upright);
    }
    return 0;
}

// --- JPEG ------------------------------------------------------------------------

static void warm_jpeg_read_row(void *context, unsigned char *row) {
    struct jpeg_decompress_struct *info = context;
    JSAMPROW line = row;
    if (info->output_scanline < info->output_height)
        jpeg_read_scanlines(info, &line, 1);
}

int warm_jpeg_thumbnail_jpeg(const void *buf, size_t len, int shrink, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len, WarmDirectPixels *keep,
                             long long *decoded) {
    *decoded = 0;
    if (keep)
        keep->rgb = NULL;
    if (width < 1 || height < 1 || !(shrink == 1 || shrink == 2 || shrink == 4 || shrink == 8))
        return 1;
    struct jpeg_decompress_struct info;
    struct warm_jpeg_error error;
    WarmResampler *volatile resampler = NULL;
    unsigned char *volatile resized = NULL;
    info.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = warm_jpeg_error_exit;
    error.pub.emit_message = warm_jpeg_emit_message;
    error.pub.output_message = warm_jpeg_silent;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        warm_resampler_free(resampler);
        free(resized);
        return 1;
    }
    jpeg_create_decompress(&info);
    jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_mem_src(&info, (const unsigned char *) buf, (unsigned long) len);
    jpeg_read_header(&info, TRUE);
    JOCTET *profile = NULL;
    unsigned int profile_len = 0;
    int foreign_profile = 0;
    if (jpeg_read_icc_profile(&info, &profile, &profile_len)) {
        foreign_profile = !warm_icc_profile_is_srgb(profile, profile_len);
        free(profile);
    }
    gboolean plain = (info.jpeg_color_space == JCS_YCbCr && info.num_components == 3) ||
                     (info.jpeg_color_space == JCS_RGB && info.num_components == 3) ||
                     (info.jpeg_color_space == JCS_GRAYSCALE && info.num_components == 1);
    if (foreign_profile || !plain || info.data_precision != 8)
        longjmp(error.jump, 1);
    info.scale_num = 1;
    info.scale_denom = (unsigned int) shrink;
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    // The partial last row and column are left out, as libvips' jpegload does: both paths resample the same pixels.
    int w = (int) info.image_width / shrink, h = (int) info.image_height / shrink;
    if (info.output_components != 3 || w < width || h < height)
        longjmp(error.jump, 1);
    resampler = warm_resampler_new(w, h, (size_t) info.output_width * 3, width, height);
    resized = malloc((size_t) width * height * 3);
    if (!resampler || !resized)
        longjmp(error.jump, 1);
    *decoded = (long long) info.output_width * info.output_height;
    warm_resampler_run(resampler, warm_jpeg_read_row, &info, resized);
    // The rest, so that corrupt data there is still noticed.
    while (info.output_scanline < info.output_height)
        warm_jpeg_read_row(&info, resampler->ring);
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    warm_resampler_free(resampler);
    return warm_upright_finish(resized, width, height, orientation, quality, out, out_len, keep);
}

// --- PNG -------------------------------------------------------------------------

typedef struct {
    const unsigned char *data;
    size_t len, at;
    size_t width;
    png_structp png;
    int channels;         // after libpng's transforms: 3 (RGB) or 4 (RGBA)
    int translucent;      // an alpha below 255 was flattened
    unsigned char *scratch; // one decoded row
} WarmPNGReader;

// An error, or any warning, hands the image back to libvips, as libjpeg's do.
static void warm_png_error(png_structp png, png_const_charp message) {
    (void) message;
    png_longjmp(png, 1);
}

static void warm_png_read_bytes(png_structp png, png_bytep target, size_t count) {
    WarmPNGReader *reader = png_get_io_ptr(png);
    if (count > reader->len - reader->at)
        png_error(png, "truncated");
    memcpy(target, reader->data + reader->at, count);
    reader->at += count;
}

// The next row as RGB, flattened onto white as libvips' flatten does (alpha weighs the colour against 255), rounded.
static void warm_png_read_row(void *context, unsigned char *row) {
    WarmPNGReader *reader = context;
    png_read_row(reader->png, reader->scratch, NULL);
    size_t width = reader->width;
    if (reader->channels == 3) {
        memcpy(row, reader->scratch, width * 3);
        return;
    }
    const unsigned char *p = reader->scratch;
    for (size_t x = 0; x < width; x++, p += 4) {
        unsigned int a = p[3];
        if (a == 255) { // most pixels of most images with alpha
            memcpy(row + 3 * x, p, 3);
            continue;
        }
        reader->translucent = 1;
        unsigned int white = 255 * (255 - a) + 127;
        row[3 * x] = (unsigned char) ((p[0] * a + white) / 255);
        row[3 * x + 1] = (unsigned char) ((p[1] * a + white) / 255);
        row[3 * x + 2] = (unsigned char) ((p[2] * a + white) / 255);
    }
}

int warm_png_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                            int orientation, int quality, void **out, size_t *out_len, WarmDirectPixels *keep,
                            long long *decoded) {
    *decoded = 0;
    if (keep)
        keep->rgb = NULL;
    if (width < 1 || height < 1)
        return 1;
    WarmPNGReader reader = { .data = buf, .len = len };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, warm_png_error, warm_png_error);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return 1;
    }
    WarmResampler *volatile resampler = NULL;
    unsigned char *volatile scratch = NULL;
    unsigned char *volatile resized = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        warm_resampler_free(resampler);
        free(scratch);
        free(resized);
        return 1;
    }
    reader.png = png;
    png_set_read_fn(png, &reader, warm_png_read_bytes);
    // libpng calls the widespread 2009 "sRGB IEC61966-2.1" profile "known incorrect"; it is sRGB for this purpose.
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    // The chunks' CRC-32, still checked, covers the bytes Adler-32 would.
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_read_info(png, info);
    png_uint_32 w, h;
    int depth, colour, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &colour, &interlace, NULL, NULL);
    // What libvips would colour-manage, turn from 16 bits or de-interlace stays with it.
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_len;
    int foreign_profile = png_get_iCCP(png, info, &name, &compression, &profile, &profile_len) &&
                          !warm_icc_profile_is_srgb(profile, profile_len);
    if (foreign_profile || depth > 8 || interlace != PNG_INTERLACE_NONE || w < (png_uint_32) width ||
        h < (png_uint_32) height || w > 1u << 20)
        png_longjmp(png, 1);
    png_set_expand(png); // palette to RGB, grey to 8 bits, tRNS to alpha
    png_set_gray_to_rgb(png);
    png_read_update_info(png, info);
    reader.channels = png_get_channels(png, info);
    reader.width = w;
    if (png_get_bit_depth(png, info) != 8 || (reader.channels != 3 && reader.channels != 4))
        png_longjmp(png, 1);
    scratch = malloc(png_get_rowbytes(png, info));
    reader.scratch = scratch;
    resampler = warm_resampler_new((int) w, (int) h, (size_t) w * 3, width, height);
    resized = malloc((size_t) width * height * 3);
    if (!scratch || !resampler || !resized)
        png_longjmp(png, 1);
    *decoded = (long long) w * h;
    warm_resampler_run(resampler, warm_png_read_row, &reader, resized);
    for (int y = resampler->have; y < (int) h; y++) // the rest, and the end, so that corrupt data there is noticed
        png_read_row(png, scratch, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    warm_resampler_free(resampler);
    free(scratch);
    // Translucent pixels were flattened for JPEG; the formats that keep alpha decode through libvips.
    return warm_upright_finish(resized, width, height, orientation, quality, out, out_len,
                               reader.translucent ? NULL : keep);
}

// --- WebP ------------------------------------------------------------------------

// 1 when an ICCP chunk is there and not sRGB, or when the RIFF chunks run past the end.
static int warm_webp_has_foreign_profile(const unsigned char *bytes, size_t len) {
    size_t at = 12;
    while (at + 8 <= len) {
        size_t size = (size_t) bytes[at + 4] | (size_t) bytes[at + 5] << 8 | (size_t) bytes[at + 6] << 16 |
                      (size_t) bytes[at + 7] << 24;
        if (size > len - at - 8)
            return 1;
        if (memcmp(bytes + at, "ICCP", 4) == 0)
            return !warm_icc_profile_is_srgb(bytes + at + 8, size);
        at += 8 + size + (size & 1);
    }
    return 0;
}

int warm_webp_thumbnail_jpeg(const void *buf, size_t len, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len, WarmDirectPixels *keep,
                             long long *decoded) {
    const unsigned char *bytes = buf;
    *decoded = 0;
    if (keep)
        keep->rgb = NULL;
    WebPDecoderConfig config;
    if (width < 1 || height < 1 || !WebPInitDecoderConfig(&config) ||
        WebPGetFeatures(bytes, len, &config.input) != VP8_STATUS_OK)
        return 1;
    // A profile other than sRGB (an ICCP chunk) stays with libvips' colour management, as do animations.
    if (warm_webp_has_foreign_profile(bytes, len) || config.input.has_animation ||
        config.input.width < width || config.input.height < height)
        return 1;
    int alpha = config.input.has_alpha, translucent = 0;
    config.options.use_scaling = 1;
    config.options.scaled_width = width;
    config.options.scaled_height = height;
    config.output.colorspace = alpha ? MODE_rgbA : MODE_RGB; // rgbA: premultiplied
    // VP8 and VP8L decode every stored pixel; use_scaling resamples the decoded rows.
    *decoded = (long long) config.input.width * config.input.height;
    if (WebPDecode(bytes, len, &config) != VP8_STATUS_OK) {
        WebPFreeDecBuffer(&config.output);
        return 1;
    }
    const WebPRGBABuffer *rgba = &config.output.u.RGBA;
    unsigned char *pixels = malloc((size_t) width * height * 3);
    if (!pixels) {
        WebPFreeDecBuffer(&config.output);
        return 1;
    }
    for (int y = 0; y < height; y++) {
        const unsigned char *p = rgba->rgba + (size_t) y * rgba->stride;
        unsigned char *q = pixels + (size_t) y * width * 3;
        if (!alpha) {
            memcpy(q, p, (size_t) width * 3);
            continue;
        }
        // Premultiplied colour over white: c + (255 - a).
        for (int x = 0; x < width; x++, p += 4, q += 3) {
            unsigned int white = 255u - p[3];
            translucent |= white != 0;
            q[0] = (unsigned char) (p[0] + white > 255 ? 255 : p[0] + white);
            q[1] = (unsigned char) (p[1] + white > 255 ? 255 : p[1] + white);
            q[2] = (unsigned char) (p[2] + white > 255 ? 255 : p[2] + white);
        }
    }
    WebPFreeDecBuffer(&config.output);
    return warm_upright_finish(pixels, width, height, orientation, quality, out, out_len, translucent ? NULL : keep);
}

// --- versions ----------------------------------------------------------------

void warm_decoder_versions(char *text, size_t size) {
    int webp = WebPGetDecoderVersion();
    // libjpeg-turbo has no run-time version call before 3.0: the headers' version, which the soname pins.
    snprintf(text, size, "libvips %s, libjpeg-turbo %d.%d.%d, libpng %s, libwebp %d.%d.%d",
             vips_version_string(), LIBJPEG_TURBO_VERSION_NUMBER / 1000000, LIBJPEG_TURBO_VERSION_NUMBER / 1000 % 1000,
             LIBJPEG_TURBO_VERSION_NUMBER % 1000, png_get_libpng_ver(NULL), webp >> 16, (webp >> 8) & 0xff, webp & 0xff);
}
