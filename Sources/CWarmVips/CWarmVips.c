#define _GNU_SOURCE
#include "CWarmVips.h"

#include <stdio.h>
#include <string.h>

// --- process set-up -------------------------------------------------------

static void warm_drop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void) domain; (void) level; (void) message; (void) data;
}

int warm_vips_init(void) {
    if (VIPS_INIT("warm"))
        return -1;
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, warm_drop_log, NULL);
    vips_concurrency_set(1);
    // The operation cache would keep decoded images alive after use; each image is decoded once.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    // Debian 12's ORC 0.4.33 crashes when threads compile at once; the one-image-at-a-time workers turn it on.
    vips_vector_set_enabled(FALSE);
    return 0;
}

// --- images ----------------------------------------------------------------

VipsImage *warm_image_open(const void *buf, size_t len, int copy, int sequential, int jpeg_shrink) {
    VipsSource *source;
    if (copy) {
        VipsBlob *blob = vips_blob_copy(buf, len);
        if (!blob)
            return NULL;
        source = vips_source_new_from_blob(blob);
        vips_area_unref(VIPS_AREA(blob));
    } else {
        source = vips_source_new_from_memory(buf, len);
    }
    if (!source)
        return NULL;
    char options[32] = "";
    if (jpeg_shrink > 1)
        snprintf(options, sizeof options, "[shrink=%d]", jpeg_shrink);
    VipsImage *image = vips_image_new_from_source(
        source, options,
        "fail_on", VIPS_FAIL_ON_ERROR,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        NULL);
    g_object_unref(source);
    return image;
}

// ICC v2 'desc' (ASCII) or v4 'mluc' (UTF-16BE) description of a profile.
int warm_icc_profile_is_srgb(const void *profile, size_t len) {
    const unsigned char *p = (const unsigned char *) profile;
    if (len < 132 || memcmp(p + 16, "RGB ", 4) != 0)
        return 0;
    uint32_t count = (uint32_t) p[128] << 24 | (uint32_t) p[129] << 16 | (uint32_t) p[130] << 8 | p[131];
    for (uint32_t i = 0; i < count && 132 + 12 * (size_t) (i + 1) <= len; i++) {
        const unsigned char *entry = p + 132 + 12 * i;
        if (memcmp(entry, "desc", 4) != 0)
            continue;
        size_t offset = (size_t) entry[4] << 24 | (size_t) entry[5] << 16 | (size_t) entry[6] << 8 | entry[7];
        size_t size = (size_t) entry[8] << 24 | (size_t) entry[9] << 16 | (size_t) entry[10] << 8 | entry[11];
        if (offset > len || size > len - offset || size < 12)
            return 0;
        const unsigned char *tag = p + offset;
        char text[128];
        size_t n = 0;
        if (memcmp(tag, "desc", 4) == 0) {
            for (size_t k = 12; k < size && n + 1 < sizeof text && tag[k]; k++)
                text[n++] = (char) tag[k];
        } else if (memcmp(tag, "mluc", 4) == 0 && size >= 28) {
            size_t at = (size_t) tag[20] << 24 | (size_t) tag[21] << 16 | (size_t) tag[22] << 8 | tag[23];
            size_t bytes = (size_t) tag[16] << 24 | (size_t) tag[17] << 16 | (size_t) tag[18] << 8 | tag[19];
            for (size_t k = at; k + 1 < size && k + 1 < at + bytes && n + 1 < sizeof text; k += 2)
                text[n++] = tag[k] == 0 ? (char) tag[k + 1] : '?';
        }
        text[n] = 0;
        return strstr(text, "sRGB") != NULL;
    }
    return 0;
}

static int warm_image_icc_is_srgb(VipsImage *image) {
    const void *data = NULL;
    size_t len = 0;
    if (!vips_image_get_typeof(image, VIPS_META_ICC_NAME) ||
        vips_image_get_blob(image, VIPS_META_ICC_NAME, &data, &len))
        return 0;
    return warm_icc_profile_is_srgb(data, len);
}

int warm_alpha_is_opaque(VipsImage *image, int *opaque) {
    *opaque = 1;
    if (!vips_image_hasalpha(image))
        return 0;
    VipsImage *alpha = NULL;
    double minimum = 0;
    if (vips_extract_band(image, &alpha, vips_image_get_bands(image) - 1, NULL))
        return -1;
    int result = vips_min(alpha, &minimum, NULL);
    g_object_unref(alpha);
    if (result)
        return -1;
    double max_alpha = vips_image_get_format(image) == VIPS_FORMAT_USHORT ? 65535.0 : 255.0;
    *opaque = minimum >= max_alpha ? 1 : 0;
    return 0;
}

// --- operations ------------------------------------------------------------

