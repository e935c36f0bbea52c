/* CPU cost of the quality reference's resample (ReferenceResample: Lanczos3 with alpha premultiplied
 * around it, as warm_resize does for an RGBA bitmap) against renderer's bilinear one and against a
 * Lanczos3 of the RGBA bytes without premultiplying (identical maths for an opaque image, 8-bit
 * fixed point instead of floats), on one image decoded upright as RGBA in memory; and how far the
 * last one's pixels are from the reference's.
 *
 *   gcc -O2 bench/reference_cost.c -o /tmp/reference_cost $(pkg-config --cflags --libs vips)
 *   /tmp/reference_cost photo.jpg
 */
#include <vips/vips.h>
#include <stdio.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static VipsImage *premultiplied(VipsImage *in, double scale, VipsKernel kernel) {
    VipsImage *a, *b, *c, *d;
    if (vips_premultiply(in, &a, NULL) || vips_resize(a, &b, scale, "kernel", kernel, NULL) ||
        vips_unpremultiply(b, &c, NULL) || vips_cast(c, &d, VIPS_FORMAT_UCHAR, NULL))
        vips_error_exit("resample");
    VipsImage *out = vips_image_copy_memory(d);
    g_object_unref(a); g_object_unref(b); g_object_unref(c); g_object_unref(d);
    return out;
}

static VipsImage *plain(VipsImage *in, double scale, VipsKernel kernel) {
    VipsImage *b;
    if (vips_resize(in, &b, scale, "kernel", kernel, NULL))
        vips_error_exit("resample");
    VipsImage *out = vips_image_copy_memory(b);
    g_object_unref(b);
    return out;
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0]) || argc != 2)
        vips_error_exit("usage: reference_cost IMAGE");
    VipsImage *in, *rotated, *rgba;
    if (!(in = vips_image_new_from_file(argv[1], "access", VIPS_ACCESS_RANDOM, NULL)) ||
        vips_autorot(in, &rotated, NULL) || vips_bandjoin_const1(rotated, &rgba, 255, NULL))
        vips_error_exit("decode");
    VipsImage *full = vips_image_copy_memory(rgba);
    double scale = 300.0 / VIPS_MAX(full->Xsize, full->Ysize);
    for (int round = 0; round < 2; round++) {
        double t = cpu_seconds();
        VipsImage *reference = premultiplied(full, scale, VIPS_KERNEL_LANCZOS3);
        double lanczos = cpu_seconds() - t;
        t = cpu_seconds();
        g_object_unref(premultiplied(full, scale, VIPS_KERNEL_LINEAR));
        double linear = cpu_seconds() - t;
        t = cpu_seconds();
        VipsImage *fixed = plain(full, scale, VIPS_KERNEL_LANCZOS3);
        double fixedPoint = cpu_seconds() - t;
        VipsImage *diff, *magnitude;
        double low, high, mean;
        if (vips_subtract(reference, fixed, &diff, NULL) || vips_abs(diff, &magnitude, NULL) ||
            vips_min(diff, &low, NULL) || vips_max(diff, &high, NULL) || vips_avg(magnitude, &mean, NULL))
            vips_error_exit("compare");
        printf("%dx%d -> %dx%d: Lanczos3 premultiplied %.3f s CPU, bilinear premultiplied %.3f s, "
               "Lanczos3 of the RGBA bytes %.3f s (differs from the reference by %g..%g, mean |d| %.3f)\n",
               full->Xsize, full->Ysize, reference->Xsize, reference->Ysize, lanczos, linear, fixedPoint, low, high, mean);
        g_object_unref(reference); g_object_unref(fixed); g_object_unref(diff); g_object_unref(magnitude);
    }
    return 0;
}
