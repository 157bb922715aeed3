#!/usr/bin/env bash
# GPU call (session 40), any Hopper card, ~5 min: build_bw.sh's box-walk tune of the card's table (out/bw40h100 on
# an H100, out/bw40h200 on an H200) beside cuDNN (CUDA graphs: $OUT/bw.json, bww.json), the box-walk kernels'
# numerics on random problems ($OUT/random.json), memcheck and racecheck at batch 2 ($OUT/memcheck.txt,
# racecheck.txt), then each tune's second run while the call has time ($OUT/bw2.json, bww2.json: `table --agree`
# takes an entry only where both runs agree).
# carry: out/bw40h100.tgz (an H100) or out/bw40h200.tgz (an H200)
here="$(dirname "$0")"
source "$here/../lib.sh"
plans=out/bw40h100
if on_h200; then plans=out/bw40h200; fi
twin_call "$plans" rand40b san40b 250 bw:tune40b:150:100 bww:tune40w:100:60
