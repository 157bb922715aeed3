#!/usr/bin/env bash
# Here (no GPU), ~3 min: the stage-depth tune's follow-up on the H100 (out/st41b.tgz). The first tune (build_st.sh)
# moved 1x1 256<-64 f16 from 8 stages to 6; this times the depths beside 6 (5 and 7) on the two 56x56 layers with
# 64-channel output tiles (256<-64, 256<-128), and for bf16 the f16 table's kernel (--cross-dtype), against each
# problem's H100-table kernel:
# - tune41t: those kernels, f16 and bf16, batch 256;
# - rand41t / san41t: the new twins on the first 20 random problems of seed 25 and at batch 2 (256<-64).
source "$(dirname "$0")/../lib.sh"
set -e
out=st41b
rm -rf "out/$out" && mkdir -p "out/$out"
python3 -m iree_cutlass.tune build --out "out/$out/tune41t" --card h100 --families sm90 sm90_gemm --batches 256 \
  --dtypes f16 bf16 --only n256_h56_w56_c256_k64_r1_ n256_h56_w56_c256_k128_r1_s1_p56 \
  --candidates no_candidate_but_the_shipped_kernel --twins stages=5 stages=7 --cross-dtype --jobs 2
# The new twins (5 and 7 stages), on the first 20 random problems and at batch 2 on 256<-64 (which every one computes).
TWIN_RANDOM=20 TWIN_SAN_ONLY=n2_h56_w56_c256_k64_r1_ twin_checks "out/$out" h100 '_s[57]_' rand41t san41t tune41t
tar cf - -C out "$out" | xz -9 -T2 > "out/$out.txz"
ls -la "out/$out.txz"
echo "[build_st2] done at $(git rev-parse --short HEAD)"
