// Can a stock CUTLASS 3.x GEMM kernel run behind IREE's extern-dispatch ABI, which passes only buffer pointers and
// 32-bit push constants? Its Params (problem shape, scheduler divisors, TMA descriptors) are built on the host by
// `to_underlying_arguments`, which encodes the descriptors through the driver. This probe runs that on the host
// with no GPU and no driver, through wrapped.h's recording cuTensorMapEncodeTiled and make_blob (the bytes and
// descriptor recipes that wrapped.h's IREE-style launch rebuilds per CTA), and prints what they found.
// Prints, as one JSON object: sizeof(Params), the offset of each recorded descriptor within it, each descriptor's
// encode arguments, the offsets of raw operand pointers in it, the launch grid and the shared-memory size. A
// measurement tool, not product code.
//   SRC=$(python3 -c "import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))")/source
//   nvcc -std=c++17 --expt-relaxed-constexpr -O1 -gencode arch=compute_90a,code=sm_90a -I$SRC/include \
//     -I$SRC/tools/util/include \
//     -DTILE_M=128 -DTILE_N=128 -DPINGPONG=1 -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL -o params_probe params_probe.cu
//   ./params_probe M N K      (~30 s to build; runs anywhere)
#include <cstdio>
#include <cstdlib>

#include "gemm_config.h"
#include "wrapped.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s M N K\n", argv[0]);
    return 2;
  }
  int const M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
  auto* a = reinterpret_cast<Element*>(wrapped::kStandIn[0]);
  auto* b = reinterpret_cast<Element*>(wrapped::kStandIn[1]);
  auto* d = reinterpret_cast<Element*>(wrapped::kStandIn[2]);
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
  static wrapped::Blob blob;
  dim3 grid;
  char const* why = "";
  if (!wrapped::make_blob(args, blob, grid, &why)) {
    fprintf(stderr, "params_probe: %s\n", why);
    return 1;
  }
  printf("{\"config\": \"%dx%d c%dx%d %s\", \"m\": %d, \"n\": %d, \"k\": %d, \"params_bytes\": %zu, "
         "\"grid\": [%u, %u, %u], \"block\": %u, \"smem_bytes\": %d, \"descriptors\": [",
         TILE_M, TILE_N, CLUSTER_M, CLUSTER_N, PINGPONG ? "pingpong" : "cooperative", M, N, K,
         sizeof(wrapped::Params), grid.x, grid.y, grid.z, unsigned(GemmKernel::MaxThreadsPerBlock),
         int(GemmKernel::SharedStorageSize));
  for (size_t i = 0; i < wrapped::g_calls.size(); ++i) {
    wrapped::EncodeCall const& c = wrapped::g_calls[i];
    printf("%s{\"operand_address\": \"0x%llx\", \"offset_in_params\": %d, \"rank\": %d, \"format\": %d, "
           "\"swizzle\": %d, \"promotion\": %d, \"interleave\": %d, \"oob_fill\": %d, \"dims\": [",
           i ? ", " : "", c.address, c.offset_in_params, c.rank, c.format, c.swizzle, c.promotion, c.interleave,
           c.oob_fill);
    for (int j = 0; j < c.rank; ++j) printf("%s%u", j ? ", " : "", c.dims[j]);
    printf("], \"strides_bytes\": [");
    for (int j = 0; j + 1 < c.rank; ++j) printf("%s%llu", j ? ", " : "", (unsigned long long)c.strides[j]);
    printf("], \"box\": [");
    for (int j = 0; j < c.rank; ++j) printf("%s%u", j ? ", " : "", c.box[j]);
    printf("], \"element_strides\": [");
    for (int j = 0; j < c.rank; ++j) printf("%s%u", j ? ", " : "", c.element_strides[j]);
    printf("]}");
  }
  // Raw operand pointers kept in the Params besides the descriptors: the device patches these too.
  printf("], \"pointers\": [");
  for (int i = 0; i < blob.pointer_count; ++i) {
    printf("%s{\"offset\": %d, \"operand_address\": \"0x%llx\"}", i ? ", " : "", blob.pointer_offsets[i],
           wrapped::kStandIn[blob.pointer_operands[i]]);
  }
  printf("]}\n");
  return 0;
}
