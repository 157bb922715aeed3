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
mapfile -t TWINS < <(python3 - "out/$out/tune41t" <<'PY'
import json, pathlib, sys
plan = json.loads((pathlib.Path(sys.argv[1]) / "plan.json").read_text())
print("\n".join(sorted({c["entry"] for p in plan["problems"] for c in p["candidates"]
                        if "_s5_" in c["entry"] or "_s7_" in c["entry"]})))
PY
)
echo "[build_st2] ${#TWINS[@]} new twins: ${TWINS[*]}"
python3 -m iree_cutlass.tune build --out "out/$out/rand41t" --card h100 --families sm90 --random 20 --seed 25 \
  --channel-multiple 8 --candidates "${TWINS[@]}" --configs-from "out/$out/tune41t/plan.json" --jobs 2
python3 -m iree_cutlass.tune build --out "out/$out/san41t" --card h100 --families sm90 --batches 2 \
  --dtypes f16 bf16 --only n2_h56_w56_c256_k64_r1_ --candidates "${TWINS[@]}" \
  --configs-from "out/$out/tune41t/plan.json" --jobs 2
tar cf - -C out "$out" | xz -9 -T2 > "out/$out.txz"
ls -la "out/$out.txz"
echo "[build_st2] done at $(git rev-parse --short HEAD)"
