// JAX's dgrad of a 5x5 stride-3 pad-2 conv (an odd size: 7 = (3-1)*3 + 5 - 2*2 + 0).
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: strided_5x5_s3.mlir:{{[0-9]+}}:10: remark: [iree-cutlass] offloaded dgrad N=1 H=7 W=7 C=8 K=8 R=5 S=5 stride=3x3 pad=2x2 f16 to iree_cutlass_dgrad_f16_strided_[[TILE:.*]]
// CHECK-LABEL: util.func public @main
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%arg0, %arg1) : (tensor<1x3x3x8xf16>, tensor<5x5x8x8xf16>) -> tensor<1x7x7x8xf16>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     tensor.insert_slice
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<5x5x8x8xf16>) outs(%{{.+}} : tensor<8x5x5x8xf16>) permutation = [3, 0, 1, 2]
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 7 : i32
// CHECK-NEXT:    arith.constant 7 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 5 : i32
// CHECK-NEXT:    arith.constant 5 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    hal.dispatch.extern "iree_cutlass_dgrad_f16_strided_[[TILE]]"({{(%[a-z0-9_]+, )+}}%arg0, %[[KRSC]])
// CHECK-SAME:      -> tensor<1x7x7x8xf16>

module @jit_dgrad {
  util.func public @main(%arg0: tensor<1x3x3x8xf16>, %arg1: tensor<5x5x8x8xf16>) -> tensor<1x7x7x8xf16> {
    %c4 = arith.constant 4 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<5x5x8x8xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<5x5x8x8xf16>) {
    ^bb0(%out: f16):
      %9 = linalg.index 0 : index
      %10 = arith.subi %c4, %9 : index
      %11 = linalg.index 1 : index
      %12 = arith.subi %c4, %11 : index
      %13 = linalg.index 2 : index
      %14 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%10, %12, %13, %14] : tensor<5x5x8x8xf16>
      linalg.yield %extracted : f16
    } -> tensor<5x5x8x8xf16>
    %2 = tensor.empty() : tensor<5x5x8x8xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<5x5x8x8xf16>) outs(%2 : tensor<5x5x8x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<5x5x8x8xf16>
    %4 = tensor.empty() : tensor<1x7x7x8xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<1x7x7x8xf16>) -> tensor<1x7x7x8xf16>
    %6 = tensor.empty() : tensor<1x11x11x8xf16>
    %7 = linalg.fill ins(%cst : f16) outs(%6 : tensor<1x11x11x8xf16>) -> tensor<1x11x11x8xf16>
    %inserted_slice = tensor.insert_slice %arg0 into %7[0, 2, 2, 0] [1, 3, 3, 8] [1, 3, 3, 1] : tensor<1x3x3x8xf16> into tensor<1x11x11x8xf16>
    %8 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %3 : tensor<1x11x11x8xf16>, tensor<5x5x8x8xf16>) outs(%5 : tensor<1x7x7x8xf16>) -> tensor<1x7x7x8xf16>
    util.return %8 : tensor<1x7x7x8xf16>
  }
}