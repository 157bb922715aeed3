#!/usr/bin/env bash
# GPU call (session 38), any Hopper card: the grid A/B plan of the card's table (build_grid.sh: out/grid38 on an
# H200, out/grid38h on another card) beside cuDNN (CUDA graphs), twice ($OUT/grid.json, $OUT/grid2.json), and the
# ratios of each grid to the kernel's own one per SM (bench/grid_ab.py --summary). Numerics: measure checks every
# launch, each grid included, against the float64 reference before timing it.
# carry: out/grid38.tgz out/grid38h.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
card
plan=grid38h
if on_h200; then plan=grid38; fi
unpack_archive "$plan"
tune_twice "out/$plan" 150 grid
python3 bench/grid_ab.py --summary "$OUT/grid.json" "$OUT/grid2.json"
T done
