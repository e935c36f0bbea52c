/* libwebp's own encoder on warm's bitmaps, for bench/webp_settings.py (issue 37, bench/findings.md section 22).
 * A shared library loaded with ctypes, built together with warm's C engine so that every encoder gets the bitmap
 * `warm run` hands over (the direct path's `WarmDirectPixels`):
 *
 *   cc -O2 -shared -fPIC -o /tmp/webp_settings.so bench/webp_settings.c Sources/CWarmVips/*.c \
 *      -ISources/CWarmVips/include $(pkg-config --cflags --libs vips) -ljpeg -lpng16 -lwebp
 *
 * Encode CPU is CLOCK_PROCESS_CPUTIME_ID around the encode (every thread, libvips' write-behind one too).
 */
#include "CWarmVips.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <webp/encode.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* WebPConfig fields tried; a negative value keeps WebPConfigPreset(WEBP_PRESET_DEFAULT, quality)'s. */
typedef struct {
    float quality;
    int method, sns_strength, filter_strength, filter_sharpness, filter_type, autofilter, segments, pass,
        preprocessing, use_sharp_yuv;
} BenchWebPParams;

int bench_init(void) {
    if (VIPS_INIT("webp_settings"))
        return -1;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    return 0;
}

/* A bare WebPEncode of RGB `rgb` (stride width * 3): 0 and the bytes in *out (free), -1 on failure. */
int bench_webp_encode(const unsigned char *rgb, int width, int height, const BenchWebPParams *p, unsigned char **out,
                      size_t *out_len, double *cpu) {
    double started = cpu_seconds();
    WebPConfig config;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, p->quality))
        return -1;
#define SET(field) if (p->field >= 0) config.field = p->field
    SET(method);
    SET(sns_strength);
    SET(filter_strength);
    SET(filter_sharpness);
    SET(filter_type);
    SET(autofilter);
    SET(segments);
    SET(pass);
    SET(preprocessing);
    SET(use_sharp_yuv);
#undef SET
    if (!WebPValidateConfig(&config))
        return -1;
    WebPPicture picture;
    WebPMemoryWriter writer;
    if (!WebPPictureInit(&picture))
        return -1;
    picture.width = width;
    picture.height = height;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPPictureImportRGB(&picture, rgb, width * 3) && WebPEncode(&config, &picture);
    WebPPictureFree(&picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        return -1;
    }
    *out = writer.mem;
    *out_len = writer.size;
    *cpu = cpu_seconds() - started;
    return 0;
}

/* A libvips saver as warm calls it: the bitmap copied into a libvips image and written with `suffix`
 * (e.g. ".webp[Q=90,effort=4,strip]", what warm did before for WebP, or AVIF's saver suffix). */
int bench_vips_save(const unsigned char *rgb, int width, int height, const char *suffix, unsigned char **out,
                    size_t *out_len, double *cpu) {
    double started = cpu_seconds();
    VipsImage *image = vips_image_new_from_memory_copy(rgb, (size_t) width * height * 3, width, height, 3,
                                                       VIPS_FORMAT_UCHAR);
    void *buf = NULL;
    size_t len = 0;
    int failed = !image || vips_image_write_to_buffer(image, suffix, &buf, &len, NULL);
    if (image)
        g_object_unref(image);
    if (failed)
        return -1;
    *out = malloc(len);
    memcpy(*out, buf, len);
    *out_len = len;
    g_free(buf);
    *cpu = cpu_seconds() - started;
    return 0;
}

/* warm's direct path on an encoded source: its JPEG at `quality` (g_free) and the upright RGB bitmap it came from
 * (free), as `warm run --format jpeg,webp` makes them. 0, or 1 when the direct path does not take the source. */
int bench_direct(const void *buf, size_t len, int format, int shrink, int width, int height, int orientation,
                 int quality, void **jpeg, size_t *jpeg_len, WarmDirectPixels *keep) {
    long long decoded;
    switch (format) {
    case 0:
        return warm_jpeg_thumbnail_jpeg(buf, len, shrink, width, height, orientation, quality, jpeg, jpeg_len, keep, &decoded);
    case 1:
        return warm_png_thumbnail_jpeg(buf, len, width, height, orientation, quality, jpeg, jpeg_len, keep, &decoded);
    default:
        return warm_webp_thumbnail_jpeg(buf, len, width, height, orientation, quality, jpeg, jpeg_len, keep, &decoded);
    }
}
