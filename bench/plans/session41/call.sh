#!/usr/bin/env bash
# GPU call (session 41), H100, ~8 min with the landing:  carry out/gpu41h.txz .whl
# - bench/store_path_probe.cu, built there: the memory path of the 1x1 256<-64 layer alone (dy boxes in by TMA, dx
#   boxes out by TMA stores or thread stores, no MMA or decode), beside cudaMemcpy ($OUT/store_path_probe.jsonl);
# - the whole check of main's H100 table (session 35's call_h100_check.sh on out/gpu41h, built at 90bfe86 after
#   session 40's kernel-header change): $OUT/check/gpu_check.json, memcheck.txt, racecheck.txt.
here="$(dirname "$0")"
source "$here/../lib.sh"
card
T probe
nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O2 bench/store_path_probe.cu -o /tmp/store_path_probe &&
  timeout 60 /tmp/store_path_probe > "$OUT/store_path_probe.jsonl"
cat "$OUT/store_path_probe.jsonl"
bash "$here/../session35/call_h100_check.sh" gpu41h
