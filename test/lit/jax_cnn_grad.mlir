// The gradient (jax.grad, weights and input) of a 4-conv ReLU CNN with one stride-2 conv, as JAX lowers it.
// Its 4 dgrads go to CUTLASS; its 4 forward convs and 4 weight-gradient convs stay with IREE.
// RUN: iree-compile --compile-to=input --iree-hal-target-device=cuda --iree-cuda-target=sm_80 %s -o %t.input.mlir
// RUN: iree-cutlass-opt %t.input.mlir 2>&1 | FileCheck %s
// RUN: iree-cutlass-opt %t.input.mlir 2>/dev/null | grep -c linalg.conv_2d_nhwc_hwcf | FileCheck %s --check-prefix=CONVS
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-to=flow %s 2>&1 | FileCheck %s --check-prefix=FLOW

// Forward convs (the filter is an argument) and weight gradients (the filter is a transposed activation).
// CHECK: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK: remark: [iree-cutlass] left to IREE: conv has non-unit strides or dilations
// CHECK: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=16 W=16 C=64 K=128 R=1 S=1 stride=1x1 pad=0x0 f16
// CHECK: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=16 W=16 C=64 K=64 R=3 S=3 stride=1x1 pad=1x1 f16
// CHECK: remark: [iree-cutlass] left to IREE: conv has non-unit strides or dilations
// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=32 W=32 C=32 K=64 R=3 S=3 stride=2x2 pad=1x1 f16
// CHECK: remark: [iree-cutlass] left to IREE: filter is not a spatially reversed tensor
// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=32 W=32 C=16 K=32 R=3 S=3 stride=1x1 pad=1x1 f16
// CHECK-COUNT-4: util.call @iree_cutlass_dgrad_
// CHECK-COUNT-4: hal.dispatch.extern "iree_cutlass_dgrad_sm90_f16_

// CONVS: {{^}}8{{$}}