int warm_to_srgb(VipsImage *in, WarmAlphaMode alpha, VipsImage **out) {
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(base), 6);
    VipsImage *x = in;

    // A broken profile falls back to the plain conversion; an sRGB one is skipped (lcms would change nothing).
    gboolean cmyk = vips_image_get_interpretation(x) == VIPS_INTERPRETATION_CMYK;
    gboolean srgb_profile = !cmyk && vips_image_get_format(x) == VIPS_FORMAT_UCHAR &&
                            vips_image_get_interpretation(x) == VIPS_INTERPRETATION_sRGB &&
                            warm_image_icc_is_srgb(x);
    if (cmyk || (vips_image_get_typeof(x, VIPS_META_ICC_NAME) && !srgb_profile)) {
        if (!vips_icc_transform(x, &t[0], "srgb",
                                "embedded", TRUE,
                                "input_profile", cmyk ? "cmyk" : "srgb",
                                "depth", 8,
                                NULL))
            x = t[0];
        else
            vips_error_clear();
    }
    // Greyscale, 16-bit, Lab... to 8-bit sRGB (alpha is carried along).
    if (vips_image_get_interpretation(x) != VIPS_INTERPRETATION_sRGB ||
        vips_image_get_format(x) != VIPS_FORMAT_UCHAR) {
        if (vips_colourspace(x, &t[1], VIPS_INTERPRETATION_sRGB, NULL))
            goto fail;
        x = t[1];
    }
    if (vips_image_get_format(x) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(x, &t[2], NULL))
            goto fail;
        x = t[2];
    }
    int bands = vips_image_get_bands(x);
    if (bands > 4) {
        if (vips_extract_band(x, &t[3], 0, "n", 4, NULL))
            goto fail;
        x = t[3];
        bands = 4;
    } else if (bands != 3 && bands != 4) {
        vips_error("warm", "cannot make RGB from %d bands", bands);
        goto fail;
    }
    if (bands == 3 && alpha == WARM_ALPHA_ALWAYS) {
        if (vips_bandjoin_const1(x, &t[5], 255.0, NULL))
            goto fail;
        x = t[5];
    } else if (bands == 4 && alpha == WARM_ALPHA_FLATTEN_ON_WHITE) {
        if (warm_flatten_on_white(x, &t[5]))
            goto fail;
        x = t[5];
    }
    // Drop the (now stale) ICC profile: the pixels are sRGB.
    if (vips_copy(x, &t[4], NULL))
        goto fail;
    vips_image_remove(t[4], VIPS_META_ICC_NAME);
    *out = t[4];
    g_object_ref(*out);
    g_object_unref(base);
    return 0;
fail:
    g_object_unref(base);
    return -1;
}

int warm_autorot(VipsImage *in, int orientation, VipsImage **out) {
    VipsImage *tagged = NULL;
    if (warm_copy_set_orientation(in, (orientation >= 1 && orientation <= 8) ? orientation : 1, &tagged))
        return -1;
    int result = vips_autorot(tagged, out, NULL);
    g_object_unref(tagged);
    return result;
}

int warm_resize(VipsImage *in, double hscale, double vscale, VipsKernel kernel, int opaque, VipsImage **out) {
    if (!vips_image_hasalpha(in))
        return vips_resize(in, out, hscale, "vscale", vscale, "kernel", kernel, NULL);

    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(base), 3);
    VipsBandFormat format = vips_image_get_format(in);
    if (opaque) {
        int failed = vips_extract_band(in, &t[0], 0, "n", vips_image_get_bands(in) - 1, NULL) ||
                     vips_resize(t[0], &t[1], hscale, "vscale", vscale, "kernel", kernel, NULL) ||
                     vips_bandjoin_const1(t[1], out, 255.0, NULL);
        g_object_unref(base);
        return failed ? -1 : 0;
    }
    if (vips_premultiply(in, &t[0], NULL) ||
        vips_resize(t[0], &t[1], hscale, "vscale", vscale, "kernel", kernel, NULL) ||
        vips_unpremultiply(t[1], &t[2], NULL) ||
        vips_cast(t[2], out, format, NULL)) {
        g_object_unref(base);
        return -1;
    }
    g_object_unref(base);
    return 0;
}

int warm_reference_resize(VipsImage *in, double hscale, double vscale, int opaque, size_t materialize_limit,
                          VipsImage **out) {
    if (!vips_image_hasalpha(in) || vips_image_get_format(in) != VIPS_FORMAT_UCHAR)
        return warm_resize(in, hscale, vscale, VIPS_KERNEL_LANCZOS3, 0, out);

    int bands = vips_image_get_bands(in);
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(base), 6);
    // Colour bands alone when every alpha is 255 (premultiplying by 255/255 changes no float), else premultiplied.
    if (opaque ? vips_extract_band(in, &t[0], 0, "n", bands - 1, NULL) || vips_cast(t[0], &t[1], VIPS_FORMAT_FLOAT, NULL)
               : vips_premultiply(in, &t[1], NULL))
        goto fail;
    VipsImage *floats = t[1];
    // libvips' resize reads its input rows more than once (overlapping windows), redoing the cast and
    // premultiply each time: rendered once into memory, when small enough.
    if (VIPS_IMAGE_SIZEOF_IMAGE(floats) <= materialize_limit) {
        if (!(t[2] = vips_image_copy_memory(floats)))
            goto fail;
        floats = t[2];
    }
    if (vips_resize(floats, &t[3], hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL))
        goto fail;
    int failed;
    if (opaque)
        failed = vips_cast(t[3], &t[4], VIPS_FORMAT_UCHAR, NULL) || vips_bandjoin_const1(t[4], out, 255.0, NULL);
    else
        failed = vips_unpremultiply(t[3], &t[4], NULL) || vips_cast(t[4], out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(base);
    return failed ? -1 : 0;
fail:
    g_object_unref(base);
    return -1;
}

