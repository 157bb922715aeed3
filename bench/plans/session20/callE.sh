#!/usr/bin/env bash
# GPU call E (session 20): does L2 promotion separate CUTLASS's GEMM from ours? Stock CUTLASS ping-pong 128x128
# and cooperative 128x256 with CUTLASS's 128 B L2 promotion, none and 256 B (build_e.sh), on the four 1x1 layers'
# GEMMs where CUTLASS wins (M N K: 28x28 128<-512, 14x14 256<-1024, 7x7 512<-2048, 7x7 2048<-512), each binary
# run twice in turns; ncu's L2 bytes for ping-pong with and without promotion on 512<-2048; and which descriptor
# bits hold the promotion (tensormap_bits.py). ~60 s.
# carry: out/l2prom
source "$(dirname "$0")/../lib.sh"
card
SHAPES="200704 128 512 50176 256 1024 12544 512 2048 12544 2048 512"
T gemm
for round in 1 2; do
  for bin in pp_128x128_c1x1 pp_128x128_l2none pp_128x128_l2256 coop_128x256_c1x1 coop_128x256_l2none; do
    timeout 60 out/l2prom/$bin $bin $SHAPES | sed "s/^/round $round /" | tee -a $OUT/gemm.txt
  done
done
T ncu
for bin in pp_128x128_c1x1 pp_128x128_l2none; do
  timeout 40 ncu -k regex:device_kernel --launch-count 1 --metrics lts__t_bytes.sum,dram__bytes_read.sum,gpu__time_duration.sum \
    out/l2prom/$bin $bin 12544 512 2048 2>&1 | grep -E "lts__t_bytes|dram__bytes|duration" | sed "s/^/$bin /" | tee -a $OUT/ncu.txt
done
T bits
timeout 30 python3 bench/plans/session20/tensormap_bits.py 2>&1 | tee $OUT/tensormap_bits.txt
T done
