// AVIF thumbnails through libheif's AV1 encoder directly, not libvips' heifsave: the same calls the saver makes
// (quality, speed 9 - effort, 4:2:0 below Q 90, alpha as an auxiliary image), without the saver's pipeline and
// write-behind thread, and with aom on one thread, since a decode worker per core already fills the cores. At
// effort 0 (the default) the file is the saver's byte for byte (bench/findings.md, sections 22 and 24).
#include "CWarmVips.h"

#include <libheif/heif.h>
#include <string.h>

static int heif_failed(struct heif_error error) {
    if (error.code == heif_error_Ok)
        return 0;
    vips_error("warm_avif_encode", "libheif: %s", error.message ? error.message : "unknown error");
    return 1;
}

// libheif's writer: appends to the GByteArray in `user`.
static struct heif_error warm_heif_write(struct heif_context *context, const void *data, size_t size, void *user) {
    (void) context;
    g_byte_array_append((GByteArray *) user, data, (guint) size);
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};
    return ok;
}

// The encoder's knobs as libvips 8.14's heifsave sets them; "threads" is the one it leaves at libheif's default.
static int configure(struct heif_encoder *encoder, const WarmAVIFSettings *settings) {
    if (heif_failed(heif_encoder_set_lossy_quality(encoder, settings->quality)) ||
        heif_failed(heif_encoder_set_lossless(encoder, 0)) ||
        heif_failed(heif_encoder_set_parameter_integer(encoder, "speed", 9 - settings->effort)) ||
        heif_failed(heif_encoder_set_parameter_string(encoder, "chroma", settings->quality >= 90 ? "444" : "420")))
        return -1;
    struct heif_error threads = heif_encoder_set_parameter_integer(encoder, "threads", 1);
    if (threads.code != heif_error_Ok && threads.subcode != heif_suberror_Unsupported_parameter) {
        heif_failed(threads);
        return -1;
    }
    return 0;
}

// Copies the rows of `memory` into a new interleaved RGB(A) libheif image.
static int heif_image_from(VipsImage *memory, struct heif_image **image) {
    int alpha = memory->Bands == 4;
    if (heif_failed(heif_image_create(memory->Xsize, memory->Ysize, heif_colorspace_RGB,
                                      alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, image)))
        return -1;
    if (heif_failed(heif_image_add_plane(*image, heif_channel_interleaved, memory->Xsize, memory->Ysize, 8))) {
        heif_image_release(*image);
        return -1;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(*image, heif_channel_interleaved, &stride);
    size_t line = VIPS_IMAGE_SIZEOF_LINE(memory);
    for (int y = 0; y < memory->Ysize; y++)
        memcpy(plane + (size_t) y * stride, VIPS_IMAGE_ADDR(memory, 0, y), line);
    return 0;
}

int warm_avif_encode(VipsImage *in, const WarmAVIFSettings *settings, void **out, size_t *out_len) {
    if (in->BandFmt != VIPS_FORMAT_UCHAR || (in->Bands != 3 && in->Bands != 4)) {
        vips_error("warm_avif_encode", "AVIF takes 8-bit RGB or RGBA, not %d bands of format %d", in->Bands,
                   in->BandFmt);
        return -1;
    }
    if (settings->quality < 1 || settings->quality > 100 || settings->effort < 0 || settings->effort > 9) {
        vips_error("warm_avif_encode", "invalid AVIF settings: quality %d, effort %d", settings->quality,
                   settings->effort);
        return -1;
    }
    // A reference when `in` is already in memory (the direct path's bitmap), else its pixels rendered once.
    VipsImage *memory = vips_image_copy_memory(in);
    if (!memory)
        return -1;
    struct heif_image *image = NULL;
    int failed = heif_image_from(memory, &image);
    int alpha = memory->Bands == 4;
    g_object_unref(memory);
    if (failed)
        return -1;

    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    options->save_alpha_channel = alpha;
    GByteArray *bytes = g_byte_array_new();
    struct heif_writer writer = {1, warm_heif_write};
    failed = heif_failed(heif_context_get_encoder_for_format(context, heif_compression_AV1, &encoder)) ||
             configure(encoder, settings) != 0 ||
             heif_failed(heif_context_encode_image(context, image, encoder, options, NULL)) ||
             heif_failed(heif_context_write(context, &writer, bytes));
    heif_encoding_options_free(options);
    if (encoder)
        heif_encoder_release(encoder);
    heif_context_free(context);
    heif_image_release(image);
    if (failed) {
        g_byte_array_unref(bytes);
        return -1;
    }
    *out_len = bytes->len;
    *out = g_byte_array_free(bytes, FALSE);
    return 0;
}
