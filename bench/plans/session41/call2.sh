#!/usr/bin/env bash
# GPU call (session 41), either card:  bash bench/plans/session41/call2.sh [H100_SCRIPT [ARGS]]   carry out/carry41 .whl
# out/carry41 holds the archives as .txz (unpack_archive takes them from out/): every H200 plan and bundle that
# session 40's Next lists (p26a p31 p33 p35ct_tune gpu33c grid38 sp38h200 bw40h200), st41h200 (build_st.sh h200),
# and the H100 plans and bundles of this session (st41h100, st41b, gpu41s, gpu41t).
# On an H200 (~320 s): session 38's call.sh (the pending H200 tunes: $OUT/a, sw, sw2, clip). Then, each its own call
# on the warm machine: session 36's call_h200_check.sh, session 38's call_grid.sh and call_sp.sh, session 40's
# call_bw.sh, this session's call_st.sh (each starting with `mv out/carry41/* out/`).
# On another card: H100_SCRIPT in this folder (default call_st.sh, the probe's stage sweep and the stage-depth tune
# of the H100 table, ~5 min; call_h100b.sh: the changed entry through IREE and stages 5 and 7, ~3 min;
# `../session35/call_h100_check.sh gpu41t`: both changed 256<-64 entries through IREE, bundle of 48f1be4, ~1 min).
here="$(dirname "$0")"
source "$here/../lib.sh"
mv out/carry41/* out/
if on_h200; then
  bash "$here/../session38/call.sh"
else
  bash "$here/${1:-call_st.sh}" "${@:2}"
fi
