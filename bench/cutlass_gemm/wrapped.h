// gemm_bench's IREE-style launch (-DWRAPPED=1): the stock CUTLASS GEMM kernel of gemm_config.h launched as the
// sm90_gemm family launches it (plugin/sm90_gemm.cuh): Params built on the host with no driver (the generator's
// make_blob), then per CTA copied to a workspace slot, descriptors rebuilt with tensormap.replace, and the
// kernel's operator() run on that copy. Here the Params travel in a buffer; in the product they are constants of
// the kernel's source. A measurement tool, not product code. (Session 21's diagnostic modes, which took this
// launch apart, are in the history of this file at 950b596; its prologue variants, measured by
// bench/plans/session21/callC.sh, at f049ea0.)
#pragma once

#define IREE_CUTLASS_GEMM_GENERATOR
#include "../../plugin/sm90_gemm.cuh"

namespace wrapped {

// The Params and recipes as the CTAs read them.
struct DeviceBlob {
  alignas(128) unsigned char params[iree_cutlass_gemm::slot_bytes<GemmKernel>()];
  iree_cutlass_gemm::Recipe recipes[iree_cutlass_gemm::kMaxRecipes];
  int recipe_count;
};

__global__ void __launch_bounds__(GemmKernel::MaxThreadsPerBlock, GemmKernel::MinBlocksPerMultiprocessor)
kernel(Element const* a, Element const* b, Element* d, unsigned char* workspace, DeviceBlob const* blob) {
  void const* const operands[3] = {a, b, d};
  iree_cutlass_gemm::run<GemmKernel>(blob->params, blob->recipes, blob->recipe_count, operands, workspace);
}

// The blob of GEMM m x n x k on `sm_count` SMs and its launch grid, or the reason there is none.
inline char const* make_device_blob(int m, int n, int k, int sm_count, DeviceBlob& out, dim3& grid) {
  iree_cutlass_gemm::generator::Blob blob;
  if (char const* why = iree_cutlass_gemm::generator::make_blob<GemmKernel>(m, n, k, sm_count, blob)) return why;
  std::memcpy(out.params, blob.bytes.data(), blob.bytes.size());
  for (size_t i = 0; i < blob.recipes.size(); ++i) out.recipes[i] = blob.recipes[i];
  out.recipe_count = int(blob.recipes.size());
  grid = blob.grid;
  return nullptr;
}

}  // namespace wrapped
