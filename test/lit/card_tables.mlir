// --iree-cutlass-card picks whose tuning table chooses the kernel. ResNet-50's stage-4 1x1 2048<-512 layer at batch
// 256 (JAX's form, as direct_1x1.mlir): the H200 table (the default) runs it on our transposed sm90 kernel, the H100
// table on CUTLASS's swapped Hopper GEMM, each the fastest measured on its card. Any other card is a usage error.
// RUN: iree-cutlass-opt %s 2>&1 | FileCheck %s --check-prefix=H200
// RUN: iree-cutlass-opt %s --iree-cutlass-card=h100 2>&1 | FileCheck %s --check-prefix=H100
// RUN: not iree-cutlass-opt %s --iree-cutlass-card=a100 2>&1 | FileCheck %s --check-prefix=BAD

// H200: remark: [iree-cutlass] offloaded dgrad N=256 H=7 W=7 C=2048 K=512 R=1 S=1 stride=1x1 pad=0x0 f16 to iree_cutlass_dgrad_sm90_f16_256x128x64_s3_c1_tr
// H200: hal.dispatch.extern "iree_cutlass_dgrad_sm90_f16_256x128x64_s3_c1_tr"

// H100: remark: [iree-cutlass] offloaded dgrad N=256 H=7 W=7 C=2048 K=512 R=1 S=1 stride=1x1 pad=0x0 f16 to iree_cutlass_gemm_sm90_f16_128x128_pp_c2_sw_m12544_n2048_k512
// H100: hal.dispatch.extern "iree_cutlass_gemm_sm90_f16_128x128_pp_c2_sw_m12544_n2048_k512"

// BAD: iree-cutlass-opt: error: --iree-cutlass-card=a100: expected one of h100, h200 (the cards with a tuning table)
// BAD-NOT: hal.dispatch.extern

module @jit_dgrad {
  util.func public @main(%arg0: tensor<256x7x7x512xf16>, %arg1: tensor<1x1x2048x512xf16>) -> tensor<256x7x7x2048xf16> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<1x1x2048x512xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x1x2048x512xf16>) {
    ^bb0(%out: f16):
      %7 = linalg.index 2 : index
      %8 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%c0, %c0, %7, %8] : tensor<1x1x2048x512xf16>
      linalg.yield %extracted : f16
    } -> tensor<1x1x2048x512xf16>
    %2 = tensor.empty() : tensor<1x1x512x2048xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<1x1x2048x512xf16>) outs(%2 : tensor<1x1x512x2048xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<1x1x512x2048xf16>
    %4 = tensor.empty() : tensor<256x7x7x2048xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<256x7x7x2048xf16>) -> tensor<256x7x7x2048xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %3 : tensor<256x7x7x512xf16>, tensor<1x1x512x2048xf16>) outs(%5 : tensor<256x7x7x2048xf16>) -> tensor<256x7x7x2048xf16>
    util.return %6 : tensor<256x7x7x2048xf16>
  }
}