#!/usr/bin/env bash
# GPU call (session 35), H100 only, ~60 s: the ResNet-50 stage-4 3x3 layers (batch 8 and 256, unit stride and
# stride 2, f16 and bf16) and the CNN gradients compiled with the H100 table after its clipped-tap entries
# (out/gpu35c: prepare_gpu.py --card h100 --only s4_3x3_512_512), checked and timed beside cuDNN and XLA through
# gpu_check into $OUT/check; memcheck and racecheck over its kernels.
# carry: out/gpu35c.tgz .whl
here="$(dirname "$0")"
source "$here/../lib.sh"
card
on_h200 && { echo "an H200: run bench/plans/session35/call_h200.sh instead"; exit 1; }
tar xzf out/gpu35c.tgz -C out
mkdir -p "$OUT/check"
T check
OUT="$OUT/check" timeout 200 bash bench/gpu_check.sh --bundle out/gpu35c --bench --bench-dtypes f16 bf16 2>&1 | tail -4
sanitizer memcheck 40 memcheck.txt --bundle out/gpu35c
sanitizer racecheck 40 racecheck.txt --bundle out/gpu35c --only _sm90_
T done
