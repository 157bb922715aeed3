// JAX's dgrad of an f32 3x3 stride-2 conv: offloaded to a 3xTF32 kernel (f32 in and out, f32 accuracy).
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: f32_dgrad.mlir:{{[0-9]+}}:10: remark: [iree-cutlass] offloaded dgrad N=2 H=9 W=9 C=8 K=16 R=3 S=3 stride=2x2 pad=1x1 f32 to iree_cutlass_dgrad_f32_strided_[[TILE:.*]]_a4x4x4
// CHECK-LABEL: util.func public @main
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%arg0, %arg1) : (tensor<2x5x5x16xf32>, tensor<3x3x8x16xf32>) -> tensor<2x9x9x8xf32>
// CHECK-NEXT:    util.return %[[DX]]
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     tensor.insert_slice
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%arg1 : tensor<3x3x8x16xf32>) outs(%{{.+}} : tensor<16x3x3x8xf32>) permutation = [3, 0, 1, 2]
// CHECK:         hal.dispatch.extern "iree_cutlass_dgrad_f32_strided_[[TILE]]_a4x4x4"({{(%[a-z0-9_]+, )+}}%arg0, %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x5x5x16xf32>, tensor<16x3x3x8xf32>) -> tensor<2x9x9x8xf32>
// CHECK:         #hal.executable.object<{path = "{{.+}}/iree_cutlass_dgrad_f32_strided_[[TILE]]_a4x4x4-sm_90-{{[0-9a-f]+}}.fatbin"}>

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x5x5x16xf32>, %arg1: tensor<3x3x8x16xf32>) -> tensor<2x9x9x8xf32> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x3x8x16xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x8x16xf32>) {
    ^bb0(%out: f32):
      %9 = linalg.index 0 : index
      %10 = arith.subi %c2, %9 : index
      %11 = linalg.index 1 : index
      %12 = arith.subi %c2, %11 : index
      %13 = linalg.index 2 : index
      %14 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%10, %12, %13, %14] : tensor<3x3x8x16xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x3x8x16xf32>
    %2 = tensor.empty() : tensor<3x3x16x8xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<3x3x8x16xf32>) outs(%2 : tensor<3x3x16x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x3x16x8xf32>
    %4 = tensor.empty() : tensor<2x9x9x8xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x9x9x8xf32>) -> tensor<2x9x9x8xf32>
    %6 = tensor.empty() : tensor<2x11x11x16xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x11x11x16xf32>) -> tensor<2x11x11x16xf32>
    %inserted_slice = tensor.insert_slice %arg0 into %7[0, 1, 1, 0] [2, 5, 5, 16] [1, 2, 2, 1] : tensor<2x5x5x16xf32> into tensor<2x11x11x16xf32>
    %8 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %3 : tensor<2x11x11x16xf32>, tensor<3x3x16x8xf32>) outs(%5 : tensor<2x9x9x8xf32>) -> tensor<2x9x9x8xf32>
    util.return %8 : tensor<2x9x9x8xf32>
  }
}
