// Stock CUTLASS 3.x Hopper GEMM (CollectiveBuilder, persistent warp-specialized kernels) on the GEMMs that 1x1
// unit-stride dgrad layers are: dx[M = N*H*W, C] = dy[M, K] x w[C, K]^T, every operand K- or C-contiguous
// (A row-major M x K, B "column-major" K x C, i.e. the filter's natural [C, K] rows, D row-major M x C).
// A measurement tool, not product code: it asks whether NVIDIA's own GEMM kernels reach rates on these shapes that
// our dgrad kernels do not. One configuration per build (gemm_config.h, set by build.sh); arguments are
// M N K triples. For each: random inputs, poisoned output, one launch checked against a float reference (relative
// L2), then the median per-launch time of CUDA-graph replays (20 launches a graph), and the output checked again.
// Prints one JSON line per problem.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <string>

#include "gemm_config.h"
#ifndef WRAPPED
#define WRAPPED 0
#endif
#if WRAPPED
#include "wrapped.h"
#endif

#define CHECK(x)                                                                                \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      fprintf(stderr, "gemm_bench: %s failed: %s\n", #x, cudaGetErrorString(e_));               \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

// Uniform values in [-1, 1) from a hash of the index: random, never zero-filled, reproducible.
__global__ void fill_random(Element* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
    x[i] = Element((float)(h >> 8) / 8388608.0f - 1.0f);
  }
}

// Float reference: ref[m, n] = sum_k a[m, k] * b[n, k].
__global__ void reference_gemm(Element const* a, Element const* b, float* ref, int M, int N, int K) {
  size_t total = (size_t)M * N;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    size_t m = i / N, n = i % N;
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += float(a[m * K + k]) * float(b[n * K + k]);
    ref[i] = acc;
  }
}

static double rel_l2(std::vector<Element> const& d, std::vector<float> const& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    double diff = double(float(d[i])) - double(ref[i]);
    num += diff * diff;
    den += double(ref[i]) * double(ref[i]);
  }
  double r = std::sqrt(num / den);
  return std::isfinite(r) ? r : 1e30;  // a poisoned (NaN) element survived
}

int main(int argc, char** argv) {
  if (argc < 5 || (argc - 2) % 3 != 0) {
    fprintf(stderr, "usage: %s NAME M N K [M N K ...]\n", argv[0]);
    return 2;
  }
  std::string name = argv[1];
  int device_id = 0;
  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = device_id;
  hw_info.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(device_id);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (int arg = 2; arg + 2 < argc; arg += 3) {
    int M = atoi(argv[arg]), N = atoi(argv[arg + 1]), K = atoi(argv[arg + 2]);
    Element *a, *b, *d;
    float* ref;
    CHECK(cudaMalloc(&a, sizeof(Element) * (size_t)M * K));
    CHECK(cudaMalloc(&b, sizeof(Element) * (size_t)N * K));
    CHECK(cudaMalloc(&d, sizeof(Element) * (size_t)M * N));
    CHECK(cudaMalloc(&ref, sizeof(float) * (size_t)M * N));
    fill_random<<<1024, 256>>>(a, (size_t)M * K, 17u);
    fill_random<<<1024, 256>>>(b, (size_t)N * K, 29u);
    reference_gemm<<<4096, 256>>>(a, b, ref, M, N, K);
    CHECK(cudaDeviceSynchronize());

    auto stride_a = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideA{}, make_shape(M, K, 1));
    auto stride_b = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideB{}, make_shape(N, K, 1));
    auto stride_d = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideD{}, make_shape(M, N, 1));
    // beta = 0: the epilogue never reads C (is_source_needed), so C may alias D.
    typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {M, N, K, 1}, {a, stride_a, b, stride_b},
                                  {{1.0f, 0.0f}, d, stride_d, d, stride_d}, hw_info};
    void* workspace = nullptr;
#if WRAPPED
    wrapped::DeviceBlob* blob = nullptr;
