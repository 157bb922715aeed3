#!/usr/bin/env bash
# GPU call C (prepared in session 16, not run: its device time ran out): the decode ahead as a variant of the
# shipped kernels (kernel_variants `decode_ahead`: long cooperative tiles of a lone CTA only; `decode_ahead_all`:
# every kernel, about b28f7cc) beside the shipped tile loop, on every f16 batch-256 layer's shipped kernel, four
# bf16 ones and two batch-8 ones, measured twice over. ~120 s. Build first (here):
#   python3 bench/kernel_variants.py build --out out/var16b --tags <the 22 f16 batch-256 tags> \
#     s1_1x1_256_64_n256_bf16 s2_3x3_128_128s2_n256_bf16 s4_3x3_512_512_n256_bf16 s2_1x1_256_128_n256_bf16 \
#     s4_3x3_512_512_n8_f16 s3_1x1_1024_256_n8_f16 --variants decode_ahead decode_ahead_all --jobs 2
# carry: out/var16b
set -uo pipefail
cd "$(dirname "$0")/../../.."
T() { echo "=== $(date +%T) $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
for run in 1 2; do
  T "decode ahead, run $run"
  timeout 150 python3 bench/kernel_variants.py measure --plan out/var16b --out $OUT/decode_ahead_$run.json 2>&1 | tail -2
done
T done
