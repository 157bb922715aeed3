// JAX's dgrad of a 3x3 stride-1 conv: dy reaches the conv through tensor.pad with zeros.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: padded_3x3.mlir:{{[0-9]+}}:10: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=8 K=16 R=3 S=3 stride=1x1 pad=1x1 f16 to iree_cutlass_dgrad_f16_unity_[[TILE:.*]]
// CHECK-LABEL: util.func public @main
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%arg0, %arg1) : (tensor<2x8x8x16xf16>, tensor<3x3x8x16xf16>) -> tensor<2x8x8x8xf16>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     tensor.pad
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<3x3x8x16xf16>) outs(%{{.+}} : tensor<16x3x3x8xf16>) permutation = [3, 0, 1, 2]
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    hal.dispatch.extern "iree_cutlass_dgrad_f16_unity_[[TILE]]"({{(%[a-z0-9_]+, )+}}%arg0, %[[KRSC]])
// CHECK-SAME:      -> tensor<2x8x8x8xf16>

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x8x8x8xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<3x3x8x16xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x8x16xf16>) {
    ^bb0(%out: f16):
      %7 = linalg.index 0 : index
      %8 = arith.subi %c2, %7 : index
      %9 = linalg.index 1 : index
      %10 = arith.subi %c2, %9 : index
      %11 = linalg.index 2 : index
      %12 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%8, %10, %11, %12] : tensor<3x3x8x16xf16>
      linalg.yield %extracted : f16
    } -> tensor<3x3x8x16xf16>
    %2 = tensor.empty() : tensor<3x3x16x8xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<3x3x8x16xf16>) outs(%2 : tensor<3x3x16x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<3x3x16x8xf16>
    %4 = tensor.empty() : tensor<2x8x8x8xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x8x8x8xf16>) -> tensor<2x8x8x8xf16>
    %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f16
    } : tensor<2x8x8x16xf16> to tensor<2x10x10x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x10x10x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x8x8x8xf16>) -> tensor<2x8x8x8xf16>
    util.return %6 : tensor<2x8x8x8xf16>
  }
}