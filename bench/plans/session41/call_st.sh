#!/usr/bin/env bash
# GPU call (session 41), any Hopper card, ~5 min:  carry out/st41h100.tgz (an H100) or out/st41h200.tgz (an H200)
# - bench/store_path_probe.cu again, built there: the memory path of 1x1 256<-64 alone with 2-8 dy boxes in flight
#   ($OUT/store_path_probe.jsonl);
# - build_st.sh's stage-depth tune of the card's table beside cuDNN (CUDA graphs: $OUT/st.json), the twins'
#   numerics on random problems ($OUT/random.json), memcheck and racecheck at batch 2, then the tune's second run
#   while the call has time ($OUT/st2.json: `table --agree` takes an entry only where both runs agree).
here="$(dirname "$0")"
source "$here/../lib.sh"
plans=out/st41h100
if on_h200; then plans=out/st41h200; fi
T probe
nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O2 bench/store_path_probe.cu -o /tmp/store_path_probe &&
  timeout 60 /tmp/store_path_probe > "$OUT/store_path_probe.jsonl"
cut -c1-150 "$OUT/store_path_probe.jsonl"
twin_call "$plans" rand41s san41s 330 st:tune41s:150:120
