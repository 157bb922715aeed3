#!/usr/bin/env bash
# GPU call (session 38), any Hopper card, ~5 min (293 s on an H100): build_sp.sh's partner-skip tune of the card's
# table (out/sp38h100 on an H100, out/sp38h200 on an H200) beside cuDNN (CUDA graphs: $OUT/sp.json, spw.json), the
# skipping kernels' numerics on random problems ($OUT/random.json), memcheck and racecheck at batch 2
# ($OUT/memcheck.txt, racecheck.txt), then each plan's second run while the call has time ($OUT/sp2.json,
# spw2.json: `table --agree` takes an entry only where both runs agree).
# carry: out/sp38h100.tgz (an H100) or out/sp38h200.tgz (an H200)
here="$(dirname "$0")"
source "$here/../lib.sh"
card
plans=out/sp38h100
if on_h200; then plans=out/sp38h200; fi
tar xzf "$plans.tgz" -C out
# One run of each plan, the checks, then the second runs while the call has time (a call that ends early keeps
# what it wrote).
T sp
tune_measure "$plans/tune38s" 150 sp.json
T spw
tune_measure "$plans/tune38w" 100 spw.json
numerics_and_sanitizers "$plans/rand38s" "$plans/san38s"
if (( SECONDS < 380 )); then
  T sp2
  tune_measure "$plans/tune38s" 100 sp2.json
  T spw2
  tune_measure "$plans/tune38w" 70 spw2.json
fi
T done
