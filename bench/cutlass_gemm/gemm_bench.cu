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
#if WRAPPED
    // The IREE-style launch (wrapped.h) builds its Params with stand-in addresses and no driver.
    auto* arg_a = reinterpret_cast<Element*>(wrapped::kStandIn[0]);
    auto* arg_b = reinterpret_cast<Element*>(wrapped::kStandIn[1]);
    auto* arg_d = reinterpret_cast<Element*>(wrapped::kStandIn[2]);
#else
    Element *arg_a = a, *arg_b = b, *arg_d = d;
#endif
    // beta = 0: the epilogue never reads C (is_source_needed), so C may alias D.
    typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {M, N, K, 1},
                                  {arg_a, stride_a, arg_b, stride_b},
                                  {{1.0f, 0.0f}, arg_d, stride_d, arg_d, stride_d}, hw_info};
    void* workspace = nullptr;
#if WRAPPED
    wrapped::Blob* blob = nullptr;
#endif
    auto release = [&]() {  // this problem's buffers, before the next one's are allocated
      cudaFree(a); cudaFree(b); cudaFree(d); cudaFree(ref);
      if (workspace) cudaFree(workspace);
#if WRAPPED
      if (blob) cudaFree(blob);
#endif
    };
#if WRAPPED
    // The Params as bytes and recipes, rebuilt per CTA on the device.
    char const* why = "cannot implement";
    static wrapped::Blob host_blob;
    dim3 grid;
    if (!GemmKernel::can_implement(args) || GemmKernel::get_workspace_size(args) != 0 ||
        !wrapped::make_blob(args, host_blob, grid, &why)) {
      printf("{\"config\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"error\": \"%s\"}\n", name.c_str(), M, N,
             K, why);
      release();
      continue;
    }
    // The driver's own encodes of this launch's descriptors (the recorded arguments, real addresses): compared
    // below with what the CTAs built, or, with WRAPPED_HOST_DESCRIPTORS=1, put in the blob in their place (no
    // device build), which separates a wrong descriptor from a wrong launch.
    std::vector<CUtensorMap> driver_maps(host_blob.recipe_count);
    {
      void* encode = nullptr;
      cudaDriverEntryPointQueryResult found;
      CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &encode, 12000, cudaEnableDefault, &found));
      auto* real_encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(encode);
      void* real[3] = {a, b, d};
      int r = 0;
      for (auto const& c : wrapped::g_calls) {
        if (c.offset_in_params < 0) continue;
        cuuint64_t dims[3] = {c.dims[0], c.dims[1], c.dims[2]}, strides[2] = {c.strides[0], c.strides[1]};
        CUresult e = real_encode(&driver_maps[r], CUtensorMapDataType(c.format), 3,
                                 real[host_blob.recipes[r].operand], dims, strides, c.box, c.element_strides,
                                 CUtensorMapInterleave(c.interleave), CUtensorMapSwizzle(c.swizzle),
                                 CUtensorMapL2promotion(c.promotion), CUtensorMapFloatOOBfill(c.oob_fill));
        if (e != CUDA_SUCCESS) { fprintf(stderr, "gemm_bench: driver encode failed (%d)\n", int(e)); return 1; }
        ++r;
      }
    }
    // WRAPPED_MODE: device (the CTAs build the descriptors), lean (the same without the wrapper's __threadfence and
    // last __syncthreads), or, with the driver's descriptors in the blob,
    // hostdesc (copied per CTA, fenced), in_place (every CTA on the blob itself), in_place_acquire (and the
    // acquires), param (the Params as a kernel parameter, <<<>>> launch).
    std::string const mode = getenv("WRAPPED_MODE") ? getenv("WRAPPED_MODE") : "device";
    bool const host_descriptors = mode != "device" && mode != "lean";
    host_blob.lean = mode == "lean";
    if (host_descriptors) {
      for (int r = 0; r < host_blob.recipe_count; ++r) {
        memcpy(host_blob.params + host_blob.recipes[r].offset, &driver_maps[r], sizeof(CUtensorMap));
      }
      for (int i = 0; i < host_blob.pointer_count; ++i) {
        void* real[3] = {a, b, d};
        memcpy(host_blob.params + host_blob.pointer_offsets[i], &real[host_blob.pointer_operands[i]], 8);
      }
      host_blob.prebuilt = 1;
      host_blob.in_place = mode == "in_place" ? 1 : mode == "in_place_acquire" ? 2 : 0;
    }
    if (mode != "device" && mode != "lean" && mode != "hostdesc" && mode != "in_place" && mode != "in_place_acquire" &&
        mode != "param") {
      fprintf(stderr, "gemm_bench: unknown WRAPPED_MODE %s\n", mode.c_str());
      return 2;
    }
    size_t const workspace_bytes = size_t(grid.x) * grid.y * grid.z * wrapped::kSlotBytes;
    CHECK(cudaMalloc(&workspace, workspace_bytes));
    CHECK(cudaMalloc(&blob, sizeof(wrapped::Blob)));
    CHECK(cudaMemcpy(blob, &host_blob, sizeof(wrapped::Blob), cudaMemcpyHostToDevice));
    CHECK(cudaFuncSetAttribute(wrapped::kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(GemmKernel::SharedStorageSize)));
    CHECK(cudaFuncSetAttribute(wrapped::param_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(GemmKernel::SharedStorageSize)));
    wrapped::Params host_params;
    memcpy(&host_params, host_blob.params, sizeof(host_params));
    auto launch = [&]() {
      if (mode == "param") {
        wrapped::param_kernel<<<grid, GemmKernel::MaxThreadsPerBlock, GemmKernel::SharedStorageSize, stream>>>(
            host_params);
      } else {
        wrapped::kernel<<<grid, GemmKernel::MaxThreadsPerBlock, GemmKernel::SharedStorageSize, stream>>>(
            a, b, d, static_cast<unsigned char*>(workspace), blob);
      }
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
#if WRAPPED
    if (!host_descriptors) {  // which bytes of the CTAs' descriptors differ from the driver's (CTA 0's slot)
      std::vector<unsigned char> slot(wrapped::kSlotBytes);
      CHECK(cudaMemcpy(slot.data(), workspace, slot.size(), cudaMemcpyDeviceToHost));
      for (int r = 0; r < host_blob.recipe_count; ++r) {
        auto const* mine = slot.data() + host_blob.recipes[r].offset;
        auto const* theirs = reinterpret_cast<unsigned char const*>(&driver_maps[r]);
        fprintf(stderr, "descriptor %d at %d:", r, host_blob.recipes[r].offset);
        for (int i = 0; i < 128; ++i) {
          if (mine[i] != theirs[i]) fprintf(stderr, " [%d] %02x/%02x", i, mine[i], theirs[i]);
        }
        fprintf(stderr, "\n");
      }
    }
#endif

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
