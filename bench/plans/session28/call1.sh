#!/usr/bin/env bash
# GPU call 1 (session 28), H200 only, ~480 s: everything the table decision of the ping-pong transposed kernels needs
# in one call, whatever the H200 tune picks:
#   1. the H200 tune of session 26's plan into $OUT/a/tune.json (session 27's call2.sh, ~80 s);
#   2. the batch-256 whole check of the candidate bundle out/gpu27s (main's table with the ten entries session 26's
#      H100 tune chose; cases.json says dirty) into $OUT/cand/gpu_check.json (~190 s);
#   3. the batch-256 whole check of main's bundle out/gpu (caa8e80's, the committed table: its kernels compile to
#      main's SASS) into $OUT/main/gpu_check.json (~190 s): the first H200 whole check of the ping-pong halo table.
# The tune picks all ten: step 2 is the new table's measurement; none: step 3 is main's; some: both hold each
# layer's two kernels against cuDNN on the same card minutes apart, and the bundle of the committed table is checked
# next. Each check writes its JSON after every case, so a call cut short keeps what it measured.
# Build first (here): bench/plans/session26/build_a.sh, bench/plans/session27/build_candidate.sh, and
#   python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu
# carry: out/p26a.tgz out/gpu27s.tgz out/gpu.tgz .whl
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
bash "$(dirname "$0")/../session27/call2.sh"
source "$(dirname "$0")/../lib.sh"
tar xzf out/gpu27s.tgz -C out
tar xzf out/gpu.tgz -C out
checks_n256 cand:out/gpu27s main:out/gpu
T done
