// gemm_bench's IREE-style launch (-DWRAPPED=1): the stock CUTLASS GEMM kernel of gemm_config.h launched as the
// sm90_gemm family launches it (plugin/sm90_gemm.cuh): Params built on the host with no driver (the generator's
// make_blob), then per CTA copied to a workspace slot, descriptors rebuilt with tensormap.replace, and the
// kernel's operator() run on that copy. Here the Params travel in a buffer; in the product they are constants of
// the kernel's source. A measurement tool, not product code. (Session 21's diagnostic modes, which took this
// launch apart, are in the history of this file at 950b596.)
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

// Variants of the family's prologue (session 21, WRAPPED_PROLOGUE in gemm_bench): where the family's launch lost
// 1.5-6 us against session 21's call H `device` mode. 1: the family's, then a __syncthreads before operator();
// 2: as 1 with the scratch at the start of shared memory and only the kernel's own shared memory launched;
// 3: call H's `device` sequence (copy all, __syncthreads, build, __threadfence, __syncthreads, acquire,
// __syncthreads), scratch at the start.
template <int kVariant>
__global__ void __launch_bounds__(GemmKernel::MaxThreadsPerBlock, GemmKernel::MinBlocksPerMultiprocessor)
prologue_variant(Element const* a, Element const* b, Element* d, unsigned char* workspace, DeviceBlob const* blob) {
  extern __shared__ char smem[];
  constexpr int kSlot = iree_cutlass_gemm::slot_bytes<GemmKernel>();
  void const* const operands[3] = {a, b, d};
  unsigned const cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned char* slot = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(workspace) + 127) & ~uintptr_t(127)) + size_t(cta) * kSlot;
  for (int at = int(threadIdx.x) * 16; at < kSlot; at += int(blockDim.x) * 16) {
    if (kVariant == 3 || !iree_cutlass_gemm::in_descriptor(at, blob->recipes, blob->recipe_count)) {
      *reinterpret_cast<uint4*>(slot + at) = *reinterpret_cast<uint4 const*>(blob->params + at);
    }
  }
  if (kVariant == 3) __syncthreads();
  int const warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  uintptr_t const base = kVariant == 1 ? reinterpret_cast<uintptr_t>(smem) + GemmKernel::SharedStorageSize
                                       : reinterpret_cast<uintptr_t>(smem);
  unsigned char* scratch = reinterpret_cast<unsigned char*>((base + 127) / 128 * 128) + warp * 128;
  if (warp < blob->recipe_count) {
    iree_cutlass_gemm::Recipe const& r = blob->recipes[warp];
    iree_cutlass_gemm::build_descriptor(r, operands[r.operand], scratch, slot + r.offset, lane);
  }
  if (kVariant == 3) __threadfence();
  __syncthreads();
  for (int i = 0; i < blob->recipe_count; ++i) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;"
                 :: "l"(reinterpret_cast<uint64_t>(slot + blob->recipes[i].offset)) : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;" ::: "memory");
  __syncthreads();
  GemmKernel op;
  op(*reinterpret_cast<typename GemmKernel::Params const*>(slot), smem);
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
