// Can a stock CUTLASS 3.x GEMM kernel run behind IREE's extern-dispatch ABI, which passes only buffer pointers and
// 32-bit push constants? Its Params (problem shape, scheduler divisors, TMA descriptors) are built on the host by
// `to_underlying_arguments`, which encodes the descriptors through the driver. This probe runs that on the host
// with no GPU and no driver: it links its own cuTensorMapEncodeTiled (CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL),
// which records each call's arguments and writes a zeroed descriptor. If it works, a kernel build can embed the
// Params bytes in the kernel source, and each CTA can copy them into its workspace slot and rebuild the recorded
// descriptors there with tensormap.replace (as our dgrad kernels build theirs), then run the kernel.
// Prints, as one JSON object: sizeof(Params), the offset of each recorded descriptor within it, each descriptor's
// encode arguments, the offsets of raw operand pointers in it, the launch grid and the shared-memory size. A
// measurement tool, not product code.
//   SRC=$(python3 -c "import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))")/source
//   nvcc -std=c++17 --expt-relaxed-constexpr -O1 -arch=sm_90a -I$SRC/include -I$SRC/tools/util/include \
//     -DTILE_M=128 -DTILE_N=128 -DPINGPONG=1 -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL -o params_probe params_probe.cu
//   ./params_probe M N K      (~30 s to build; runs anywhere)
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gemm_config.h"

// One cuTensorMapEncodeTiled call: where the descriptor went and what it was asked to encode.
struct EncodeCall {
  void const* desc;
  int format, rank, interleave, swizzle, promotion, oob_fill;
  unsigned long long address;
  unsigned long long dims[5], strides[4];
  unsigned box[5], element_strides[5];
};
static std::vector<EncodeCall> g_calls;
static constexpr unsigned long long kMarker = 0x1ee7c0de00000000ull;

extern "C" CUresult cuTensorMapEncodeTiled(CUtensorMap* tensor_map, CUtensorMapDataType format, cuuint32_t rank,
                                           void* address, cuuint64_t const* dims, cuuint64_t const* strides,
                                           cuuint32_t const* box, cuuint32_t const* element_strides,
                                           CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                           CUtensorMapL2promotion promotion, CUtensorMapFloatOOBfill oob_fill) {
  EncodeCall call{};
  call.desc = tensor_map;
  call.format = format;
  call.rank = int(rank);
  call.interleave = interleave;
  call.swizzle = swizzle;
  call.promotion = promotion;
  call.oob_fill = oob_fill;
  call.address = reinterpret_cast<unsigned long long>(address);
  for (cuuint32_t i = 0; i < rank && i < 5; ++i) {
    call.dims[i] = dims[i];
    call.box[i] = box[i];
    call.element_strides[i] = element_strides[i];
    if (i + 1 < rank) call.strides[i] = strides[i];
  }
  // A zeroed descriptor marked with its call's index, so the copy that lands in the Params can be found.
  std::memset(tensor_map, 0, sizeof(CUtensorMap));
  unsigned long long const marker = kMarker + g_calls.size();
  std::memcpy(tensor_map, &marker, sizeof(marker));
  g_calls.push_back(call);
  return CUDA_SUCCESS;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s M N K\n", argv[0]);
    return 2;
  }
  int const M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
  // Stand-in device addresses, distinct and 256-byte aligned, so each descriptor's operand can be told apart.
  auto* a = reinterpret_cast<Element*>(0x100000000ull);
  auto* b = reinterpret_cast<Element*>(0x200000000ull);
  auto* d = reinterpret_cast<Element*>(0x300000000ull);
  auto stride_a = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, make_shape(M, K, 1));
  auto stride_b = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, make_shape(N, K, 1));
  auto stride_d = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, make_shape(M, N, 1));
  cutlass::KernelHardwareInfo hw_info{0, 132, 0};  // the SM count of an H100/H200 SXM, given: no device query
  typename GemmKernel::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {M, N, K, 1},
                                      {a, stride_a, b, stride_b}, {{1.0f, 0.0f}, d, stride_d, d, stride_d},
                                      hw_info};
  if (GemmKernel::get_workspace_size(args) != 0) {
    fprintf(stderr, "params_probe: this configuration needs a workspace\n");
    return 1;
  }
  typename GemmKernel::Params params = GemmKernel::to_underlying_arguments(args, nullptr);
  dim3 const grid = GemmKernel::get_grid_shape(params);
  auto const* base = reinterpret_cast<unsigned char const*>(&params);
  printf("{\"config\": \"%dx%d c%dx%d %s\", \"m\": %d, \"n\": %d, \"k\": %d, \"params_bytes\": %zu, "
         "\"grid\": [%u, %u, %u], \"block\": %u, \"smem_bytes\": %d, \"descriptors\": [",
         TILE_M, TILE_N, CLUSTER_M, CLUSTER_N, PINGPONG ? "pingpong" : "cooperative", M, N, K,
         sizeof(params), grid.x, grid.y, grid.z, unsigned(GemmKernel::MaxThreadsPerBlock),
         int(GemmKernel::SharedStorageSize));
  for (size_t i = 0; i < g_calls.size(); ++i) {
    EncodeCall const& c = g_calls[i];
    // The encodes wrote into to_underlying_arguments' temporaries; find where each marked descriptor was copied
    // in the returned Params (-1: not kept, e.g. the unused source operand's).
    long offset = -1;
    unsigned long long const marker = kMarker + i;
    for (size_t at = 0; at + sizeof(CUtensorMap) <= sizeof(params); at += 64) {
      if (std::memcmp(base + at, &marker, sizeof(marker)) == 0) offset = long(at);
    }
    printf("%s{\"operand_address\": \"0x%llx\", \"offset_in_params\": %ld, \"rank\": %d, \"format\": %d, "
           "\"swizzle\": %d, \"promotion\": %d, \"interleave\": %d, \"oob_fill\": %d, \"dims\": [",
           i ? ", " : "", c.address, offset, c.rank, c.format, c.swizzle, c.promotion,
           c.interleave, c.oob_fill);
    for (int j = 0; j < c.rank; ++j) printf("%s%llu", j ? ", " : "", c.dims[j]);
    printf("], \"strides_bytes\": [");
    for (int j = 0; j + 1 < c.rank; ++j) printf("%s%llu", j ? ", " : "", c.strides[j]);
    printf("], \"box\": [");
    for (int j = 0; j < c.rank; ++j) printf("%s%u", j ? ", " : "", c.box[j]);
    printf("], \"element_strides\": [");
    for (int j = 0; j < c.rank; ++j) printf("%s%u", j ? ", " : "", c.element_strides[j]);
    printf("]}");
  }
  // Raw operand pointers kept in the Params besides the descriptors (8-byte aligned copies of a stand-in
  // address): the device would patch these too.
  printf("], \"pointers\": [");
  bool first = true;
  for (size_t at = 0; at + 8 <= sizeof(params); at += 8) {
    unsigned long long value;
    std::memcpy(&value, base + at, sizeof(value));
    for (void const* operand : {static_cast<void const*>(a), static_cast<void const*>(b),
                                static_cast<void const*>(d)}) {
      if (value == reinterpret_cast<unsigned long long>(operand)) {
        printf("%s{\"offset\": %zu, \"operand_address\": \"0x%llx\"}", first ? "" : ", ", at, value);
        first = false;
      }
    }
  }
  printf("]}\n");
  return 0;
}
