#!/usr/bin/env bash
# GPU call G (session 21): call F's wrapped launch, debugged. The device-built descriptors of CTA 0 are compared byte
# by byte with the driver's encodes of the same arguments (stderr), and the launch is repeated with the driver's
# descriptors in the blob instead (WRAPPED_HOST_DESCRIPTORS=1): a wrong descriptor or a wrong launch. ~30 s.
# Build first (here): bash bench/plans/session20/build_f.sh
# carry: out/wrap20
source "$(dirname "$0")/../lib.sh"
card
SHAPES="200704 128 512 50176 256 1024 12544 512 2048 12544 2048 512"
T gemm
for round in 1 2; do
  timeout 40 out/wrap20/pp_128x128_c1x1 pp_128x128_c1x1 $SHAPES 2>&1 | sed "s/^/round $round /" | tee -a $OUT/gemm.txt
  timeout 40 out/wrap20/pp_128x128_wrapped pp_128x128_wrapped $SHAPES 2>&1 | sed "s/^/round $round /" \
    | tee -a $OUT/gemm.txt
  WRAPPED_HOST_DESCRIPTORS=1 timeout 40 out/wrap20/pp_128x128_wrapped pp_128x128_wrapped_hostdesc $SHAPES 2>&1 \
    | sed "s/^/round $round /" | tee -a $OUT/gemm.txt
done
T memcheck
timeout 30 compute-sanitizer --tool memcheck out/wrap20/pp_128x128_wrapped pp_128x128_wrapped 12544 512 2048 \
  > $OUT/memcheck.txt 2>&1; tail -3 $OUT/memcheck.txt
T done
