/* What libaom 3.6 costs to set up and tear down one encoder for a 300x188 still, one thread, speed 9 (bench/findings.md
 * section 24): CPU per aom_codec_enc_init + aom_codec_destroy, mean of 200.
 *
 *   cc -O2 -o /tmp/aom_init_cost bench/aom_init_cost.c -laom && /tmp/aom_init_cost
 */
#include <aom/aom_encoder.h>
#include <aom/aomcx.h>
#include <stdio.h>
#include <time.h>
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(){ aom_codec_iface_t*i=aom_codec_av1_cx(); aom_codec_enc_cfg_t cfg; 
 double t0=cpu(); int n=200;
 for(int k=0;k<n;k++){ aom_codec_enc_config_default(i,&cfg,AOM_USAGE_GOOD_QUALITY); cfg.g_w=300;cfg.g_h=188;cfg.g_threads=1;cfg.g_limit=1;cfg.g_lag_in_frames=0;
 aom_codec_ctx_t c; if(aom_codec_enc_init(&c,i,&cfg,0)){puts("init fail");return 1;} aom_codec_control(&c,AOME_SET_CPUUSED,9); aom_codec_destroy(&c);}
 printf("init+destroy %.3f ms\n",(cpu()-t0)*1000/n); }
