#!/usr/bin/env bash
# Here (no GPU), before call A: the bundle of main for the whole check (~10-15 min on 2 cores; cnn_grad_bf16 fails
# to compile in IREE 3.13 itself, as in every session, hence `;`), the wgmma shift probe, and the 3x3 layers'
# shipped kernels with the dy_once, no_mma and no_epilogue variants.
source "$(dirname "$0")/../lib.sh"
python3 bench/prepare_gpu.py --out out/gpu --stock --amortized --variants donated pipelined; tar czf out/gpu.tgz -C out gpu
python3 bench/kernel_variants.py build --out out/var25 --variants dy_once no_mma no_epilogue --tags \
  s1_3x3_64_64_n256_f16 s1_3x3_64_64_n256_bf16 s2_3x3_128_128_n256_f16 s2_3x3_128_128s2_n256_f16 \
  s3_3x3_256_256_n256_f16 s3_3x3_256_256s2_n256_f16 s4_3x3_512_512_n256_f16 s4_3x3_512_512s2_n256_f16 || exit
nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O2 bench/wgmma_shift_probe.cu -o out/var25/wgmma_shift_probe || exit
tar czf out/v25.tgz -C out var25
