// JAX's dgrad of an NCHW/OIHW 3x3 stride-2 conv (jax.vjp of lax.conv_general_dilated with dimension numbers
// NCHW, OIHW, NCHW), as IREE takes it to the input phase: the conv is channels-last, dy goes NCHW -> NHWC and dx
// NHWC -> NCHW through permutation copies around it, the OIHW filter is reversed in dims 2, 3 then made HWIO.
// The call takes the frontend's NCHW dy and OIHW filter; the function transposes dy to NPQK, the filter to KRSC
// and the kernel's NHWC dx back to NCHW.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: nchw_jax_strided_3x3.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: [iree-cutlass] offloaded dgrad N=2 H=9 W=9 C=8 K=16 R=3 S=3 stride=2x2 pad=1x1 f16 to iree_cutlass_dgrad_f16_strided_[[TILE:.*]]
// CHECK-LABEL: util.func public @main
// CHECK-SAME:    (%[[DY:.+]]: tensor<2x16x5x5xf16>, %[[W:.+]]: tensor<16x8x3x3xf16>)
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%[[DY]], %[[W]]) : (tensor<2x16x5x5xf16>, tensor<16x8x3x3xf16>) -> tensor<2x8x9x9xf16>
// CHECK-NEXT:    util.return %[[DX]]
// The permutation copies, the reverse, the zero insertion and the conv are gone.
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     tensor.insert_slice
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-SAME:    (%[[FDY:.+]]: tensor<2x16x5x5xf16>, %[[FW:.+]]: tensor<16x8x3x3xf16>) -> tensor<2x8x9x9xf16>
// CHECK:         %[[NPQK:.+]] = linalg.transpose ins(%[[FDY]] : tensor<2x16x5x5xf16>) outs(%{{.+}} : tensor<2x5x5x16xf16>) permutation = [0, 2, 3, 1]
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%[[FW]] : tensor<16x8x3x3xf16>) outs(%{{.+}} : tensor<16x3x3x8xf16>) permutation = [0, 2, 3, 1]
// Push constants in ABI order: N H W C K R S P Q pad_h pad_w stride_h stride_w.
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 9 : i32
// CHECK-NEXT:    arith.constant 9 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 3 : i32
// CHECK-NEXT:    arith.constant 5 : i32
// CHECK-NEXT:    arith.constant 5 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    %[[NHWC:.+]] = hal.dispatch.extern "iree_cutlass_dgrad_f16_strided_[[TILE]]"({{(%[a-z0-9_]+, )+}}%[[NPQK]], %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x5x5x16xf16>, tensor<16x3x3x8xf16>) -> tensor<2x9x9x8xf16>
// CHECK:         %[[NCHW:.+]] = linalg.transpose ins(%[[NHWC]] : tensor<2x9x9x8xf16>) outs(%{{.+}} : tensor<2x8x9x9xf16>) permutation = [0, 3, 1, 2]
// CHECK-NEXT:    util.return %[[NCHW]] : tensor<2x8x9x9xf16>

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x16x5x5xf16>, %arg1: tensor<16x8x3x3xf16>) -> tensor<2x8x9x9xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<16x8x3x3xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<16x8x3x3xf16>) {
    ^bb0(%out: f16):
      %13 = linalg.index 0 : index
      %14 = linalg.index 1 : index
      %15 = linalg.index 2 : index
      %16 = arith.subi %c2, %15 : index
      %17 = linalg.index 3 : index
      %18 = arith.subi %c2, %17 : index
      %extracted = tensor.extract %arg1[%13, %14, %16, %18] : tensor<16x8x3x3xf16>
      linalg.yield %extracted : f16
    } -> tensor<16x8x3x3xf16>
    %2 = tensor.empty() : tensor<2x5x5x16xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x5x5xf16>) outs(%2 : tensor<2x5x5x16xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<2x5x5x16xf16>
    %4 = tensor.empty() : tensor<3x3x16x8xf16>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3, d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<16x8x3x3xf16>) outs(%4 : tensor<3x3x16x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<3x3x16x8xf16>
    %6 = tensor.empty() : tensor<2x9x9x8xf16>
    %7 = linalg.fill ins(%cst : f16) outs(%6 : tensor<2x9x9x8xf16>) -> tensor<2x9x9x8xf16>
    %8 = tensor.empty() : tensor<2x11x11x16xf16>
    %9 = linalg.fill ins(%cst : f16) outs(%8 : tensor<2x11x11x16xf16>) -> tensor<2x11x11x16xf16>
    %inserted_slice = tensor.insert_slice %3 into %9[0, 1, 1, 0] [2, 5, 5, 16] [1, 2, 2, 1] : tensor<2x5x5x16xf16> into tensor<2x11x11x16xf16>
    %10 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %5 : tensor<2x11x11x16xf16>, tensor<3x3x16x8xf16>) outs(%7 : tensor<2x9x9x8xf16>) -> tensor<2x9x9x8xf16>
    %11 = tensor.empty() : tensor<2x8x9x9xf16>
    %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<2x9x9x8xf16>) outs(%11 : tensor<2x8x9x9xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<2x8x9x9xf16>
    util.return %12 : tensor<2x8x9x9xf16>
  }
}
