// torch's aten.convolution_backward of a 1x1 stride-2 conv: the same linalg.generic conv on dy inserted into
// zeros with strides [1, 1, 2, 2], and no filter gather at all (reversing a 1x1 filter is the identity).
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: torch_convolution_backward_1x1.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: [iree-cutlass] offloaded dgrad N=2 H=15 W=15 C=16 K=32 R=1 S=1 stride=2x2 pad=0x0 f16 to iree_cutlass_dgrad_f16_strided_[[TILE:.*]]
// CHECK-LABEL: util.func public @main$async
// CHECK:         %[[DY:.+]] = hal.tensor.import {{.+}} -> tensor<2x32x8x8xf16>
// CHECK-NEXT:    %[[W:.+]] = hal.tensor.import {{.+}} -> tensor<32x16x1x1xf16>
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%[[DY]], %[[W]]) : (tensor<2x32x8x8xf16>, tensor<32x16x1x1xf16>) -> tensor<2x16x15x15xf16>
// CHECK-NEXT:    hal.tensor.barrier join(%[[DX]]
// The f32 conv, its truncation to f16, the filter gather and the zero padding are gone.
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     arith.truncf
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-SAME:    (%[[FDY:.+]]: tensor<2x32x8x8xf16>, %[[FW:.+]]: tensor<32x16x1x1xf16>) -> tensor<2x16x15x15xf16>
// CHECK:         %[[NPQK:.+]] = linalg.transpose ins(%[[FDY]] : tensor<2x32x8x8xf16>) outs(%{{.+}} : tensor<2x8x8x32xf16>) permutation = [0, 2, 3, 1]
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%[[FW]] : tensor<32x16x1x1xf16>) outs(%{{.+}} : tensor<32x1x1x16xf16>) permutation = [0, 2, 3, 1]
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 15 : i32
// CHECK-NEXT:    arith.constant 15 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 32 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    %[[NHWC:.+]] = hal.dispatch.extern "iree_cutlass_dgrad_f16_strided_[[TILE]]"({{(%[a-z0-9_]+, )+}}%[[NPQK]], %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x8x8x32xf16>, tensor<32x1x1x16xf16>) -> tensor<2x15x15x16xf16>
// CHECK:         %[[NCHW:.+]] = linalg.transpose ins(%[[NHWC]] : tensor<2x15x15x16xf16>) outs(%{{.+}} : tensor<2x16x15x15xf16>) permutation = [0, 3, 1, 2]
// CHECK-NEXT:    util.return %[[NCHW]] : tensor<2x16x15x15xf16>

module {
  util.func public @main$async(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view, %arg3: !hal.fence, %arg4: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = hal.tensor.import wait(%arg3) => %arg0 : !hal.buffer_view -> tensor<2x32x8x8xf16>
    %1 = hal.tensor.import wait(%arg3) => %arg2 : !hal.buffer_view -> tensor<32x16x1x1xf16>
    %2 = tensor.empty() : tensor<2x32x15x15xf16>
    %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<2x32x15x15xf16>) -> tensor<2x32x15x15xf16>
    %inserted_slice = tensor.insert_slice %0 into %3[0, 0, 0, 0] [2, 32, 8, 8] [1, 1, 2, 2] : tensor<2x32x8x8xf16> into tensor<2x32x15x15xf16>
    %4 = tensor.empty() : tensor<2x16x15x15xf32>
    %5 = linalg.fill ins(%cst_0 : f32) outs(%4 : tensor<2x16x15x15xf32>) -> tensor<2x16x15x15xf32>
    %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%inserted_slice, %1 : tensor<2x32x15x15xf16>, tensor<32x16x1x1xf16>) outs(%5 : tensor<2x16x15x15xf32>) {
    ^bb0(%in: f16, %in_1: f16, %out: f32):
      %11 = arith.extf %in : f16 to f32
      %12 = arith.extf %in_1 : f16 to f32
      %13 = arith.mulf %11, %12 : f32
      %14 = arith.addf %13, %out : f32
      linalg.yield %14 : f32
    } -> tensor<2x16x15x15xf32>
    %7 = tensor.empty() : tensor<2x16x15x15xf16>
    %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<2x16x15x15xf32>) outs(%7 : tensor<2x16x15x15xf16>) {
    ^bb0(%in: f32, %out: f16):
      %11 = arith.truncf %in : f32 to f16
      linalg.yield %11 : f16
    } -> tensor<2x16x15x15xf16>
    %9 = hal.tensor.barrier join(%8 : tensor<2x16x15x15xf16>) => %arg4 : !hal.fence
    %10 = hal.tensor.export %9 : tensor<2x16x15x15xf16> -> !hal.buffer_view
    util.return %10 : !hal.buffer_view
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
