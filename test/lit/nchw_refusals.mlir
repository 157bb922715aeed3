// NCHW convs the pass must leave to IREE, each with a remark naming the reason; the module is otherwise unchanged.
// The first is real IR (jax.lax.conv_transpose NCHW/OIHW with transpose_kernel=False, Flax's ConvTranspose default:
// no reversed filter); the others are torch forms from IREE's torch input conversion, each changed in one fact.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK-DAG: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor (a forward or weight-gradient conv)
// CHECK-DAG: remark: [iree-cutlass] left to IREE: conv accumulates f16 in f32 and its result is not only truncated back
// CHECK-DAG: remark: [iree-cutlass] left to IREE: generic conv body is not a multiply-accumulate
// CHECK-DAG: remark: [iree-cutlass] left to IREE: conv accumulates f16 in f64 (the kernels accumulate in f32)
// CHECK-NOT: util.call
// CHECK-NOT: hal.dispatch.extern
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: arith.maximumf
// CHECK: arith.extf %{{.+}} : f16 to f64
// CHECK-NOT: hal.dispatch.extern
module @nchw_refusals {
  util.func public @jax_conv_transpose_unflipped(%arg0: tensor<2x16x5x5xf16>, %arg1: tensor<8x16x3x3xf16>) -> tensor<2x8x10x10xf16> {
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<2x5x5x16xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x16x5x5xf16>) outs(%0 : tensor<2x5x5x16xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<2x5x5x16xf16>
    %2 = tensor.empty() : tensor<3x3x16x8xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d2, d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<8x16x3x3xf16>) outs(%2 : tensor<3x3x16x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<3x3x16x8xf16>
    %4 = tensor.empty() : tensor<2x10x10x8xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x10x10x8xf16>) -> tensor<2x10x10x8xf16>
    %6 = tensor.empty() : tensor<2x12x12x16xf16>
    %7 = linalg.fill ins(%cst : f16) outs(%6 : tensor<2x12x12x16xf16>) -> tensor<2x12x12x16xf16>
    %inserted_slice = tensor.insert_slice %1 into %7[0, 2, 2, 0] [2, 5, 5, 16] [1, 2, 2, 1] : tensor<2x5x5x16xf16> into tensor<2x12x12x16xf16>
    %8 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %3 : tensor<2x12x12x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x10x10x8xf16>) -> tensor<2x10x10x8xf16>
    %9 = tensor.empty() : tensor<2x8x10x10xf16>
    %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<2x10x10x8xf16>) outs(%9 : tensor<2x8x10x10xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<2x8x10x10xf16>
    util.return %10 : tensor<2x8x10x10xf16>
  }

  // torch's transposed conv whose f32 conv result is also returned: the truncation is not its only use.
  util.func public @f32_result_also_used(%arg0: tensor<2x16x5x5xf16>, %arg1: tensor<16x8x3x3xf16>) -> (tensor<2x8x10x10xf16>, tensor<2x8x10x10xf32>) {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c2 = arith.constant 2 : index
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
      %extracted = tensor.extract %arg1[%15, %14, %18, %19] : tensor<16x8x3x3xf16>
      linalg.yield %extracted : f16
    } -> tensor<8x16x3x3xf16>
    %5 = tensor.empty() : tensor<2x16x12x12xf16>
    %6 = linalg.fill ins(%cst : f16) outs(%5 : tensor<2x16x12x12xf16>) -> tensor<2x16x12x12xf16>
    %inserted_slice = tensor.insert_slice %arg0 into %6[0, 0, 1, 1] [2, 16, 5, 5] [1, 1, 2, 2] : tensor<2x16x5x5xf16> into tensor<2x16x12x12xf16>
    %7 = tensor.empty() : tensor<2x8x10x10xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
    %9 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%inserted_slice, %4 : tensor<2x16x12x12xf16>, tensor<8x16x3x3xf16>) outs(%8 : tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32>
    %10 = tensor.empty() : tensor<2x8x10x10xf16>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x8x10x10xf32>) outs(%10 : tensor<2x8x10x10xf16>) {
    ^bb0(%in: f32, %out: f16):
      %14 = arith.truncf %in : f32 to f16
      linalg.yield %14 : f16
    } -> tensor<2x8x10x10xf16>
    util.return %11, %9 : tensor<2x8x10x10xf16>, tensor<2x8x10x10xf32>
  }

  // torch's convolution_backward generic conv with max in place of the accumulating add.
  util.func public @generic_conv_max(%arg0: tensor<2x16x8x8xf16>, %arg1: tensor<16x8x3x3xf16>) -> tensor<2x8x8x8xf16> {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c2 = arith.constant 2 : index
    %2 = tensor.empty() : tensor<16x8x3x3xf16>
    %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<16x8x3x3xf16>) -> tensor<16x8x3x3xf16>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x8x3x3xf16>) outs(%3 : tensor<16x8x3x3xf16>) {
    ^bb0(%in: f16, %out: f16):
      %12 = linalg.index 0 : index
      %13 = linalg.index 1 : index
      %14 = linalg.index 2 : index
      %15 = linalg.index 3 : index
      %16 = arith.subi %c2, %14 : index
      %17 = arith.subi %c2, %15 : index
      %extracted = tensor.extract %arg1[%12, %13, %16, %17] : tensor<16x8x3x3xf16>
      linalg.yield %extracted : f16
    } -> tensor<16x8x3x3xf16>
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
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
      %15 = arith.maximumf %14, %out : f32
      linalg.yield %15 : f32
    } -> tensor<2x8x8x8xf32>
    %8 = tensor.empty() : tensor<2x8x8x8xf16>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<2x8x8x8xf32>) outs(%8 : tensor<2x8x8x8xf16>) {
    ^bb0(%in: f32, %out: f16):
      %12 = arith.truncf %in : f32 to f16
      linalg.yield %12 : f16
    } -> tensor<2x8x8x8xf16>
    util.return %9 : tensor<2x8x8x8xf16>
  }

  // torch's convolution_backward generic conv accumulating in f64.
  util.func public @generic_conv_f64(%arg0: tensor<2x16x8x8xf16>, %arg1: tensor<16x8x3x3xf16>) -> tensor<2x8x8x8xf16> {
    %cst = arith.constant 0.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f64
    %c2 = arith.constant 2 : index
    %2 = tensor.empty() : tensor<16x8x3x3xf16>
    %3 = linalg.fill ins(%cst : f16) outs(%2 : tensor<16x8x3x3xf16>) -> tensor<16x8x3x3xf16>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x8x3x3xf16>) outs(%3 : tensor<16x8x3x3xf16>) {
    ^bb0(%in: f16, %out: f16):
      %12 = linalg.index 0 : index
      %13 = linalg.index 1 : index
      %14 = linalg.index 2 : index
      %15 = linalg.index 3 : index
      %16 = arith.subi %c2, %14 : index
      %17 = arith.subi %c2, %15 : index
      %extracted = tensor.extract %arg1[%12, %13, %16, %17] : tensor<16x8x3x3xf16>
      linalg.yield %extracted : f16
    } -> tensor<16x8x3x3xf16>
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg5: index, %arg6: index, %arg7: index, %arg8: index):
      tensor.yield %cst : f16
    } : tensor<2x16x8x8xf16> to tensor<2x16x10x10xf16>
    %5 = tensor.empty() : tensor<2x8x8x8xf64>
    %6 = linalg.fill ins(%cst_0 : f64) outs(%5 : tensor<2x8x8x8xf64>) -> tensor<2x8x8x8xf64>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %4 : tensor<2x16x10x10xf16>, tensor<16x8x3x3xf16>) outs(%6 : tensor<2x8x8x8xf64>) {
    ^bb0(%in: f16, %in_1: f16, %out: f64):
      %12 = arith.extf %in : f16 to f64
      %13 = arith.extf %in_1 : f16 to f64
      %14 = arith.mulf %12, %13 : f64
      %15 = arith.addf %14, %out : f64
      linalg.yield %15 : f64
    } -> tensor<2x8x8x8xf64>
    %8 = tensor.empty() : tensor<2x8x8x8xf16>
    %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<2x8x8x8xf64>) outs(%8 : tensor<2x8x8x8xf16>) {
    ^bb0(%in: f64, %out: f16):
      %12 = arith.truncf %in : f64 to f16
      linalg.yield %12 : f16
    } -> tensor<2x8x8x8xf16>
    util.return %9 : tensor<2x8x8x8xf16>
  }
}
