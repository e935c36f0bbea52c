// libvips calls only tests need: odd images a catalog may hold that warm
// itself never makes (CMYK, an embedded profile, 16 bits, an animation).
#ifndef CTESTIMAGES_H
#define CTESTIMAGES_H

#include <stddef.h>
#include <vips/vips.h>

/// Encodes 8-bit samples (`bands` 1: grey, 3: RGB) with a libvips suffix
/// (".jpg[Q=95]"), first transformed to the ICC `profile` when not NULL
/// ("cmyk", "p3", "srgb", a path) and attached, widened to 16 bits when
/// `sixteen_bit`, cut into frames `page_height` tall when above 0.
/// 0 and the bytes in *out (free with g_free), or -1 (vips_error_buffer()).
int test_image_encode(const void *pixels, int width, int height, int bands, const char *profile,
                      int sixteen_bit, int page_height, const char *suffix, void **out, size_t *out_len);

#endif
