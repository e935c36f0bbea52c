/* The quality reference's Lanczos3 (ReferenceResample: alpha premultiplied in floats around libvips'
 * resize, as warm_resize does it) against ways of making the same pixels with less CPU, on images
 * decoded upright as RGBA in memory with alpha 255 (an opaque source, as the naive bitmap holds it):
 *   A  premultiplied, streamed (the reference as it was)
 *   B  the colour bands alone as floats (premultiplying by 255/255 changes no float), streamed
 *   C  B with the floats copied into memory before the resize (what warm_reference_resize does)
 * Prints each variant's CPU seconds (best of three) and its largest difference from A over all bands.
 *
 *   gcc -O2 bench/reference_variants.c -o /tmp/reference_variants $(pkg-config --cflags --libs vips)
 *   CONCURRENCY=1 /tmp/reference_variants IMAGE...
 */
#include <vips/vips.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Renders `in` into memory and drops the caller's reference to it. */
static VipsImage *rendered(VipsImage *in) {
    VipsImage *out = vips_image_copy_memory(in);
    if (!out) vips_error_exit("render");
    g_object_unref(in);
    return out;
}

static VipsImage *premultiplied(VipsImage *full, double scale) {
    VipsImage *a, *b, *c, *d;
    if (vips_premultiply(full, &a, NULL) || vips_resize(a, &b, scale, "kernel", VIPS_KERNEL_LANCZOS3, NULL) ||
        vips_unpremultiply(b, &c, NULL) || vips_cast(c, &d, VIPS_FORMAT_UCHAR, NULL))
        vips_error_exit("A");
    g_object_unref(a); g_object_unref(b); g_object_unref(c);
    return rendered(d);
}

static VipsImage *colour_bands(VipsImage *full, double scale, int copied) {
    VipsImage *e, *f, *g, *h, *i;
    if (vips_extract_band(full, &e, 0, "n", 3, NULL) || vips_cast(e, &f, VIPS_FORMAT_FLOAT, NULL))
        vips_error_exit("B");
    g_object_unref(e);
    if (copied) f = rendered(f);
    if (vips_resize(f, &g, scale, "kernel", VIPS_KERNEL_LANCZOS3, NULL) || vips_cast(g, &h, VIPS_FORMAT_UCHAR, NULL) ||
        vips_bandjoin_const1(h, &i, 255, NULL))
        vips_error_exit("B");
    g_object_unref(f); g_object_unref(g); g_object_unref(h);
    return rendered(i);
}

static double largest_difference(VipsImage *x, VipsImage *y) {
    VipsImage *d, *m;
    double largest;
    if (vips_subtract(x, y, &d, NULL) || vips_abs(d, &m, NULL) || vips_max(m, &largest, NULL))
        vips_error_exit("compare");
    g_object_unref(d); g_object_unref(m);
    return largest;
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0]) || argc < 2)
        vips_error_exit("usage: reference_variants IMAGE...");
    if (getenv("CONCURRENCY")) vips_concurrency_set(atoi(getenv("CONCURRENCY")));
    for (int n = 1; n < argc; n++) {
        VipsImage *in, *rotated, *rgba;
        if (!(in = vips_image_new_from_file(argv[n], "access", VIPS_ACCESS_RANDOM, NULL)) ||
            vips_autorot(in, &rotated, NULL))
            vips_error_exit("decode");
        /* A source with alpha keeps it (the variants B and C assume it is 255 everywhere). */
        if (vips_image_hasalpha(rotated)) {
            g_object_ref(rotated);
            rgba = rotated;
        } else if (vips_bandjoin_const1(rotated, &rgba, 255, NULL))
            vips_error_exit("decode");
        g_object_unref(in); g_object_unref(rotated);
        VipsImage *full = rendered(rgba);
        double scale = 300.0 / VIPS_MAX(full->Xsize, full->Ysize);
        VipsImage *reference = premultiplied(full, scale);
        printf("%s %dx%d:", argv[n], full->Xsize, full->Ysize);
        VipsImage *alpha;
        double lowest;
        if (vips_extract_band(full, &alpha, 3, NULL) || vips_min(alpha, &lowest, NULL))
            vips_error_exit("alpha");
        g_object_unref(alpha);
        /* warm takes B/C only for an image whose alpha is 255 everywhere. */
        int variants = lowest >= 255 ? 3 : 1;
        if (variants == 1) printf("  translucent (alpha down to %g): A only", lowest);
        for (int variant = 0; variant < variants; variant++) {
            double best = 1e9, difference = 0;
            for (int round = 0; round < 3; round++) {
                double t = cpu_seconds();
                VipsImage *out = variant == 0 ? premultiplied(full, scale) : colour_bands(full, scale, variant == 2);
                t = cpu_seconds() - t;
                if (t < best) best = t;
                difference = largest_difference(reference, out);
                g_object_unref(out);
            }
            printf("  %c %.3f s (max diff %g)", "ABC"[variant], best, difference);
        }
        printf("\n");
        g_object_unref(reference); g_object_unref(full);
    }
    return 0;
}