int warm_thumbnail_memory(const void *buf, size_t len, int size, VipsImage **out) {
    VipsSource *source = vips_source_new_from_memory(buf, len);
    if (!source)
        return -1;
    int result = vips_thumbnail_source(source, out, size,
                                       "height", size,
                                       "size", VIPS_SIZE_DOWN,
                                       "no_rotate", TRUE,
                                       "option_string", "fail_on=error",
                                       NULL);
    g_object_unref(source);
    return result;
}

static void warm_leaf_pixels(VipsImage *image, long long *most) {
    if (!image->upstream) {
        long long pixels = (long long) image->Xsize * image->Ysize;
        if (pixels > *most)
            *most = pixels;
        return;
    }
    for (GSList *p = image->upstream; p; p = p->next)
        warm_leaf_pixels((VipsImage *) p->data, most);
}

long long warm_image_source_pixels(VipsImage *image) {
    long long most = 0;
    warm_leaf_pixels(image, &most);
    return most;
}

// Flattening and resizing are both linear: flattening first gives thumbnail's pixels without its float premultiply.
int warm_png_flat_resized(const void *buf, size_t len, int width, int height, VipsImage **out) {
    *out = NULL;
    VipsImage *image = warm_image_open(buf, len, 0, 1, 0);
    if (!image)
        return -1;
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(base), 2);
    t[0] = image;
    VipsInterpretation interpretation = vips_image_get_interpretation(image);
    int bands = vips_image_get_bands(image);
    gboolean colour = interpretation == VIPS_INTERPRETATION_sRGB && (bands == 3 || bands == 4);
    gboolean grey = interpretation == VIPS_INTERPRETATION_B_W && (bands == 1 || bands == 2);
    if (vips_image_get_format(image) != VIPS_FORMAT_UCHAR || !(colour || grey) ||
        vips_image_get_n_pages(image) != 1 ||
        (vips_image_get_typeof(image, VIPS_META_ICC_NAME) && !warm_image_icc_is_srgb(image)) ||
        width < 1 || height < 1) {
        g_object_unref(base);
        return 1;
    }
    VipsImage *x = image;
    if (vips_image_hasalpha(image)) {
        if (warm_flatten_on_white(image, &t[1])) {
            g_object_unref(base);
            return -1;
        }
        x = t[1];
    }
    int result = 0;
    if (vips_image_get_width(x) == width && vips_image_get_height(x) == height)
        *out = g_object_ref(x);
    else
        result = vips_resize(x, out, (double) width / vips_image_get_width(x),
                             "vscale", (double) height / vips_image_get_height(x),
                             "kernel", VIPS_KERNEL_LANCZOS3, NULL);
    g_object_unref(base);
    return result ? -1 : 0;
}

int warm_blank_canvas(int width, int height, VipsImage **out) {
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(base), 3);
    // Written out, so its pages are resident from now on, as a drawing context's are.
    *out = NULL;
    if (!vips_black(&t[0], width, height, "bands", 4, NULL) && !vips_cast_uchar(t[0], &t[1], NULL) &&
        !vips_copy(t[1], &t[2], "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
        *out = vips_image_copy_memory(t[2]);
    g_object_unref(base);
    return *out ? 0 : -1;
}

int warm_draw_into(VipsImage *canvas, VipsImage *picture) {
    return vips_draw_image(canvas, picture, 0, 0, NULL);
}

int warm_crop(VipsImage *in, int left, int top, int width, int height, VipsImage **out) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int warm_flatten_on_white(VipsImage *in, VipsImage **out) {
    double background[3] = { 255, 255, 255 };
    VipsArrayDouble *array = vips_array_double_new(background, vips_image_get_bands(in) >= 4 ? 3 : 1);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

int warm_copy_set_orientation(VipsImage *in, int orientation, VipsImage **out) {
    if (vips_copy(in, out, NULL))
        return -1;
    vips_image_set_int(*out, VIPS_META_ORIENTATION, orientation);
    return 0;
}

int warm_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
    return vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}

// --- glibc allocator ------------------------------------------------------

#include <malloc.h>
int warm_malloc_set_mmap_threshold(size_t bytes) { return mallopt(M_MMAP_THRESHOLD, (int) bytes) == 1 ? 1 : 0; }
int warm_malloc_set_arena_max(int count) { return mallopt(M_ARENA_MAX, count) == 1 ? 1 : 0; }
int warm_malloc_trim(void) { return malloc_trim(0); }

