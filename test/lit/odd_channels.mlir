// An odd channel count has no CUTLASS dgrad kernel (cp.async moves 4, 8 or 16 bytes): the conv stays with IREE.
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-to=preprocessing %s 2>&1 | FileCheck %s
// CHECK: remark: [iree-cutlass] left to IREE: C=3 is odd: CUTLASS's cp.async loads need C to be a multiple of 2
// CHECK: [iree-cutlass] 1 conv(s) seen, 0 dgrad(s) offloaded
// CHECK-NOT: hal.dispatch.extern
// CHECK: linalg.conv_2d_nhwc_hwcf

module @jit_dgrad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x16xf16>, %arg1: tensor<3x3x3x16xf16>) -> (tensor<2x8x8x3xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x3x16xf16>
    %1 = stablehlo.convolution(%arg0, %0) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x16xf16>, tensor<3x3x3x16xf16>) -> tensor<2x8x8x3xf16>
    return %1 : tensor<2x8x8x3xf16>
  }
}

