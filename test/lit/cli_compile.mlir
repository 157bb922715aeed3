// iree-cutlass-compile is iree-compile with --iree-plugin=cutlass; without the flag it is stock iree-compile.
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-to=preprocessing %s 2>&1 | FileCheck %s --check-prefix=PRE
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-to=flow %s 2>/dev/null | FileCheck %s --check-prefix=FLOW
// At the pass's own phase the output is the rewritten module, and compiling on from it gives a vmfb.
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-to=input %s -o %t.input.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=INPUT < %t.input.mlir
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --compile-from=input %t.input.mlir -o %t.from_input.vmfb
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 %s -o %t.vmfb --iree-cutlass-report=%t.json
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: iree-dump-module %t.vmfb | FileCheck %s --check-prefix=VMFB
// Stock IREE cannot generate code for sm_90 at all; the plugin builds its own dispatches for sm_89 instead.
// RUN: not iree-compile --iree-hal-target-device=cuda --iree-cuda-target=sm_90 %s -o %t.stock.vmfb 2>&1 | FileCheck %s --check-prefix=STOCK
// Without the plugin flag the output is byte-for-byte stock iree-compile's.
// RUN: iree-cutlass-compile --iree-hal-target-device=cuda --iree-cuda-target=sm_80 --compile-to=flow %s -o %t.ours.mlir
// RUN: iree-compile --iree-hal-target-device=cuda --iree-cuda-target=sm_80 --compile-to=flow %s -o %t.stock.mlir
// RUN: diff %t.ours.mlir %t.stock.mlir

// INPUT: hal.dispatch.extern "iree_cutlass_dgrad_sm90_f16_
// INPUT-NOT: linalg.conv_2d_nhwc_hwcf

// PRE: remark: [iree-cutlass] offloaded dgrad N=2 H=9 W=9 C=8 K=16 R=3 S=3 stride=2x2 pad=1x1 f16
// PRE: [iree-cutlass] 1 conv(s) seen, 1 dgrad(s) offloaded to CUTLASS for sm_90 (h200 tuning)
// On sm_90 the default is the Hopper kernel family.
// PRE: hal.dispatch.extern "iree_cutlass_dgrad_sm90_f16_
// PRE-NOT: linalg.conv_2d_nhwc_hwcf

// The whole dgrad is one extern dispatch: JAX's HWIO filter is already the kernel's RSCK, so IREE has no
// relayout to do, and no zero-fill or insert dispatch is left.
// FLOW-NOT: flow.executable private
// FLOW: hal.executable private @extern_dispatch
// FLOW-NOT: flow.executable private
// FLOW: flow.dispatch @extern_dispatch::@cuda_nvptx_fb::@iree_cutlass_dgrad_sm90_f16_
// FLOW-NOT: flow.dispatch

// REPORT: "arch": "sm_90"
// REPORT: "op": "linalg.conv_2d_nhwc_hwcf"
// REPORT: "kernel": "iree_cutlass_dgrad_sm90_f16_
// REPORT: "offloaded": true

// VMFB: iree_cutlass_dgrad_sm90_f16_

// STOCK: error: missing GPU target in #hal.executable.target

module @jit_dgrad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x5x5x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> (tensor<2x9x9x8xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x8x16xf16>
    %1 = stablehlo.convolution(%arg0, %0) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x5x5x16xf16>, tensor<3x3x8x16xf16>) -> tensor<2x9x9x8xf16>
    return %1 : tensor<2x9x9x8xf16>
  }
}

