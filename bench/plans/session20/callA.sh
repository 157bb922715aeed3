#!/usr/bin/env bash
# GPU call A (session 20), batch 256, f16 and bf16, CUDA graphs:
# - the flat walk (`flat`, `_fl`): on the 1x1 layers, each shipped kernel and its flat twin, ping-pong 128x128
#   and a few cooperative kernels with and without it, beside cuDNN (out/flat20);
# - Nsight Compute on one layer (7x7 1x1 512<-2048, f16): our ping-pong 128x128 kernel (spatial boxes and flat) and CUTLASS's ping-pong
#   128x128 GEMM, same tile and schedule, to find where ours loses;
# - session 19's call B again, on an H200 this time: stock CUTLASS 3.x GEMMs and cuBLAS on the 1x1 unit-stride
#   layers beside cuDNN. ~450 s.
# Build first (here): bash bench/cutlass_gemm/build.sh; iree-cutlass-tune build --out out/flat20 --families sm90
#   --batches 256 --dtypes f16 bf16 --only _r1_s1_p --twins flat --candidates 128x128x64_s6_c1_pp_e1_wp
#   128x128x64_s5_c1_pp_e2_wp 128x128x64_s5_c1_pp_e2_fl 128x256x64_s4_c1_e2_fl 256x128x64_s3_c1_fl;
#   iree-cutlass-tune build --out out/ncu20 --families sm90 --batches 256 --dtypes f16
#   --only n256_h7_w7_c512_k2048_r1 --candidates "$NCU_OURS" "${NCU_OURS}_fl"
# carry: out/cutlass_gemm out/flat20 out/ncu20
source "$(dirname "$0")/../lib.sh"
NCU_OURS=iree_cutlass_dgrad_sm90_f16_128x128x64_s6_c1_pp_e1_wp
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis"
card
T flat
tune_measure out/flat20 210 tune.json
T ncu ours
timeout 100 ncu -k "regex:$NCU_OURS" --launch-count 2 $SECTIONS --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
  python3 -m iree_cutlass.tune measure --plan out/ncu20 --check-only --out /tmp/ncu_ours.json > $OUT/ncu_ours.txt 2>&1
tail -5 $OUT/ncu_ours.txt
T ncu cutlass
timeout 60 ncu -k regex:device_kernel --launch-count 1 $SECTIONS --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
  out/cutlass_gemm/pp_128x128_c1x1 pp_128x128_c1x1 12544 512 2048 > $OUT/ncu_cutlass.txt 2>&1
tail -5 $OUT/ncu_cutlass.txt
T gemm
timeout 150 python3 bench/cutlass_gemm/run.py --bins out/cutlass_gemm --batch 256 --out $OUT/gemm.json 2>&1 | tail -30
T done