#endif
    auto release = [&]() {  // this problem's buffers, before the next one's are allocated
      cudaFree(a); cudaFree(b); cudaFree(d); cudaFree(ref);
      if (workspace) cudaFree(workspace);
#if WRAPPED
      if (blob) cudaFree(blob);
#endif
    };
#if WRAPPED
    // The Params built on the host with no driver, completed per CTA on the device (plugin/sm90_gemm.cuh).
    static wrapped::DeviceBlob host_blob;
    dim3 grid;
    if (char const* why = wrapped::make_device_blob(M, N, K, hw_info.sm_count, host_blob, grid)) {
      printf("{\"config\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"error\": \"%s\"}\n", name.c_str(), M, N,
             K, why);
      release();
      continue;
    }
    size_t const workspace_bytes = size_t(grid.x) * grid.y * grid.z * iree_cutlass_gemm::slot_bytes<GemmKernel>() +
                                   128;   // the kernel aligns it to 128 bytes
    int const smem = iree_cutlass_gemm::smem_bytes<GemmKernel>();
    CHECK(cudaMalloc(&workspace, workspace_bytes));
    CHECK(cudaMalloc(&blob, sizeof(wrapped::DeviceBlob)));
    CHECK(cudaMemcpy(blob, &host_blob, sizeof(wrapped::DeviceBlob), cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(wrapped::kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    auto launch = [&]() {
      wrapped::kernel<<<grid, GemmKernel::MaxThreadsPerBlock, smem, stream>>>(
          a, b, d, static_cast<unsigned char*>(workspace), blob);
      CHECK(cudaGetLastError());
    };
#else
    Gemm gemm;
    if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
      printf("{\"config\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"error\": \"cannot implement\"}\n",
             name.c_str(), M, N, K);
      release();
      continue;
    }
    size_t workspace_bytes = Gemm::get_workspace_size(args);
    if (workspace_bytes) CHECK(cudaMalloc(&workspace, workspace_bytes));
    if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess) {
      fprintf(stderr, "gemm_bench: initialize failed\n");
      return 1;
    }
    // One launch: stream-K's workspace flags are zeroed before each launch (as a caller would have to).
    auto launch = [&]() {
      if (workspace_bytes) CHECK(cudaMemsetAsync(workspace, 0, workspace_bytes, stream));
      if (gemm.run(stream) != cutlass::Status::kSuccess) {
        fprintf(stderr, "gemm_bench: run failed\n");
        exit(1);
      }
    };
#endif
    std::vector<Element> host_d((size_t)M * N);
    std::vector<float> host_ref((size_t)M * N);
    CHECK(cudaMemcpy(host_ref.data(), ref, sizeof(float) * host_ref.size(), cudaMemcpyDeviceToHost));
    auto checked = [&]() {
      CHECK(cudaMemsetAsync(d, 0xff, sizeof(Element) * (size_t)M * N, stream));  // NaN poison
      launch();
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaMemcpy(host_d.data(), d, sizeof(Element) * host_d.size(), cudaMemcpyDeviceToHost));
      return rel_l2(host_d, host_ref);
    };
    double err_first = checked();

    const int kLaunches = 20, kReplays = 15;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < kLaunches; ++i) launch();
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaGraphLaunch(exec, stream));  // warm-up
    std::vector<float> per_launch;
    for (int r = 0; r < kReplays; ++r) {
      CHECK(cudaEventRecord(start, stream));
      CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      per_launch.push_back(ms / kLaunches);
    }
    std::sort(per_launch.begin(), per_launch.end());
    double err_after = checked();
    printf("{\"config\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"ms\": %.5f, \"ms_min\": %.5f, "
           "\"rel_l2\": %.3e, \"rel_l2_after\": %.3e, \"workspace_bytes\": %zu}\n",
           name.c_str(), M, N, K, per_launch[kReplays / 2], per_launch[0], err_first, err_after, workspace_bytes);
    fflush(stdout);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    release();
  }
  return 0;
}
