// Channels not divisible by 8 get kernels with narrower cp.async loads: C=12, K=20 take 4-element alignment.
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-to=preprocessing %s 2>&1 | FileCheck %s
// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=12 K=20 R=3 S=3 stride=2x2 pad=1x1 f16 to iree_cutlass_dgrad_f16_strided_{{.*}}_a4x4x4
// CHECK: hal.dispatch.extern "iree_cutlass_dgrad_f16_strided_{{.*}}_a4x4x4"

module @jit_dgrad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x4x20xf16>, %arg1: tensor<3x3x12x20xf16>) -> (tensor<2x8x8x12xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x12x20xf16>
    %1 = stablehlo.convolution(%arg0, %0) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x20xf16>, tensor<3x3x12x20xf16>) -> tensor<2x8x8x12xf16>
    return %1 : tensor<2x8x8x12xf16>
  }
}