// FLOW: [iree-cutlass] 12 conv(s) seen, 4 dgrad(s) offloaded to CUTLASS for sm_90 (h200 tuning)
// FLOW-COUNT-4: flow.dispatch @extern_dispatch{{.*}}::@iree_cutlass_dgrad_sm90_f16_
module @jit_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x16x32xf16>, %arg1: tensor<3x3x32x64xf16>, %arg2: tensor<3x3x64x64xf16>, %arg3: tensor<1x1x64x128xf16>, %arg4: tensor<2x32x32x16xf16>) -> (tensor<3x3x16x32xf16> {jax.result_info = "result[0][0]"}, tensor<3x3x32x64xf16> {jax.result_info = "result[0][1]"}, tensor<3x3x64x64xf16> {jax.result_info = "result[0][2]"}, tensor<1x1x64x128xf16> {jax.result_info = "result[0][3]"}, tensor<2x32x32x16xf16> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convolution(%arg4, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x32x16xf16>, tensor<3x3x16x32xf16>) -> tensor<2x32x32x32xf16>
    %1 = call @relu(%0) : (tensor<2x32x32x32xf16>) -> tensor<2x32x32x32xf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<2x32x32x32xf16>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x32x32x32xf16>, tensor<2x32x32x32xf16>) -> tensor<2x32x32x32xi1>
    %4 = stablehlo.convolution(%1, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x32x32xf16>, tensor<3x3x32x64xf16>) -> tensor<2x16x16x64xf16>
    %5 = call @relu_0(%4) : (tensor<2x16x16x64xf16>) -> tensor<2x16x16x64xf16>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f16>) -> tensor<2x16x16x64xf16>
    %7 = stablehlo.compare GT, %4, %6, FLOAT : (tensor<2x16x16x64xf16>, tensor<2x16x16x64xf16>) -> tensor<2x16x16x64xi1>
    %8 = stablehlo.convolution(%5, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x64xf16>, tensor<3x3x64x64xf16>) -> tensor<2x16x16x64xf16>
    %9 = call @relu_0(%8) : (tensor<2x16x16x64xf16>) -> tensor<2x16x16x64xf16>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f16>) -> tensor<2x16x16x64xf16>
    %11 = stablehlo.compare GT, %8, %10, FLOAT : (tensor<2x16x16x64xf16>, tensor<2x16x16x64xf16>) -> tensor<2x16x16x64xi1>
    %12 = stablehlo.convolution(%9, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x64xf16>, tensor<1x1x64x128xf16>) -> tensor<2x16x16x128xf16>
    %13 = call @relu_1(%12) : (tensor<2x16x16x128xf16>) -> tensor<2x16x16x128xf16>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f16>) -> tensor<2x16x16x128xf16>
    %15 = stablehlo.compare GT, %12, %14, FLOAT : (tensor<2x16x16x128xf16>, tensor<2x16x16x128xf16>) -> tensor<2x16x16x128xi1>
    %16 = stablehlo.convert %13 : (tensor<2x16x16x128xf16>) -> tensor<2x16x16x128xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x16x16x128xf32>
    %18 = stablehlo.multiply %17, %16 : tensor<2x16x16x128xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x16x16x128xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<2x16x16x128xf32>
    %21 = stablehlo.convert %20 : (tensor<2x16x16x128xf32>) -> tensor<2x16x16x128xf16>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %22 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f16>) -> tensor<2x16x16x128xf16>
    %23 = stablehlo.select %15, %21, %22 : tensor<2x16x16x128xi1>, tensor<2x16x16x128xf16>
    %24 = stablehlo.convolution(%9, %23) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x64xf16>, tensor<2x16x16x128xf16>) -> tensor<1x1x64x128xf16>
    %25 = stablehlo.reverse %arg3, dims = [0, 1] : tensor<1x1x64x128xf16>
    %26 = stablehlo.convolution(%23, %25) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x128xf16>, tensor<1x1x64x128xf16>) -> tensor<2x16x16x64xf16>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %27 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f16>) -> tensor<2x16x16x64xf16>
    %28 = stablehlo.select %11, %26, %27 : tensor<2x16x16x64xi1>, tensor<2x16x16x64xf16>
    %29 = stablehlo.convolution(%5, %28) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x64xf16>, tensor<2x16x16x64xf16>) -> tensor<3x3x64x64xf16>
    %30 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<3x3x64x64xf16>
    %31 = stablehlo.convolution(%28, %30) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x64xf16>, tensor<3x3x64x64xf16>) -> tensor<2x16x16x64xf16>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %32 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f16>) -> tensor<2x16x16x64xf16>
    %33 = stablehlo.select %7, %31, %32 : tensor<2x16x16x64xi1>, tensor<2x16x16x64xf16>
    %34 = stablehlo.convolution(%1, %33) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x32x32xf16>, tensor<2x16x16x64xf16>) -> tensor<3x3x32x64xf16>
    %35 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x32x64xf16>
    %36 = stablehlo.convolution(%33, %35) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x16x64xf16>, tensor<3x3x32x64xf16>) -> tensor<2x32x32x32xf16>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %37 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f16>) -> tensor<2x32x32x32xf16>
    %38 = stablehlo.select %3, %36, %37 : tensor<2x32x32x32xi1>, tensor<2x32x32x32xf16>
    %39 = stablehlo.convolution(%arg4, %38) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x32x16xf16>, tensor<2x32x32x32xf16>) -> tensor<3x3x16x32xf16>
    %40 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x3x16x32xf16>
    %41 = stablehlo.convolution(%38, %40) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x32x32xf16>, tensor<3x3x16x32xf16>) -> tensor<2x32x32x16xf16>
    return %39, %34, %29, %24, %41 : tensor<3x3x16x32xf16>, tensor<3x3x32x64xf16>, tensor<3x3x64x64xf16>, tensor<1x1x64x128xf16>, tensor<2x32x32x16xf16>
  }
  func.func private @relu(%arg0: tensor<2x32x32x32xf16>) -> tensor<2x32x32x32xf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<2x32x32x32xf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x32x32x32xf16>
    return %1 : tensor<2x32x32x32xf16>
  }
  func.func private @relu_0(%arg0: tensor<2x16x16x64xf16>) -> tensor<2x16x16x64xf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<2x16x16x64xf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x16x16x64xf16>
    return %1 : tensor<2x16x16x64xf16>
  }
  func.func private @relu_1(%arg0: tensor<2x16x16x128xf16>) -> tensor<2x16x16x128xf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<2x16x16x128xf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x16x16x128xf16>
    return %1 : tensor<2x16x16x128xf16>
  }
}

