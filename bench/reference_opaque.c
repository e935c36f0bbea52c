/* The quality reference (Lanczos3 with alpha premultiplied around it, as warm_resize) against a Lanczos3 of
 * the three colour bands cast to float, no alpha, no premultiply, alpha 255 joined back: for an image without
 * alpha, CPU time of each and how far their pixels are apart (all four bands).
 *
 *   gcc -O2 bench/reference_opaque.c -o /tmp/reference_opaque $(pkg-config --cflags --libs vips)
 *   /tmp/reference_opaque IMAGE...
 */
#include <vips/vips.h>
#include <stdio.h>
#include <time.h>
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec/1e9;}
static VipsImage *reference(VipsImage *in,double s){VipsImage *a,*b,*c,*d;
 if(vips_premultiply(in,&a,NULL)||vips_resize(a,&b,s,"kernel",VIPS_KERNEL_LANCZOS3,NULL)||vips_unpremultiply(b,&c,NULL)||vips_cast(c,&d,VIPS_FORMAT_UCHAR,NULL))vips_error_exit("ref");
 VipsImage*o=vips_image_copy_memory(d);g_object_unref(a);g_object_unref(b);g_object_unref(c);g_object_unref(d);return o;}
static VipsImage *opaque(VipsImage *in,double s){VipsImage *a,*b,*c,*d,*e;
 if(vips_extract_band(in,&a,0,"n",3,NULL)||vips_cast(a,&b,VIPS_FORMAT_FLOAT,NULL)||vips_resize(b,&c,s,"kernel",VIPS_KERNEL_LANCZOS3,NULL)||vips_cast(c,&d,VIPS_FORMAT_UCHAR,NULL)||vips_bandjoin_const1(d,&e,255,NULL))vips_error_exit("opaque");
 VipsImage*o=vips_image_copy_memory(e);g_object_unref(a);g_object_unref(b);g_object_unref(c);g_object_unref(d);g_object_unref(e);return o;}
int main(int argc,char**argv){ if(VIPS_INIT(argv[0]))vips_error_exit("init");
 for(int f=1;f<argc;f++){VipsImage *in,*rot,*rgba;
  if(!(in=vips_image_new_from_file(argv[f],"access",VIPS_ACCESS_RANDOM,NULL))||vips_autorot(in,&rot,NULL))vips_error_exit("decode");
  if(vips_image_hasalpha(rot)){printf("%s has alpha, skipped\n",argv[f]);continue;}
  if(vips_bandjoin_const1(rot,&rgba,255,NULL))vips_error_exit("rgba");
  VipsImage*full=vips_image_copy_memory(rgba);double s=300.0/VIPS_MAX(full->Xsize,full->Ysize);
  for(int r=0;r<2;r++){double t=cpu();VipsImage*R=reference(full,s);double tr=cpu()-t;t=cpu();VipsImage*O=opaque(full,s);double to=cpu()-t;
   VipsImage*d,*m,*nz;double lo,hi,mean,cnt;
   if(vips_subtract(R,O,&d,NULL)||vips_abs(d,&m,NULL)||vips_min(d,&lo,NULL)||vips_max(d,&hi,NULL)||vips_avg(m,&mean,NULL)||vips_moreeq_const1(m,&nz,1,NULL)||vips_avg(nz,&cnt,NULL))vips_error_exit("cmp");
   printf("%s %dx%d -> %dx%d: reference %.3f s CPU, opaque float %.3f s; difference %g..%g, mean |d| %.6f, share of samples differing %.6f\n",argv[f],full->Xsize,full->Ysize,R->Xsize,R->Ysize,tr,to,lo,hi,mean,cnt/255.0);
   g_object_unref(R);g_object_unref(O);g_object_unref(d);g_object_unref(m);g_object_unref(nz);}
 }
 return 0;}
