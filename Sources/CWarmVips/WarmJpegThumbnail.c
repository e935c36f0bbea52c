// JPEG in, JPEG thumbnail out, without libvips' pipeline: libjpeg decodes at
// a DCT scale into one buffer, a separable Lanczos3 resample brings it to the
// exact size, the buffer is turned upright and libjpeg encodes it.
//
// Why by hand: on a 2-core box libvips' per-image cost (operations built by
// name, a region pipeline, the resample kernel built per image) was most of a
// server-sized JPEG's time: 9.1-9.5 ms per image through vips_jpegload +
// vips_resize + vips_jpegsave in a C loop over 288 server JPEGs, against
// 2.2 ms decode + 0.5 ms encode with libjpeg alone (bench/findings.md,
// section 8). libvips stays the path for everything this one does not take.
#include "CWarmVips.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef float warm_v4 __attribute__((vector_size(16)));

struct warm_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

static void warm_jpeg_error_exit(j_common_ptr info) {
    longjmp(((struct warm_jpeg_error *) info->err)->jump, 1);
}

// A warning (corrupt data that libjpeg papers over) hands the image back to
// libvips, whose loader decides as it always has.
static void warm_jpeg_emit_message(j_common_ptr info, int level) {
    if (level < 0)
        longjmp(((struct warm_jpeg_error *) info->err)->jump, 1);
}

static void warm_jpeg_silent(j_common_ptr info) { (void) info; }

