#!/usr/bin/env bash
# GPU call (session 36), any Hopper card, ~20 s: Nsight Compute's DRAM bytes, duration and throughput for the
# memory-bound batch-256 f16 1x1 layers (prof_layers.sh): the H100 table's kernels (build_prof.sh's out/prof36),
# cuDNN's kernels on the same layers, and a fill and a conversion as the card's write and read+write rates, into
# $OUT/prof/{ours,cudnn,copy}.txt. Why ours runs 2-7% behind cuDNN there: more bytes, or the same bytes slower.
# carry: out/prof36.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
source "$here/prof_layers.sh"
card
tar xzf out/prof36.tgz -C out
mkdir -p "$OUT/prof"
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
METRICS+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,launch__grid_size
NCU="ncu --clock-control none --metrics $METRICS"
picks=()
for key in "${PROF_KEYS[@]}"; do picks+=("$key=iree_cutlass_"); done
T ours
timeout 120 $NCU -k regex:iree_cutlass python3 bench/profile_kernels.py --plan out/prof36 --pick "${picks[@]}" \
  --launches 3 > "$OUT/prof/ours.txt" 2>&1
grep -cE "gpu__time_duration" "$OUT/prof/ours.txt"
T cudnn
timeout 150 $NCU --profile-from-start off python3 bench/ncu_cudnn.py --layers "${PROF_TAGS[@]}" \
  > "$OUT/prof/cudnn.txt" 2>&1
grep -cE "gpu__time_duration" "$OUT/prof/cudnn.txt"
T copy
# dx of the 256<-64 layer (411 MB) filled three times: the card's write rate; dy made in f32 and converted to f16
# (a kernel reading 205 MB and writing 103 MB): its read+write rate. (Tensor clones are device-to-device memcpys,
# which Nsight Compute does not profile as kernels: session 36's run profiled none.)
timeout 60 $NCU python3 -c "
import torch
dx = torch.empty(256 * 56 * 56 * 256, dtype=torch.float16, device='cuda')
dy = torch.randn(256 * 56 * 56 * 64, device='cuda').half()
for _ in range(3):
    dx.fill_(1.0)
torch.cuda.synchronize()
" > "$OUT/prof/copy.txt" 2>&1
grep -cE "gpu__time_duration" "$OUT/prof/copy.txt"
T done
