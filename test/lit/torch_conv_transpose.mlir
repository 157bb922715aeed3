// torch's transposed conv (aten.convolution with transposed=true, output_padding 1: what conv_transpose2d and
// nn.ConvTranspose2d lower to), as IREE's torch input conversion takes it to the input phase: a
// linalg.conv_2d_nchw_fchw on dy inserted into zeros with strides [1, 1, 2, 2]; one gather swaps the filter's
// channels and reverses it in space; f16 products accumulate into an f32 zero fill and a truncf makes dx f16.
// The function takes both from the hal.tensor.imports as they are and replaces the truncated result.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: torch_conv_transpose.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: [iree-cutlass] offloaded dgrad N=2 H=10 W=10 C=8 K=16 R=3 S=3 stride=2x2 pad=1x1 f16 to iree_cutlass_dgrad_f16_strided_[[TILE:.*]]
// CHECK-LABEL: util.func public @main$async
// CHECK:         %[[DY:.+]] = hal.tensor.import {{.+}} -> tensor<2x16x5x5xf16>
// CHECK-NEXT:    %[[W:.+]] = hal.tensor.import {{.+}} -> tensor<16x8x3x3xf16>
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%[[DY]], %[[W]]) : (tensor<2x16x5x5xf16>, tensor<16x8x3x3xf16>) -> tensor<2x8x10x10xf16>
// CHECK-NEXT:    hal.tensor.barrier join(%[[DX]]
// The f32 conv, its truncation to f16, the filter gather and the zero padding are gone.
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     arith.truncf
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-SAME:    (%[[FDY:.+]]: tensor<2x16x5x5xf16>, %[[FW:.+]]: tensor<16x8x3x3xf16>) -> tensor<2x8x10x10xf16>
// CHECK:         %[[NPQK:.+]] = linalg.transpose ins(%[[FDY]] : tensor<2x16x5x5xf16>) outs(%{{.+}} : tensor<2x5x5x16xf16>) permutation = [0, 2, 3, 1]
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%[[FW]] : tensor<16x8x3x3xf16>) outs(%{{.+}} : tensor<16x3x3x8xf16>) permutation = [0, 2, 3, 1]
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 10 : i32
// CHECK-NEXT:    arith.constant 10 : i32
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
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x5x5x16xf16>, tensor<16x3x3x8xf16>) -> tensor<2x10x10x8xf16>
// CHECK:         %[[NCHW:.+]] = linalg.transpose ins(%[[NHWC]] : tensor<2x10x10x8xf16>) outs(%{{.+}} : tensor<2x8x10x10xf16>) permutation = [0, 3, 1, 2]
// CHECK-NEXT:    util.return %[[NCHW]] : tensor<2x8x10x10xf16>

module {
  util.func public @main$async(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.fence, %arg3: !hal.fence) -> !hal.buffer_view attributes {inlining_policy = #util.inline.never, iree.abi.model = "coarse-fences", iree.abi.stub} {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %0 = hal.tensor.import wait(%arg2) => %arg0 : !hal.buffer_view -> tensor<2x16x5x5xf16>
    %1 = hal.tensor.import wait(%arg2) => %arg1 : !hal.buffer_view -> tensor<16x8x3x3xf16>
    %2 = tensor.empty() : tensor<8x16x3x3xf16>
    %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<8x16x3x3xf16>) -> tensor<8x16x3x3xf16>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%3 : tensor<8x16x3x3xf16>) {
    ^bb0(%out: f16):
      %14 = linalg.index 0 : index
      %15 = linalg.index 1 : index
      %16 = linalg.index 2 : index
      %17 = linalg.index 3 : index
      %18 = arith.subi %c2, %16 : index
      %19 = arith.subi %c2, %17 : index
      %extracted = tensor.extract %1[%15, %14, %18, %19] : tensor<16x8x3x3xf16>
      linalg.yield %extracted : f16
    } -> tensor<8x16x3x3xf16>
    %5 = tensor.empty() : tensor<2x16x12x12xf16>
    %6 = linalg.fill ins(%cst : f16) outs(%5 : tensor<2x16x12x12xf16>) -> tensor<2x16x12x12xf16>
    %inserted_slice = tensor.insert_slice %0 into %6[0, 0, 1, 1] [2, 16, 5, 5] [1, 1, 2, 2] : tensor<2x16x5x5xf16> into tensor<2x16x12x12xf16>
    %7 = tensor.empty() : tensor<2x8x10x10xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
    %9 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%inserted_slice, %4 : tensor<2x16x12x12xf16>, tensor<8x16x3x3xf16>) outs(%8 : tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
    %10 = tensor.empty() : tensor<2x8x10x10xf16>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x8x10x10xf32>) outs(%10 : tensor<2x8x10x10xf16>) {
    ^bb0(%in: f32, %out: f16):
      %14 = arith.truncf %in : f32 to f16
      linalg.yield %14 : f16
    } -> tensor<2x8x10x10xf16>
    %12 = hal.tensor.barrier join(%11 : tensor<2x8x10x10xf16>) => %arg3 : !hal.fence
    %13 = hal.tensor.export %12 : tensor<2x8x10x10xf16> -> !hal.buffer_view
    util.return %13 : !hal.buffer_view
  }
  util.func public @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
    %0 = util.null : !hal.fence
    %c-1_i32 = arith.constant -1 : i32
    %c0 = arith.constant 0 : index
    %device_0 = hal.devices.get %c0 : !hal.device
    %fence = hal.fence.create device(%device_0 : !hal.device) flags("None") : !hal.fence
    %1 = util.call @main$async(%arg0, %arg1, %0, %fence) : (!hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
    %status = hal.fence.await until([%fence]) timeout_millis(%c-1_i32) flags("None") : i32
    util.return %1 : !hal.buffer_view
  }
}
