#include "CTestImages.h"

int test_image_encode(const void *pixels, int width, int height, int bands, const char *profile,
                      int sixteen_bit, int page_height, const char *suffix, void **out, size_t *out_len) {
    size_t len = (size_t) width * height * bands;
    VipsImage *base = vips_image_new();
    VipsImage **t = (VipsImage **) vips_object_local_array(VIPS_OBJECT(base), 5);
    VipsInterpretation space = bands <= 2 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    if (!(t[0] = vips_image_new_from_memory_copy(pixels, len, width, height, bands, VIPS_FORMAT_UCHAR)) ||
        vips_copy(t[0], &t[1], "interpretation", space, NULL)) {
        g_object_unref(base);
        return -1;
    }
    VipsImage *x = t[1];
    // vips_icc_export needs a PCS image: import with the sRGB fallback first.
    if (profile) {
        if (vips_icc_import(x, &t[2], "input_profile", "srgb", "embedded", TRUE, NULL) ||
            vips_icc_export(t[2], &t[3], "output_profile", profile, NULL)) {
            g_object_unref(base);
            return -1;
        }
        x = t[3];
    }
    if (sixteen_bit) {
        VipsInterpretation wide = bands <= 2 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16;
        if (vips_colourspace(x, &t[4], wide, NULL)) {
            g_object_unref(base);
            return -1;
        }
        x = t[4];
    }
    if (page_height > 0)
        vips_image_set_int(x, VIPS_META_PAGE_HEIGHT, page_height);
    int result = vips_image_write_to_buffer(x, suffix, out, out_len, NULL);
    g_object_unref(base);
    return result;
}
