#!/usr/bin/env bash
# Here (no GPU): the clipped-tap kernels (sm90 `clip_taps`, entry suffix `_ct`: a tile skips the filter taps that
# read only dy's padding for its box, and border boxes walk last) in three plans, out/p35ct.tgz:
#  tune35ct  every padded 3x3 ResNet-50 problem (batch 8 and 256, f16 and bf16): the H100 table's kernel, its
#            clipped twin, and the clipped twins of every 3x3 kernel of both tables that compute the problem;
#  rand35ct  those kernels on the first 60 random problems of seed 25 with padding and a filter of several taps,
#            beside each one's shipped kernel (numerics, check only);
#  san35ct   the padded 3x3 layers at batch 2 (every kernel of tune35ct, for memcheck and racecheck);
#  tune35ct_h200  tune35ct against the H200 table's kernels instead (out/p35ct_tune.tgz, for an H200).
source "$(dirname "$0")/../lib.sh"
set -e
mapfile -t NAMES < <(python3 - <<'PY'
import dataclasses, json
from iree_cutlass.plugin.kernels import config_from_dict
from iree_cutlass.plugin.select import TUNING_DIR
names = set()
for card in ("h100", "h200"):
    for key, entry in json.loads((TUNING_DIR / f"{card}.json").read_text())["entries"].items():
        config = config_from_dict(entry["config"])
        if "_r3_s3_" not in key or config.family != "sm90":
            continue
        for dtype in ("f16", "bf16"):
            try:
                names.add(dataclasses.replace(config, dtype=dtype, clip_taps=True).name)
            except ValueError:
                pass  # halo tiles and M clusters have no clipped twin
print("\n".join(sorted(names)))
PY
)
mapfile -t RANDOM_PADDED < <(random_padded 60)
echo "[build_clip] ${#NAMES[@]} clipped kernels, ${#RANDOM_PADDED[@]} random padded problems"
rm -rf out/tune35ct out/rand35ct out/san35ct out/tune35ct_h200
python3 -m iree_cutlass.tune build --out out/tune35ct --families sm90 --card h100 --batches 8 256 --dtypes f16 bf16 \
  --jobs 2 --only _r3_s3_ --twins clip_taps --candidates "${NAMES[@]}"
python3 -m iree_cutlass.tune build --out out/rand35ct --families sm90 --random 200 --seed 25 --channel-multiple 8 \
  --jobs 2 --only "${RANDOM_PADDED[@]}" --twins clip_taps --candidates "${NAMES[@]}"
python3 -m iree_cutlass.tune build --out out/san35ct --families sm90 --card h100 --batches 2 --dtypes f16 bf16 \
  --jobs 2 --only _r3_s3_ --twins clip_taps --candidates "${NAMES[@]}"
# The same tune against the H200 table's kernels, for an H200 (its carry takes this plan alone: call_h200.sh).
python3 -m iree_cutlass.tune build --out out/tune35ct_h200 --families sm90 --card h200 --batches 8 256 \
  --dtypes f16 bf16 --jobs 2 --only _r3_s3_ --twins clip_taps --candidates "${NAMES[@]}"
tar czf out/p35ct.tgz -C out tune35ct rand35ct san35ct
tar czf out/p35ct_tune.tgz -C out tune35ct_h200
echo "[build_clip] done at $(git rev-parse --short HEAD)"
