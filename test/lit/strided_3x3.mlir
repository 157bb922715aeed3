// JAX's dgrad of a 3x3 stride-2 conv: filter reverse + transpose, dy inserted into zeros with strides [1, 2, 2, 1].
// RUN: iree-cutlass-opt %s --iree-cutlass-kernels=sm80 2>&1 | FileCheck %s

// CHECK: strided_3x3.mlir:{{[0-9]+}}:10: remark: [iree-cutlass] offloaded dgrad N=2 H=9 W=9 C=8 K=16 R=3 S=3 stride=2x2 pad=1x1 f16 to iree_cutlass_dgrad_f16_strided_[[TILE:.*]]
// CHECK: #pipeline_layout = #hal.pipeline.layout<constants = 13, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: util.func public @main
// CHECK-SAME:    (%[[DY:.+]]: tensor<2x5x5x16xf16>, %[[W:.+]]: tensor<3x3x8x16xf16>)
// CHECK-NEXT:    %[[DX:.+]] = util.call @iree_cutlass_dgrad_0(%[[DY]], %[[W]]) : (tensor<2x5x5x16xf16>, tensor<3x3x8x16xf16>) -> tensor<2x9x9x8xf16>
// CHECK-NEXT:    util.return %[[DX]]
// The reverse/transpose/fill/insert chain and the conv are gone.
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     tensor.insert_slice
// CHECK-NOT:     tensor.extract
// CHECK-LABEL: util.func private @iree_cutlass_dgrad_0
// CHECK-SAME:    (%[[FDY:.+]]: tensor<2x5x5x16xf16>, %[[FW:.+]]: tensor<3x3x8x16xf16>) -> tensor<2x9x9x8xf16>
// The forward filter R,S,C,K becomes K,R,S,C by a plain permutation.
// CHECK:         %[[KRSC:.+]] = linalg.transpose ins(%[[FW]] : tensor<3x3x8x16xf16>) outs(%{{.+}} : tensor<16x3x3x8xf16>) permutation = [3, 0, 1, 2]
// Push constants in ABI order: N H W C K R S P Q pad_h pad_w stride_h stride_w.
// CHECK-NEXT:    arith.constant 2 : i32
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
// CHECK-NEXT:    hal.dispatch.extern "iree_cutlass_dgrad_f16_strided_[[TILE]]"({{(%[a-z0-9_]+, )+}}%[[FDY]], %[[KRSC]])
// CHECK-SAME:      : ({{(i32, )+}}tensor<2x5x5x16xf16>, tensor<16x3x3x8xf16>) -> tensor<2x9x9x8xf16>
// CHECK-SAME:      count(%{{.+}}: !hal.device) -> (index, index, index)
// CHECK:           hal.return %{{.+}}, %{{.+}}, %{{.+}} : index, index, index
// CHECK-NEXT:    } layout(#pipeline_layout) objects({
// CHECK-NEXT:      #executable_target_cuda_nvptx_fb ordinal(0) = [#hal.executable.object<{path = "{{.+}}/iree_cutlass_dgrad_f16_strided_[[TILE]]-sm_90-{{[0-9a-f]+}}.fatbin"}>]
// CHECK-NEXT:    }) <workgroup_size = [{{[0-9]+}} : index, 1 : index, 1 : index], workgroup_local_memory = {{[0-9]+}}>

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