// JAX's dgrad of a 1x1 stride-1 conv: dy feeds the conv directly; the reverse gathers at constant 0.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: direct_1x1.mlir:{{[0-9]+}}:10: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=16 K=32 R=1 S=1 stride=1x1 pad=0x0 f16 to iree_cutlass_dgrad_f16_unity_[[TILE:.*]]
// CHECK-LABEL: util.func public @main
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%arg0, %arg1) : (tensor<2x8x8x32xf16>, tensor<1x1x16x32xf16>) -> tensor<2x8x8x16xf16>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     tensor.extract
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<1x1x16x32xf16>) outs(%{{.+}} : tensor<32x1x1x16xf16>) permutation = [3, 0, 1, 2]
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 32 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    hal.dispatch.extern "iree_cutlass_dgrad_f16_unity_[[TILE]]"({{(%[a-z0-9_]+, )+}}%arg0, %[[KRSC]])
// CHECK-SAME:      -> tensor<2x8x8x16xf16>

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x8x8x32xf16>, %arg1: tensor<1x1x16x32xf16>) -> tensor<2x8x8x16xf16> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<1x1x16x32xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x1x16x32xf16>) {
    ^bb0(%out: f16):
      %7 = linalg.index 2 : index
      %8 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%c0, %c0, %7, %8] : tensor<1x1x16x32xf16>
      linalg.yield %extracted : f16
    } -> tensor<1x1x16x32xf16>
    %2 = tensor.empty() : tensor<1x1x32x16xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<1x1x16x32xf16>) outs(%2 : tensor<1x1x32x16xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<1x1x32x16xf16>
    %4 = tensor.empty() : tensor<2x8x8x16xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %3 : tensor<2x8x8x32xf16>, tensor<1x1x32x16xf16>) outs(%5 : tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
    util.return %6 : tensor<2x8x8x16xf16>
  }
}