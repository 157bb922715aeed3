// The same JAX 3x3 stride-2 dgrad as strided_3x3.mlir, on the Hopper kernels: the forward filter is already
// RSCK (HWIO), so no transpose; the extern gets 35 constants and a second, scratch result for the TMA
// descriptors each CTA builds (4 bindings).
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm90 2>&1 | FileCheck %s
// A channel count the TMA rows cannot take stays with IREE when only sm90 kernels are allowed.
// RUN: sed -e 's/x8xf16/x12xf16/g' -e 's/3x3x8x16/3x3x12x16/g' %s | iree-cutlass-opt - --iree-cutlass-kernels=sm90 2>&1 | FileCheck %s --check-prefix=NARROW
// sm90 kernels exist only for sm_90: on sm_80 they are never chosen.
// RUN: iree-cutlass-opt %s --iree-cuda-target=sm_80 2>&1 | FileCheck %s --check-prefix=AMPERE

// CHECK: remark: [iree-cutlass] offloaded dgrad N=2 H=9 W=9 C=8 K=16 R=3 S=3 stride=2x2 pad=1x1 f16 to iree_cutlass_dgrad_sm90_f16_[[TILE:[0-9a-z_]+]]
// CHECK: #pipeline_layout = #hal.pipeline.layout<constants = 35, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-SAME:    (%[[FDY:.+]]: tensor<2x5x5x16xf16>, %[[FW:.+]]: tensor<3x3x8x16xf16>) -> tensor<2x9x9x8xf16>
// CHECK-NOT:     linalg.transpose
// Push constants: N H W C K R S P Q pad_h pad_w stride_h stride_w, then the spatial box (n, h, w: 128 rows
// of one output phase: 2 images x 8 x 8 covers a 5x5 phase), the number of descriptor slots (CTAs), then the
// walk's divisors as (value, multiplier, shift): 1 channel block, 4 phases, 1 box per phase column and row,
// strides 2 and 2 (2^31 prints as a negative i32).
// CHECK:         arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 9 : i32
// CHECK-NEXT:    arith.constant 9 : i32
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
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 8 : i32
// CHECK-NEXT:    arith.constant 4 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 4 : i32
// CHECK-NEXT:    arith.constant -2147483648 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 1 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant -2147483648 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    arith.constant 2 : i32
// CHECK-NEXT:    arith.constant -2147483648 : i32
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    %[[R:.+]]:2 = hal.dispatch.extern "iree_cutlass_dgrad_sm90_f16_[[TILE]]"({{(%[a-z0-9_-]+, )+}}%[[FDY]], %[[FW]])
// 4 CTAs (one per phase) x (2 + 4 phases) descriptors x 128 B + 128 B of alignment slack.
// CHECK-SAME:      -> (tensor<2x9x9x8xf16>, tensor<3200xi8>)
// CHECK:           hal.return %c4, %{{.+}}, %{{.+}} : index, index, index
// CHECK:         #hal.executable.object<{path = "{{.+}}/iree_cutlass_dgrad_sm90_f16_[[TILE]]-sm_90a-{{[0-9a-f]+}}.fatbin"}>
// CHECK-NEXT:    }) <workgroup_size = [384 : index, 1 : index, 1 : index], workgroup_local_memory = {{[0-9]+}}>
// CHECK-NEXT:    util.return %[[R]]#0 : tensor<2x9x9x8xf16>

// NARROW: remark: [iree-cutlass] left to IREE: C=12 is not a multiple of 8 (16-byte dx stores, TMA row strides)
// NARROW: linalg.conv_2d_nhwc_hwcf

// AMPERE: offloaded dgrad {{.*}} to iree_cutlass_dgrad_f16_strided_
// AMPERE-NOT: sm90

module @jit_dgrad {
  util.func public @main(%arg0: tensor<2x5x5x16xf16>, %arg1: tensor<3x3x8x16xf16>) -> tensor<2x9x9x8xf16> {
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f16
    %0 = tensor.empty() : tensor<3x3x8x16xf16>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<3x3x8x16xf16>) {
    ^bb0(%out: f16):
      %9 = linalg.index 0 : index
      %10 = arith.subi %c2, %9 : index
      %11 = linalg.index 1 : index
      %12 = arith.subi %c2, %11 : index
      %13 = linalg.index 2 : index
      %14 = linalg.index 3 : index
      %extracted = tensor.extract %arg1[%10, %12, %13, %14] : tensor<3x3x8x16xf16>
      linalg.yield %extracted : f16
    } -> tensor<3x3x8x16xf16>
    %2 = tensor.empty() : tensor<3x3x16x8xf16>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<3x3x8x16xf16>) outs(%2 : tensor<3x3x16x8xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<3x3x16x8xf16>
    %4 = tensor.empty() : tensor<2x9x9x8xf16>
    %5 = linalg.fill ins(%cst : f16) outs(%4 : tensor<2x9x9x8xf16>) -> tensor<2x9x9x8xf16>
    %6 = tensor.empty() : tensor<2x11x11x16xf16>
    %7 = linalg.fill ins(%cst : f16) outs(%6 : tensor<2x11x11x16xf16>) -> tensor<2x11x11x16xf16>
    %inserted_slice = tensor.insert_slice %arg0 into %7[0, 1, 1, 0] [2, 5, 5, 16] [1, 2, 2, 1] : tensor<2x5x5x16xf16> into tensor<2x11x11x16xf16>
    %8 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %3 : tensor<2x11x11x16xf16>, tensor<3x3x16x8xf16>) outs(%5 : tensor<2x9x9x8xf16>) -> tensor<2x9x9x8xf16>
    util.return %8 : tensor<2x9x9x8xf16>
  }
}
