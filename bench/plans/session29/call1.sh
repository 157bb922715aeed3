#!/usr/bin/env bash
# GPU call 1 (session 29), H200 only, ~480 s: session 28's call1.sh with both bundles in one archive (pack.sh), so
# the carry fits: the H200 tune of session 26's plan into $OUT/a, then the batch-256 whole checks of the candidate
# bundle (main's table with the ten entries session 26's H100 tune chose) into $OUT/cand and of main's bundle into
# $OUT/main. Each check writes its JSON after every case.
# carry: out/p26a.tgz out/gpu29.tgz .whl
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; exit 0; }
bash "$(dirname "$0")/../session27/call2.sh"
source "$(dirname "$0")/../lib.sh"
tar xzf out/gpu29.tgz -C out
checks_n256 cand:out/gpu27s main:out/gpu
T done
