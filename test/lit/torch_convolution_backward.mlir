// torch's aten.convolution_backward (input gradient only, 3x3 stride 1 pad 1), as IREE's torch input conversion
// takes it to the input phase: a linalg.generic conv (NCHW, the filter read [in, out, r, s], f16 products
// accumulated in f32) on dy padded with tensor.pad; the filter is reversed by a gather that lists it as an unused
// input; a truncf makes dx f16.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: torch_convolution_backward.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=8 K=16 R=3 S=3 stride=1x1 pad=1x1 f16 to iree_cutlass_dgrad_f16_unity_[[TILE:.*]]
// CHECK-LABEL: util.func public @main$async
// CHECK:         %[[DY:.+]] = hal.tensor.import {{.+}} -> tensor<2x16x8x8xf16>
// CHECK-NEXT:    %[[W:.+]] = hal.tensor.import {{.+}} -> tensor<16x8x3x3xf16>
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%[[DY]], %[[W]]) : (tensor<2x16x8x8xf16>, tensor<16x8x3x3xf16>) -> tensor<2x8x8x8xf16>
// CHECK-NEXT:    hal.tensor.barrier join(%[[DX]]
// The f32 conv, its truncation to f16, the filter gather and the zero padding are gone.
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     arith.truncf
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-SAME:    (%[[FDY:.+]]: tensor<2x16x8x8xf16>, %[[FW:.+]]: tensor<16x8x3x3xf16>) -> tensor<2x8x8x8xf16>
// CHECK:         %[[NPQK:.+]] = linalg.transpose ins(%[[FDY]] : tensor<2x16x8x8xf16>) outs(%{{.+}} : tensor<2x8x8x16xf16>) permutation = [0, 2, 3, 1]
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%[[FW]] : tensor<16x8x3x3xf16>) outs(%{{.+}} : tensor<16x3x3x8xf16>) permutation = [0, 2, 3, 1]
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
// CHECK-NEXT:    %[[NHWC:.+]] = hal.dispatch.extern "iree_cutlass_dgrad_f16_unity_[[TILE]]"({{(%[a-z0-9_]+, )+}}%[[NPQK]], %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x8x8x16xf16>, tensor<16x3x3x8xf16>) -> tensor<2x8x8x8xf16>
// CHECK:         %[[NCHW:.+]] = linalg.transpose ins(%[[NHWC]] : tensor<2x8x8x8xf16>) outs(%{{.+}} : tensor<2x8x8x8xf16>) permutation = [0, 3, 1, 2]
// CHECK-NEXT:    util.return %[[NCHW]] : tensor<2x8x8x8xf16>

module {
  util.func public @main$async(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view, %arg3: !hal.fence, %arg4: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %0 = hal.tensor.import wait(%arg3) => %arg0 : !hal.buffer_view -> tensor<2x16x8x8xf16>
    %1 = hal.tensor.import wait(%arg3) => %arg2 : !hal.buffer_view -> tensor<16x8x3x3xf16>
    %2 = tensor.empty() : tensor<16x8x3x3xf16>
    %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<16x8x3x3xf16>) -> tensor<16x8x3x3xf16>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<16x8x3x3xf16>) outs(%3 : tensor<16x8x3x3xf16>) {
    ^bb0(%in: f16, %out: f16):
      %12 = linalg.index 0 : index
      %13 = linalg.index 1 : index
      %14 = linalg.index 2 : index
      %15 = linalg.index 3 : index
      %16 = arith.subi %c2, %14 : index
      %17 = arith.subi %c2, %15 : index
      %extracted = tensor.extract %1[%12, %13, %16, %17] : tensor<16x8x3x3xf16>
      linalg.yield %extracted : f16
    } -> tensor<16x8x3x3xf16>
    %padded = tensor.pad %0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg5: index, %arg6: index, %arg7: index, %arg8: index):
      tensor.yield %cst : f16
    } : tensor<2x16x8x8xf16> to tensor<2x16x10x10xf16>
    %5 = tensor.empty() : tensor<2x8x8x8xf32>
    %6 = linalg.fill ins(%cst_0 : f32) outs(%5 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %4 : tensor<2x16x10x10xf16>, tensor<16x8x3x3xf16>) outs(%6 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f16, %in_1: f16, %out: f32):
      %12 = arith.extf %in : f16 to f32
      %13 = arith.extf %in_1 : f16 to f32
      %14 = arith.mulf %12, %13 : f32
      %15 = arith.addf %14, %out : f32
      linalg.yield %15 : f32
    } -> tensor<2x8x8x8xf32>
    %8 = tensor.empty() : tensor<2x8x8x8xf16>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<2x8x8x8xf32>) outs(%8 : tensor<2x8x8x8xf16>) {
    ^bb0(%in: f32, %out: f16):
      %12 = arith.truncf %in : f32 to f16
      linalg.yield %12 : f16
    } -> tensor<2x8x8x8xf16>
    %10 = hal.tensor.barrier join(%9 : tensor<2x8x8x8xf16>) => %arg4 : !hal.fence
    %11 = hal.tensor.export %10 : tensor<2x8x8x8xf16> -> !hal.buffer_view
    util.return %11 : !hal.buffer_view
  }
  util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
    %0 = util.null : !hal.fence
    %c-1_i32 = arith.constant -1 : i32
    %c0 = arith.constant 0 : index
    %device_0 = hal.devices.get %c0 : !hal.device
    %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
    %1 = util.call @main$async(%arg0, %arg1, %arg2, %0, %fence) : (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
    %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
    util.return %1 : !hal.buffer_view
  }
}
