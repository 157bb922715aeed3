#!/usr/bin/env bash
# GPU call (session 38), any Hopper card, ~5 min (293 s on an H100): build_sp.sh's partner-skip tune of the card's
# table (out/sp38h100 on an H100, out/sp38h200 on an H200) beside cuDNN (CUDA graphs: $OUT/sp.json, spw.json), the
# skipping kernels' numerics on random problems ($OUT/random.json), memcheck and racecheck at batch 2
# ($OUT/memcheck.txt, racecheck.txt), then each plan's second run while the call has time ($OUT/sp2.json,
# spw2.json: `table --agree` takes an entry only where both runs agree).
# carry: out/sp38h100.tgz (an H100) or out/sp38h200.tgz (an H200)
here="$(dirname "$0")"
source "$here/../lib.sh"
plans=out/sp38h100
if on_h200; then plans=out/sp38h200; fi
twin_call "$plans" rand38s san38s 380 sp:tune38s:150:100 spw:tune38w:100:70
