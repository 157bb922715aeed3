# The memory-bound 1x1 layers (f16 at batch 256) that session 36 profiles and tunes: layer tags, and the parts of
# their problem keys after the batch (PROF_SHAPES; PROF_KEYS at batch 256), in one order.
PROF_TAGS=(s1_1x1_64_64_n256_f16 s1_1x1_256_64_n256_f16 s2_1x1_256_128_n256_f16 s2_1x1_512_128_n256_f16
  s2_1x1_256_512s2_n256_f16)
PROF_SHAPES=(_h56_w56_c64_k64_r1_ _h56_w56_c256_k64_r1_ _h56_w56_c256_k128_r1_s1_p56 _h28_w28_c512_k128_r1_
  _h56_w56_c256_k512_r1_s1_p28)
PROF_KEYS=("${PROF_SHAPES[@]/#/n256}")
