// Convs the pass must leave to IREE, each with a remark naming the reason; the module is otherwise unchanged.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK-DAG: remark: [iree-cutlass] left to IREE: filter is not the forward filter reversed in both spatial dimensions
// CHECK-DAG: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK-DAG: remark: [iree-cutlass] left to IREE: dy is padded with a value that is not a constant zero
// CHECK-DAG: remark: [iree-cutlass] left to IREE: conv accumulates into a tensor that is not zero-filled
// CHECK-DAG: remark: [iree-cutlass] left to IREE: dy is padded by more than the filter size minus one
// CHECK-DAG: remark: [iree-cutlass] left to IREE: conv has non-unit strides or dilations
// CHECK-DAG: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor (a forward or weight-gradient conv)
// CHECK-DAG: remark: [iree-cutlass] left to IREE: element type f64 has no CUTLASS dgrad kernel here (f16, bf16 and f32 only)
// Every conv is still there and nothing calls a kernel.
// CHECK-NOT: util.call
// CHECK-NOT: hal.dispatch.extern
// CHECK-COUNT-8: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: hal.dispatch.extern
module @refusals {
  // The filter is reversed in one spatial dimension only.
  util.func public @reversed_once(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x8x8x8xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<3x3x8x16xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x8x16xf16>) {
    ^bb0(%out: f16):
      %7 = linalg.index 0 : index
      %8 = arith.subi %c2, %7 : index
      %9 = linalg.index 1 : index
      %10 = arith.addi %c2, %9 : index
      %11 = linalg.index 2 : index
      %12 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%8, %9, %11, %12] : tensor<3x3x8x16xf16>
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

  // The gather reads w[1-r, ...]: not a reversal of a 3-wide dimension.
  util.func public @wrong_reverse_offset(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x8x8x8xf16> {
    %c2 = arith.constant 1 : index
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

  // dy is padded with ones.
  util.func public @nonzero_pad(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x8x8x8xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %one = arith.constant 1.000000e+00 : f16
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
      tensor.yield %one : f16
    } : tensor<2x8x8x16xf16> to tensor<2x10x10x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x10x10x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x8x8x8xf16>) -> tensor<2x8x8x8xf16>
    util.return %6 : tensor<2x8x8x8xf16>
  }

  // The conv accumulates into dy-shaped ones, not zeros.
  util.func public @accumulating(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x8x8x8xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %one = arith.constant 1.000000e+00 : f16
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
    %5 = linalg.fill ins(%one : f16) outs(%4 : tensor<2x8x8x8xf16>) -> tensor<2x8x8x8xf16>
    %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f16
    } : tensor<2x8x8x16xf16> to tensor<2x10x10x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x10x10x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x8x8x8xf16>) -> tensor<2x8x8x8xf16>
    util.return %6 : tensor<2x8x8x8xf16>
  }

  // dy is padded by 3 on each side for a 3-wide filter: the forward conv had padding -1.
  util.func public @negative_forward_pad(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x12x12x8xf16> {
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
    %4 = tensor.empty() : tensor<2x12x12x8xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x12x12x8xf16>) -> tensor<2x12x12x8xf16>
    %padded = tensor.pad %arg0 low[0, 3, 3, 0] high[0, 3, 3, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f16
    } : tensor<2x8x8x16xf16> to tensor<2x14x14x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x14x14x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x12x12x8xf16>) -> tensor<2x12x12x8xf16>
    util.return %6 : tensor<2x12x12x8xf16>
  }

  // A dilated conv is no dgrad form this pass knows.
  util.func public @dilated(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x6x6x8xf16> {
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
    %4 = tensor.empty() : tensor<2x6x6x8xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x6x6x8xf16>) -> tensor<2x6x6x8xf16>
    %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f16
    } : tensor<2x8x8x16xf16> to tensor<2x10x10x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x10x10x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x6x6x8xf16>) -> tensor<2x6x6x8xf16>
    util.return %6 : tensor<2x6x6x8xf16>
  }

  // A forward conv: the filter is a function argument, never reversed.
  util.func public @forward_conv(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x8x16xf16>, %fw: tensor<3x3x16x8xf16>) -> tensor<2x8x8x8xf16> {
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
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %fw : tensor<2x10x10x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x8x8x8xf16>) -> tensor<2x8x8x8xf16>
    util.return %6 : tensor<2x8x8x8xf16>
  }

  // A float64 dgrad: no kernel takes f64.
  util.func public @f64_dgrad(%arg0: tensor<2x8x8x16xf64>, %arg1: tensor<3x3x8x16xf64>) -> tensor<2x8x8x8xf64> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f64
    %0 = tensor.empty() : tensor<3x3x8x16xf64>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x8x16xf64>) {
    ^bb0(%out: f64):
      %7 = linalg.index 0 : index
      %8 = arith.subi %c2, %7 : index
      %9 = linalg.index 1 : index
      %10 = arith.subi %c2, %9 : index
      %11 = linalg.index 2 : index
      %12 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%8, %10, %11, %12] : tensor<3x3x8x16xf64>
      linalg.yield %extracted : f64
    } -> tensor<3x3x8x16xf64>
    %2 = tensor.empty() : tensor<3x3x16x8xf64>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<3x3x8x16xf64>) outs(%2 : tensor<3x3x16x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<3x3x16x8xf64>
    %4 = tensor.empty() : tensor<2x8x8x8xf64>
    %5 = linalg.fill ins(%cst : f64) outs(%4 : tensor<2x8x8x8xf64>) -> tensor<2x8x8x8xf64>
    %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f64
    } : tensor<2x8x8x16xf64> to tensor<2x10x10x16xf64>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %3 : tensor<2x10x10x16xf64>, tensor<3x3x16x8xf64>) outs(%5 : tensor<2x8x8x8xf64>) -> tensor<2x8x8x8xf64>
    util.return %6 : tensor<2x8x8x8xf64>
  }
}
