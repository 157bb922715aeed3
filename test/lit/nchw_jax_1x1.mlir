// JAX's dgrads of NCHW/OIHW 1x1 convs. IREE writes every transpose that moves only unit dims as a
// tensor.collapse_shape + tensor.expand_shape pair: here the reversed 1x1 OIHW filter (both functions), and for
// H = W = 1 also dy NCHW -> NHWC and dx back. The pass follows those reshapes as the permutations they are.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK-DAG: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=16 K=32 R=1 S=1 stride=1x1 pad=0x0 f16
// CHECK-DAG: remark: [iree-cutlass] offloaded dgrad N=4 H=1 W=1 C=16 K=32 R=1 S=1 stride=1x1 pad=0x0 f16
// CHECK-LABEL: util.func public @main_8x8
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%arg0, %arg1) : (tensor<2x32x8x8xf16>, tensor<32x16x1x1xf16>) -> tensor<2x16x8x8xf16>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-LABEL: util.func public @main_1x1
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_1(%arg0, %arg1) : (tensor<4x32x1x1xf16>, tensor<32x16x1x1xf16>) -> tensor<4x16x1x1xf16>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-NOT:     tensor.collapse_shape
// CHECK-NOT:     tensor.expand_shape
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK:         %[[NPQK:.+]] = linalg.transpose ins(%arg0 : tensor<2x32x8x8xf16>) outs(%{{.+}} : tensor<2x8x8x32xf16>) permutation = [0, 2, 3, 1]
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<32x16x1x1xf16>) outs(%{{.+}} : tensor<32x1x1x16xf16>) permutation = [0, 2, 3, 1]
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
// CHECK-NEXT:    %[[NHWC:.+]] = hal.dispatch.extern "iree_cutlass_dgrad_f16_unity_{{.+}}"({{(%[a-z0-9_]+, )+}}%[[NPQK]], %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x8x8x32xf16>, tensor<32x1x1x16xf16>) -> tensor<2x8x8x16xf16>
// CHECK:         %[[NCHW:.+]] = linalg.transpose ins(%[[NHWC]] : tensor<2x8x8x16xf16>) outs(%{{.+}} : tensor<2x16x8x8xf16>) permutation = [0, 3, 1, 2]
// CHECK-NEXT:    util.return %[[NCHW]] : tensor<2x16x8x8xf16>
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_1
// CHECK:         %[[NPQK:.+]] = linalg.transpose ins(%arg0 : tensor<4x32x1x1xf16>) outs(%{{.+}} : tensor<4x1x1x32xf16>) permutation = [0, 2, 3, 1]
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<32x16x1x1xf16>) outs(%{{.+}} : tensor<32x1x1x16xf16>) permutation = [0, 2, 3, 1]
// CHECK-NEXT:    arith.constant 4 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 32 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    %[[NHWC:.+]] = hal.dispatch.extern "iree_cutlass_dgrad_f16_unity_{{.+}}"({{(%[a-z0-9_]+, )+}}%[[NPQK]], %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<4x1x1x32xf16>, tensor<32x1x1x16xf16>) -> tensor<4x1x1x16xf16>
// CHECK:         %[[NCHW:.+]] = linalg.transpose ins(%[[NHWC]] : tensor<4x1x1x16xf16>) outs(%{{.+}} : tensor<4x16x1x1xf16>) permutation = [0, 3, 1, 2]
// CHECK-NEXT:    util.return %[[NCHW]] : tensor<4x16x1x1xf16>

module @jit_dgrad {
  util.func public @main_8x8(%arg0: tensor<2x32x8x8xf16>, %arg1: tensor<32x16x1x1xf16>) -> tensor<2x16x8x8xf16> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<32x16x1x1xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<32x16x1x1xf16>) {
    ^bb0(%out: f16):
      %9 = linalg.index 0 : index
      %10 = linalg.index 1 : index
      %extracted = tensor.extract %arg1[%9, %10, %c0, %c0] : tensor<32x16x1x1xf16>
      linalg.yield %extracted : f16
    } -> tensor<32x16x1x1xf16>
    %2 = tensor.empty() : tensor<2x8x8x32xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x32x8x8xf16>) outs(%2 : tensor<2x8x8x32xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<2x8x8x32xf16>
    %collapsed = tensor.collapse_shape %1 [[0, 1, 2, 3]] : tensor<32x16x1x1xf16> into tensor<512xf16>
    %expanded = tensor.expand_shape %collapsed [[0, 1, 2, 3]] output_shape [1, 1, 32, 16] : tensor<512xf16> into tensor<1x1x32x16xf16>
    %4 = tensor.empty() : tensor<2x8x8x16xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%3, %expanded : tensor<2x8x8x32xf16>, tensor<1x1x32x16xf16>) outs(%5 : tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
    %7 = tensor.empty() : tensor<2x16x8x8xf16>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<2x8x8x16xf16>) outs(%7 : tensor<2x16x8x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<2x16x8x8xf16>
    util.return %8 : tensor<2x16x8x8xf16>
  }

  util.func public @main_1x1(%arg0: tensor<4x32x1x1xf16>, %arg1: tensor<32x16x1x1xf16>) -> tensor<4x16x1x1xf16> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<32x16x1x1xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<32x16x1x1xf16>) {
    ^bb0(%out: f16):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %extracted = tensor.extract %arg1[%5, %6, %c0, %c0] : tensor<32x16x1x1xf16>
      linalg.yield %extracted : f16
    } -> tensor<32x16x1x1xf16>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1, 2, 3]] : tensor<4x32x1x1xf16> into tensor<128xf16>
    %expanded = tensor.expand_shape %collapsed [[0, 1, 2, 3]] output_shape [4, 1, 1, 32] : tensor<128xf16> into tensor<4x1x1x32xf16>
    %collapsed_0 = tensor.collapse_shape %1 [[0, 1, 2, 3]] : tensor<32x16x1x1xf16> into tensor<512xf16>
    %expanded_1 = tensor.expand_shape %collapsed_0 [[0, 1, 2, 3]] output_shape [1, 1, 32, 16] : tensor<512xf16> into tensor<1x1x32x16xf16>
    %2 = tensor.empty() : tensor<4x1x1x16xf16>
    %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<4x1x1x16xf16>) -> tensor<4x1x1x16xf16>
    %4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%expanded, %expanded_1 : tensor<4x1x1x32xf16>, tensor<1x1x32x16xf16>) outs(%3 : tensor<4x1x1x16xf16>) -> tensor<4x1x1x16xf16>
    %collapsed_2 = tensor.collapse_shape %4 [[0, 1, 2, 3]] : tensor<4x1x1x16xf16> into tensor<64xf16>
    %expanded_3 = tensor.expand_shape %collapsed_2 [[0, 1, 2, 3]] output_shape [4, 16, 1, 1] : tensor<64xf16> into tensor<4x16x1x1xf16>
    util.return %expanded_3 : tensor<4x16x1x1xf16>
  }
}
