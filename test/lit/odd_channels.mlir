// An odd 16-bit channel count (C=3, as an RGB input layer has) has no cp.async kernel (cp.async moves 4, 8 or 16
// bytes): at unit stride it runs on the 2-stage mainloop, which loads through registers, with alignment 1 for the
// filter and dx; at stride 2 it stays with IREE (CUTLASS's 2-stage strided iterator cannot load single elements).
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s --check-prefix=STRIDED
// STRIDED: remark: [iree-cutlass] left to IREE: C=3 is odd at stride 2x2: cp.async needs even 16-bit channels and CUTLASS's 2-stage strided dgrad cannot load single elements

// CHECK: odd_channels.mlir:{{[0-9]+}}:10: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=3 K=16 R=3 S=3 stride=1x1 pad=1x1 f16 to iree_cutlass_dgrad_f16_unity_[[TILE:.*]]_s2_a8x1x1
// CHECK-LABEL: util.func public @main
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%arg0, %arg1) : (tensor<2x8x8x16xf16>, tensor<3x3x3x16xf16>) -> tensor<2x8x8x3xf16>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// At stride 2 CUTLASS's 2-stage strided iterator cannot load single elements: that conv stays with IREE.
// CHECK-LABEL: util.func public @strided
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     util.call
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<3x3x3x16xf16>) outs(%{{.+}} : tensor<16x3x3x3xf16>) permutation = [3, 0, 1, 2]
// CHECK:         hal.dispatch.extern "iree_cutlass_dgrad_f16_unity_[[TILE]]_s2_a8x1x1"({{(%[a-z0-9_]+, )+}}%arg0, %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x8x8x16xf16>, tensor<16x3x3x3xf16>) -> tensor<2x8x8x3xf16>

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x3x16xf16>) -> tensor<2x8x8x3xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<3x3x3x16xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x3x16xf16>) {
    ^bb0(%out: f16):
      %7 = linalg.index 0 : index
      %8 = arith.subi %c2, %7 : index
      %9 = linalg.index 1 : index
      %10 = arith.subi %c2, %9 : index
      %11 = linalg.index 2 : index
      %12 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%8, %10, %11, %12] : tensor<3x3x3x16xf16>
      linalg.yield %extracted : f16
    } -> tensor<3x3x3x16xf16>
    %2 = tensor.empty() : tensor<3x3x16x3xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<3x3x3x16xf16>) outs(%2 : tensor<3x3x16x3xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<3x3x16x3xf16>
    %4 = tensor.empty() : tensor<2x8x8x3xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x8x8x3xf16>) -> tensor<2x8x8x3xf16>
    %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f16
    } : tensor<2x8x8x16xf16> to tensor<2x10x10x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x10x10x16xf16>, tensor<3x3x16x3xf16>) outs(%5 : tensor<2x8x8x3xf16>) -> tensor<2x8x8x3xf16>
    util.return %6 : tensor<2x8x8x3xf16>
  }

  util.func public @strided(%arg0: tensor<2x5x5x16xf16>, %arg1: tensor<3x3x3x16xf16>) -> tensor<2x9x9x3xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<3x3x3x16xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x3x16xf16>) {
    ^bb0(%out: f16):
      %9 = linalg.index 0 : index
      %10 = arith.subi %c2, %9 : index
      %11 = linalg.index 1 : index
      %12 = arith.subi %c2, %11 : index
      %13 = linalg.index 2 : index
      %14 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%10, %12, %13, %14] : tensor<3x3x3x16xf16>
      linalg.yield %extracted : f16
    } -> tensor<3x3x3x16xf16>
    %2 = tensor.empty() : tensor<3x3x16x3xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<3x3x3x16xf16>) outs(%2 : tensor<3x3x16x3xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<3x3x16x3xf16>
    %4 = tensor.empty() : tensor<2x9x9x3xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x9x9x3xf16>) -> tensor<2x9x9x3xf16>
    %6 = tensor.empty() : tensor<2x11x11x16xf16>
    %7 = linalg.fill ins(%cst : f16) outs(%6 : tensor<2x11x11x16xf16>) -> tensor<2x11x11x16xf16>
    %inserted_slice = tensor.insert_slice %arg0 into %7[0, 1, 1, 0] [2, 5, 5, 16] [1, 2, 2, 1] : tensor<2x5x5x16xf16> into tensor<2x11x11x16xf16>
    %8 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %3 : tensor<2x11x11x16xf16>, tensor<3x3x16x3xf16>) outs(%5 : tensor<2x9x9x3xf16>) -> tensor<2x9x9x3xf16>
    util.return %8 : tensor<2x9x9x3xf16>
  }
}
