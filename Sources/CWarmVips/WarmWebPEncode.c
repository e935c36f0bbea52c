// WebP thumbnails with libwebp's encoder directly, not libvips' webpsave: no saver pipeline or write-behind thread,
// no metadata chunk to strip afterwards, and WebPConfig fields the saver does not expose (bench/findings.md, 22).
#include "CWarmVips.h"

#include <webp/encode.h>

int warm_webp_encode(VipsImage *in, const WarmWebPSettings *settings, void **out, size_t *out_len) {
    if (in->BandFmt != VIPS_FORMAT_UCHAR || (in->Bands != 3 && in->Bands != 4)) {
        vips_error("warm_webp_encode", "WebP takes 8-bit RGB or RGBA, not %d bands of format %d", in->Bands,
                   in->BandFmt);
        return -1;
    }
    WebPConfig config;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, settings->quality)) {
        vips_error("warm_webp_encode", "libwebp %d.%d.%d is not the version warm was built with",
                   WebPGetEncoderVersion() >> 16, (WebPGetEncoderVersion() >> 8) & 0xff, WebPGetEncoderVersion() & 0xff);
        return -1;
    }
    config.method = settings->method;
    config.segments = settings->segments;
    if (!WebPValidateConfig(&config)) {
        vips_error("warm_webp_encode", "invalid WebP settings: quality %g, method %d, segments %d",
                   (double) settings->quality, settings->method, settings->segments);
        return -1;
    }
    // A reference when `in` is already in memory (the direct path's bitmap), else its pixels rendered once.
    VipsImage *memory = vips_image_copy_memory(in);
    if (!memory)
        return -1;
    WebPPicture picture;
    WebPMemoryWriter writer;
    WebPPictureInit(&picture);
    WebPMemoryWriterInit(&writer);
    picture.width = memory->Xsize;
    picture.height = memory->Ysize;
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    const uint8_t *pixels = (const uint8_t *) VIPS_IMAGE_ADDR(memory, 0, 0);
    int stride = (int) VIPS_IMAGE_SIZEOF_LINE(memory);
    int imported = memory->Bands == 4 ? WebPPictureImportRGBA(&picture, pixels, stride)
                                      : WebPPictureImportRGB(&picture, pixels, stride);
    int encoded = imported && WebPEncode(&config, &picture);
    g_object_unref(memory);
    if (!encoded) {
        vips_error("warm_webp_encode", "libwebp failed (error %d)", imported ? (int) picture.error_code : -1);
        WebPPictureFree(&picture);
        WebPMemoryWriterClear(&writer);
        return -1;
    }
    WebPPictureFree(&picture);
    // GLib's allocator is the system's (GLib >= 2.46), so the caller's g_free releases libwebp's malloc.
    *out = writer.mem;
    *out_len = writer.size;
    return 0;
}
