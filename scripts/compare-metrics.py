#!/usr/bin/env python3
"""Compare two metrics.jsonl files image by image (matched by URL path, so runs on different ports match):
how many retained sizes and output sizes are identical, and how far each strategy's peak moved.

Usage: python3 scripts/compare-metrics.py RUN_A/metrics.jsonl RUN_B/metrics.jsonl
"""
import json, sys
def load(p): return {json.loads(l)['url'].split('/',3)[3]:json.loads(l) for l in open(p)}
a=load(sys.argv[1]); b=load(sys.argv[2])
# Records of images a sampled run did not measure ("measured": false) have no peaks: left out.
def complete(r): return r.get('measured', True) and all((r.get('strategies') or {}).get(k) for k in ('naive','renderer','thumbnail'))
keys=sorted(k for k in set(a)&set(b) if complete(a[k]) and complete(b[k])); print('images measured in both',len(keys), 'of', len(a), len(b))
for s in ('naive','renderer','thumbnail'):
    same_ret=sum(a[k]['strategies'][s]['retainedBytes']==b[k]['strategies'][s]['retainedBytes'] for k in keys)
    same_dims=sum((a[k]['strategies'][s]['outputWidth'],a[k]['strategies'][s]['outputHeight'])==(b[k]['strategies'][s]['outputWidth'],b[k]['strategies'][s]['outputHeight']) for k in keys)
    diffs=sorted(b[k]['strategies'][s]['peakBytes']-a[k]['strategies'][s]['peakBytes'] for k in keys)
    rel=sorted(abs(b[k]['strategies'][s]['peakBytes']-a[k]['strategies'][s]['peakBytes'])/max(1,a[k]['strategies'][s]['peakBytes']) for k in keys)
    tot_a=sum(a[k]['strategies'][s]['retainedBytes'] for k in keys); tot_b=sum(b[k]['strategies'][s]['retainedBytes'] for k in keys)
    print(f"{s}: retained identical {same_ret}, dims identical {same_dims}, total retained {tot_a/1e6:.1f} vs {tot_b/1e6:.1f} MB; peak b-a MB min {diffs[0]/1e6:.3f} median {diffs[len(diffs)//2]/1e6:.3f} max {diffs[-1]/1e6:.3f}; |rel| p50 {rel[len(rel)//2]*100:.2f}% p95 {rel[int(.95*len(rel))]*100:.2f}% max {rel[-1]*100:.2f}%")