static double warm_lanczos3(double x) {
    if (x == 0.0)
        return 1.0;
    if (x <= -3.0 || x >= 3.0)
        return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

// The taps of a Lanczos3 resample from `in` to `out` samples (out <= in),
// pixel centres aligned: output x samples the input around (x + 0.5) * in /
// out - 0.5, the kernel stretched by in / out. Each output's taps sum to 1.
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
    if (!taps->start || !taps->count || !taps->weight) {
        warm_taps_free(taps);
        return -1;
    }
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

static inline unsigned char warm_round_uchar(float v) {
    v += 0.5f;
    return v <= 0 ? 0 : v >= 255 ? 255 : (unsigned char) v;
}

// RGB (3 bytes a pixel, `in_stride` pixels a row) from in_w x in_h to
// out_w x out_h, both sides shrinking or staying. As libvips' resize does it:
// vertically first, rounded to 8 bits, then horizontally. The vertical pass
// runs along whole rows (one sum per byte, independent of each other); the
// horizontal one sums 4-float pixels with four partial sums, so that the
// additions do not wait on each other.
__attribute__((target_clones("avx2", "default")))
static int warm_resample_rgb(const unsigned char *in, int in_w, int in_h, int in_stride,
                             unsigned char *out, int out_w, int out_h) {
    WarmTaps across, down;
    if (warm_taps_make(in_w, out_w, &across))
        return -1;
    if (warm_taps_make(in_h, out_h, &down)) {
        warm_taps_free(&across);
        return -1;
    }
    size_t span = (size_t) in_w * 3;
    unsigned char *tall = malloc(span * (size_t) out_h);
    float *line = malloc(sizeof(float) * span);
    warm_v4 *row = malloc(sizeof(warm_v4) * (size_t) in_w);
    if (!tall || !line || !row) {
        free(tall);
        free(line);
        free(row);
        warm_taps_free(&across);
        warm_taps_free(&down);
        return -1;
    }
    for (int y = 0; y < out_h; y++) {
        const float *w = down.weight + (size_t) y * down.stride;
        const unsigned char *first = in + (size_t) down.start[y] * in_stride * 3;
        float *restrict sums = line;
        for (size_t i = 0; i < span; i++)
            sums[i] = first[i] * w[0];
        for (int k = 1; k < down.count[y]; k++) {
            const unsigned char *restrict r = first + (size_t) k * in_stride * 3;
            float wk = w[k];
            for (size_t i = 0; i < span; i++)
                sums[i] += r[i] * wk;
        }
        unsigned char *restrict target = tall + span * y;
        for (size_t i = 0; i < span; i++)
            target[i] = warm_round_uchar(sums[i]);
    }
    for (int y = 0; y < out_h; y++) {
        const unsigned char *p = tall + span * y;
        for (int x = 0; x < in_w; x++)
            row[x] = (warm_v4) { p[3 * x], p[3 * x + 1], p[3 * x + 2], 0 };
        unsigned char *target = out + (size_t) y * out_w * 3;
        for (int x = 0; x < out_w; x++) {
            const float *w = across.weight + (size_t) x * across.stride;
            const warm_v4 *s = row + across.start[x];
            int n = across.count[x], k = 0;
            warm_v4 a = { 0, 0, 0, 0 }, b = a, c = a, d = a;
            for (; k + 4 <= n; k += 4) {
                a += s[k] * w[k];
                b += s[k + 1] * w[k + 1];
                c += s[k + 2] * w[k + 2];
                d += s[k + 3] * w[k + 3];
            }
            for (; k < n; k++)
                a += s[k] * w[k];
            warm_v4 sum = (a + b) + (c + d);
            target[3 * x] = warm_round_uchar(sum[0]);
            target[3 * x + 1] = warm_round_uchar(sum[1]);
            target[3 * x + 2] = warm_round_uchar(sum[2]);
        }
    }
    free(tall);
    free(line);
    free(row);
    warm_taps_free(&across);
    warm_taps_free(&down);
    return 0;
}

// The stored RGB image turned upright by EXIF `orientation` (1-8; others
// leave it as it is). Upright is height x width for 5-8.
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
    // libvips' jpegsave (subsample_mode auto): chroma at full resolution
    // from quality 90 up, halved both ways below.
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

int warm_jpeg_thumbnail_jpeg(const void *buf, size_t len, int shrink, int width, int height,
                             int orientation, int quality, void **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    if (width < 1 || height < 1 || !(shrink == 1 || shrink == 2 || shrink == 4 || shrink == 8))
        return 1;
    struct jpeg_decompress_struct info;
    struct warm_jpeg_error error;
    unsigned char *volatile decoded = NULL;
    unsigned char *volatile resized = NULL;
    unsigned char *volatile upright = NULL;
    info.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = warm_jpeg_error_exit;
    error.pub.emit_message = warm_jpeg_emit_message;
    error.pub.output_message = warm_jpeg_silent;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        free(decoded);
        free(resized);
        free(upright);
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
    if (foreign_profile || !plain || info.data_precision != 8) {
        jpeg_destroy_decompress(&info);
        return 1;
    }
    info.scale_num = 1;
    info.scale_denom = (unsigned int) shrink;
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    int w = (int) info.output_width, h = (int) info.output_height;
    if (w < width || h < height || info.output_components != 3)
        longjmp(error.jump, 1);
    decoded = malloc((size_t) w * h * 3);
    if (!decoded)
        longjmp(error.jump, 1);
    while (info.output_scanline < info.output_height) {
        JSAMPROW line = (JSAMPROW) (decoded + (size_t) info.output_scanline * w * 3);
        jpeg_read_scanlines(&info, &line, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);

    // libvips' jpegload gives the scaled image floor(side / shrink) pixels a
    // side where libjpeg decodes ceil(side / shrink): the partial last row
    // and column are left out, so that both paths resample the same pixels.
    int stride = w;
    w = (int) info.image_width / shrink;
    h = (int) info.image_height / shrink;
    if (w < width || h < height)
        longjmp(error.jump, 1);
    unsigned char *pixels = decoded;
    if (w != width || h != height || w != stride) { // at 1:1 the resample only crops
        resized = malloc((size_t) width * height * 3);
        if (!resized || warm_resample_rgb(decoded, w, h, stride, resized, width, height)) {
            free(decoded);
            free(resized);
            return 1;
        }
        pixels = resized;
    }
    int uw = width, uh = height;
    if (orientation >= 2 && orientation <= 8) {
        upright = malloc((size_t) width * height * 3);
        if (!upright) {
            free(decoded);
            free(resized);
            return 1;
        }
        warm_upright_rgb(pixels, width, height, orientation, upright);
        pixels = upright;
        if (orientation >= 5) {
            uw = height;
            uh = width;
        }
    }
    int failed = warm_jpeg_encode_rgb(pixels, uw, uh, quality, out, out_len);
    free(decoded);
    free(resized);
    free(upright);
    return failed ? 1 : 0;
}
