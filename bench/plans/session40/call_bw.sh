#!/usr/bin/env bash
# GPU call (session 40), any Hopper card, ~5 min: build_bw.sh's box-walk tune of the card's table (out/bw40h100 on
# an H100, out/bw40h200 on an H200) beside cuDNN (CUDA graphs: $OUT/bw.json, bww.json), the box-walk kernels'
# numerics on random problems ($OUT/random.json), memcheck and racecheck at batch 2 ($OUT/memcheck.txt,
# racecheck.txt), then each tune's second run while the call has time ($OUT/bw2.json, bww2.json: `table --agree`
# takes an entry only where both runs agree).
# carry: out/bw40h100.tgz (an H100) or out/bw40h200.tgz (an H200)
here="$(dirname "$0")"
source "$here/../lib.sh"
card
plans=out/bw40h100
if on_h200; then plans=out/bw40h200; fi
tar xzf "$plans.tgz" -C out
T bw
tune_measure "$plans/tune40b" 150 bw.json
T bww
tune_measure "$plans/tune40w" 100 bww.json
numerics_and_sanitizers "$plans/rand40b" "$plans/san40b"
if (( SECONDS < 250 )); then
  T bw2
  tune_measure "$plans/tune40b" 100 bw2.json
  T bww2
  tune_measure "$plans/tune40w" 60 bww2.json
fi
T done
