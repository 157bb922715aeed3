// JAX's 1x1 stride-1 dgrad (direct_1x1.mlir) on CUTLASS's own Hopper GEMM kernels (--iree-cutlass-kernels=
// sm90_gemm): dx[128, 16] = dy[128, 32] x w[16, 32]^T. The kernel is built for this GEMM's extents (their Params
// are made at build time), which it receives as its 3 push constants and checks; the filter binding is the forward
// filter as it comes (RSCK), and a second result is the workspace of one Params slot per CTA (1 CTA: 1792 + 128).
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm90_gemm 2>&1 | FileCheck %s
// IREE compiles the dispatch into a module for sm_90 (the fatbin embedded under the kernel's name).
// RUN: iree-cutlass-compile --iree-plugin=cutlass --iree-hal-target-device=cuda --iree-cuda-target=sm_90 --iree-cutlass-kernels=sm90_gemm %s -o %t.vmfb 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: iree-dump-module %t.vmfb | FileCheck %s --check-prefix=VMFB
// sm90_gemm kernels exist only for sm_90: on sm_80 the conv stays with IREE, with the reason.
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm90_gemm --iree-cuda-target=sm_80 2>&1 | FileCheck %s --check-prefix=AMPERE
// And only for plain GEMMs: the 3x3 stride-2 dgrad of sm90_strided_3x3.mlir stays with IREE.
// RUN: iree-cutlass-opt %S/sm90_strided_3x3.mlir --iree-cutlass-kernels=sm90_gemm 2>&1 | FileCheck %s --check-prefix=STRIDED

// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=8 W=8 C=16 K=32 R=1 S=1 stride=1x1 pad=0x0 f16 to iree_cutlass_gemm_sm90_f16_128x128_pp_m128_n16_k32
// CHECK: #pipeline_layout = #hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-NOT:     linalg.transpose
// CHECK:         arith.constant 128 : i32
// CHECK-NEXT:    arith.constant 16 : i32
// CHECK-NEXT:    arith.constant 32 : i32
// CHECK-NEXT:    hal.dispatch.extern "iree_cutlass_gemm_sm90_f16_128x128_pp_m128_n16_k32"({{(%[a-z0-9_]+, )+}}%arg0, %arg1)
// CHECK-SAME:      -> (tensor<2x8x8x16xf16>, tensor<1920xi8>)
// CHECK:         hal.executable.object<{path = "{{.+}}/iree_cutlass_gemm_sm90_f16_128x128_pp_m128_n16_k32-sm_90a-{{[0-9a-f]+}}.fatbin"}>
// CHECK:         workgroup_size = [384 : index, 1 : index, 1 : index], workgroup_local_memory = 214544

// COMPILE: [iree-cutlass] 1 conv(s) seen, 1 dgrad(s) offloaded to CUTLASS for sm_90 (h200 tuning)
// VMFB: iree_cutlass_gemm_sm90_f16_128x1

// AMPERE: remark: [iree-cutlass] left to IREE: the sm90_gemm kernels run on sm_90 only, not sm_80
// AMPERE: linalg.conv_2d_nhwc_hwcf

// STRIDED: remark: [iree-cutlass] left to IREE: a CUTLASS GEMM kernel is for 1x1 unit-stride unpadded problems
// STRIDED: linalg.conv_2d_nhwc_hwcf

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x8x8x32xf16>, %arg1: tensor<1x1x16x32xf16>) -> tensor<2x8x8x16xf16> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<1x1x16x32xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x1x16x32xf16>) {
    ^bb0(%out: f16):
      %7 = linalg.index 2 : index
      %8 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%c0, %c0, %7, %8] : tensor<1x1x16x32xf16>
      linalg.yield %extracted : f16
    } -> tensor<1x1x16x32xf16>
    %2 = tensor.empty() : tensor<1x1x32x16xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<1x1x16x32xf16>) outs(%2 : tensor<1x1x32x16xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<1x1x32x16xf16>
    %4 = tensor.empty() : tensor<2x8x8x16xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
    %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %3 : tensor<2x8x8x32xf16>, tensor<1x1x32x16xf16>) outs(%5 : tensor<2x8x8x16xf16>) -> tensor<2x8x8x16xf16>
    util.return %6 : tensor<2x8x8x16xf16>
  }
}