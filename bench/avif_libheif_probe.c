/* AVIF through libheif's aom encoder directly, for bench/findings.md section 22 (an unscored probe, issue 37):
 * bytes and CPU (best of three, CLOCK_PROCESS_CPUTIME_ID) of one raw RGB bitmap at a quality, aom speed,
 * realtime flag and thread count; with no arguments, lists the encoder's parameters.
 *
 *   cc -O2 -o /tmp/avif_probe bench/avif_libheif_probe.c $(pkg-config --cflags --libs libheif)
 *   /tmp/avif_probe W H FILE.rgb QUALITY SPEED REALTIME THREADS [OUT.avif]   # THREADS 0: libheif's default
 *   REPS=300 TUNE=psnr /tmp/avif_probe ...   # more encodes in one process (for perf record), aom's tune (section 24)
 */
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec/1e9;}
static FILE*out;
static struct heif_error w(struct heif_context*c,const void*d,size_t s,void*u){(void)c;*(size_t*)u+=s;if(out)fwrite(d,1,s,out);struct heif_error e={heif_error_Ok,heif_suberror_Unspecified,""};return e;}
int main(int argc,char**argv){
  // argv: list  |  W H rawfile quality speed realtime threads
  struct heif_encoder*enc;struct heif_context*ctx=heif_context_alloc();
  if(heif_context_get_encoder_for_format(ctx,heif_compression_AV1,&enc).code){puts("no av1");return 1;}
  if(argc<2){const struct heif_encoder_parameter*const*p=heif_encoder_list_parameters(enc);for(;*p;p++)printf("%s\n",heif_encoder_parameter_get_name(*p));printf("%s\n",heif_encoder_get_name(enc));return 0;}
  int W=atoi(argv[1]),H=atoi(argv[2]);FILE*f=fopen(argv[3],"rb");unsigned char*rgb=malloc(W*H*3);fread(rgb,1,W*H*3,f);fclose(f);
  double best=1e9;size_t bytes=0;
  int reps=getenv("REPS")?atoi(getenv("REPS")):3;for(int rep=0;rep<reps;rep++){
    double t0=cpu();
    struct heif_context*c=heif_context_alloc();struct heif_encoder*e;heif_context_get_encoder_for_format(c,heif_compression_AV1,&e);
    heif_encoder_set_lossy_quality(e,atoi(argv[4]));
    heif_encoder_set_parameter_integer(e,"speed",atoi(argv[5]));
    if(atoi(argv[6])) heif_encoder_set_parameter_boolean(e,"realtime",1);
    if(atoi(argv[7])) heif_encoder_set_parameter_integer(e,"threads",atoi(argv[7]));
    heif_encoder_set_parameter_string(e,"chroma","420");if(getenv("TUNE"))heif_encoder_set_parameter_string(e,"tune",getenv("TUNE"));
    struct heif_image*img;heif_image_create(W,H,heif_colorspace_RGB,heif_chroma_interleaved_RGB,&img);
    heif_image_add_plane(img,heif_channel_interleaved,W,H,8);int stride;uint8_t*p=heif_image_get_plane(img,heif_channel_interleaved,&stride);
    for(int y=0;y<H;y++)memcpy(p+y*stride,rgb+y*W*3,W*3);
    struct heif_image_handle*h;struct heif_error err=heif_context_encode_image(c,img,e,NULL,&h);
    if(err.code){printf("err %s\n",err.message);return 1;}
    out=argc>8&&rep==0?fopen(argv[8],"wb"):NULL;
    struct heif_writer wr={1,w};size_t s=0;heif_context_write(c,&wr,&s);bytes=s;if(out)fclose(out);
    heif_image_handle_release(h);heif_image_release(img);heif_encoder_release(e);heif_context_free(c);
    double t=cpu()-t0;if(t<best)best=t;}
  printf("%zu %.2f\n",bytes,best*1000);return 0;}
