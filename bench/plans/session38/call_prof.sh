#!/usr/bin/env bash
# GPU call (session 38), any Hopper card, ~40 s: Nsight Compute's memory sections on the two write-heavy 1x1 layers
# at 56x56 (f16, batch 256: 256<-64, 256<-128) that stay 1.05-1.09x cuDNN on the H100: the H100 table's kernels
# (session 36's out/prof36) and cuDNN's, into $OUT/prof/{ours,cudnn}.txt. Session 36 found the same DRAM bytes moved
# more slowly (69-73% of peak against 82%); these sections say where the stores go (L1 or TMA, L2 hit rates, DRAM
# read/write sectors) and how the warps stall.
# carry: out/prof36.tgz
here="$(dirname "$0")"
source "$here/../lib.sh"
source "$here/../session36/prof_layers.sh"
card
tar xzf out/prof36.tgz -C out
mkdir -p "$OUT/prof"
NCU="ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy"
NCU+=" --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats"
NCU+=" --section SchedulerStats --metrics dram__sectors_read.sum,dram__sectors_write.sum,lts__t_sectors_op_write.sum"
T ours
timeout 90 $NCU -k regex:iree_cutlass python3 bench/profile_kernels.py --plan out/prof36 --launches 1 \
  --pick "${PROF_KEYS[1]}=iree_cutlass_" "${PROF_KEYS[2]}=iree_cutlass_" > "$OUT/prof/ours.txt" 2>&1
grep -c "Section: Memory Workload" "$OUT/prof/ours.txt"
T cudnn
timeout 90 $NCU --profile-from-start off python3 bench/ncu_cudnn.py --layers "${PROF_TAGS[1]}" "${PROF_TAGS[2]}" \
  > "$OUT/prof/cudnn.txt" 2>&1
grep -c "Section: Memory Workload" "$OUT/prof/cudnn.txt"
T done
