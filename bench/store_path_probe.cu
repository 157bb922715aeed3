// How fast can the memory path of ResNet-50's 1x1 256<-64 dgrad layer (batch 256, 56x56) run on this card with no
// MMA and no tile decode at all?
//
// Why: on the H100 our kernel for that layer moves dy (103 MB) and dx (411 MB) at 69-74% of DRAM peak and cuDNN's at
// 81%. Session 40 fixed the walk order (dy read from DRAM once) and removed the decode (40% of the instructions)
// without gaining anything; its consumers then wait on loads. So either the path itself (TMA loads of 128-pixel dy
// boxes, TMA stores of 128x64 dx boxes with a 512-byte row pitch, one issuing thread a CTA) tops out near 74%, or
// our kernel's pipeline around it does. This probe times that path alone.
//
// Each kernel copies dy into every 64-channel unit of dx: dx[p, 64 u + k] = dy[p, k], for p over the
// N*H*W = 802,816 pixels in 128-pixel boxes and u over the 4 channel units, the same bytes in the same boxes as the
// layer (the same 128-byte swizzle on both sides, so the staged tile is stored as loaded). What varies:
// - order: `unit` walks units strided over the grid (unit = CTA + i * grid; box = unit / 4, as our kernel does),
//   loading dy once per unit; `box` gives each CTA whole boxes, loading dy once per box and storing it four times;
// - stores: `tma` (one thread issues cp.async.bulk.tensor stores, as our kernel does) or `threads` (128 threads read
//   the staged tile and write it with 16-byte st.global, a warp 4 whole 128-byte rows at a time);
// - stages (dy boxes in flight) and grid (CTAs, persistent).
// A `write_only` kernel stores a staged tile to every unit with no loads at all (the write path alone).
// Peers in the same process: cudaMemcpy of dx into a second buffer (411 MB read and written) and of dy.
//
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O2 bench/store_path_probe.cu -o probe
//   ./probe > probe.jsonl     (one JSON object a line: each kernel's median time, its bytes a second, validity)
//
// Every copy is checked in full on the device against dy (dx poisoned with 0xFF first); inputs are random bits.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

constexpr int kPixels = 256 * 56 * 56;  // N*H*W of the layer
constexpr int kK = 64;                  // dy channels: one 128-byte swizzle row
constexpr int kC = 256;                 // dx channels
constexpr int kUnits = kC / 64;         // 64-channel units a box
constexpr int kMaxStages = 12;

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e = (call);                                                                        \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "error: %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

__device__ __forceinline__ uint32_t smem_u32(void const* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "retry:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra retry;\n}" ::"r"(smem_u32(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, CUtensorMap const* map, uint64_t* bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
      ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1) : "memory");
}
__device__ __forceinline__ void tma_store(CUtensorMap const* map, void const* src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
               ::"l"(map), "r"(smem_u32(src)), "r"(c0), "r"(c1) : "memory");
}
template <int N>
__device__ __forceinline__ void store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// The CTA's work list: item i is (box, unit). Unit order: one load a unit. Box order: one load a box (unit 0), then
// four stores from it.
struct Walk {
  int boxes;
  bool box_order;
  __device__ int items() const {
    int const total = box_order ? boxes : boxes * kUnits;
    int const mine = total > int(blockIdx.x) ? (total - 1 - int(blockIdx.x)) / int(gridDim.x) + 1 : 0;
    return mine;
  }
  // i-th load of this CTA: its box and the units stored from it ([first, first + count)).
  __device__ void load(int i, int& box, int& first, int& count) const {
    int const idx = int(blockIdx.x) + i * int(gridDim.x);
    if (box_order) { box = idx; first = 0; count = kUnits; }
    else { box = idx / kUnits; first = idx % kUnits; count = 1; }
  }
};

struct Params {
  CUtensorMap dy_map;   // {64, pixels} f16, box {64, rows}, 128-byte swizzle
  CUtensorMap dx_map;   // {256, pixels} f16, box {64, rows}, 128-byte swizzle
  __half* dx;
  int rows;             // pixels a box: 128 or 256
  int stages;
  Walk walk;
};

// One thread issues every load and store (as our kernel's producer and storer do, here the same thread).
// Stage i % stages holds load i; load i + stages - 1 refills the stage of load i - 1 once its stores have been read.
__global__ void __launch_bounds__(32) copy_tma_kernel(__grid_constant__ const Params p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + size_t(p.stages) * p.rows * 128);
  if (threadIdx.x != 0) return;
  uint32_t const stage_bytes = uint32_t(p.rows) * 128;
  for (int s = 0; s < p.stages; ++s) mbar_init(&full[s], 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  int const loads = p.walk.items();
  auto issue = [&](int i) {
    int box, first, count;
    p.walk.load(i, box, first, count);
    int const s = i % p.stages;
    mbar_expect_tx(&full[s], stage_bytes);
    tma_load(smem + size_t(s) * stage_bytes, &p.dy_map, &full[s], 0, box * p.rows);
  };
  for (int i = 0; i < p.stages - 1 && i < loads; ++i) issue(i);
  for (int i = 0; i < loads; ++i) {
    int const s = i % p.stages;
    mbar_wait(&full[s], (i / p.stages) & 1);
    int box, first, count;
    p.walk.load(i, box, first, count);
    for (int u = first; u < first + count; ++u) tma_store(&p.dx_map, smem + size_t(s) * stage_bytes, u * 64, box * p.rows);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    store_wait_read<1>();  // the stores of load i - 1 have read their stage: refill it
    if (i + p.stages - 1 < loads) issue(i + p.stages - 1);
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Warp 0's lane 0 loads; warps 1-4 (128 threads) copy each staged box out with 16-byte global stores, a warp four
// whole 128-byte pixel rows at a time, and release the stage.
__global__ void __launch_bounds__(160) copy_threads_kernel(__grid_constant__ const Params p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + size_t(p.stages) * p.rows * 128);
  uint64_t* empty = full + kMaxStages;
  uint32_t const stage_bytes = uint32_t(p.rows) * 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < p.stages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 4);  // one arrival a storing warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  int const loads = p.walk.items();
  int const warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    if (lane != 0) return;
    for (int i = 0; i < loads; ++i) {
      int const s = i % p.stages;
      if (i >= p.stages) mbar_wait(&empty[s], ((i / p.stages) - 1) & 1);
      int box, first, count;
      p.walk.load(i, box, first, count);
      mbar_expect_tx(&full[s], stage_bytes);
      tma_load(smem + size_t(s) * stage_bytes, &p.dy_map, &full[s], 0, box * p.rows);
    }
    return;
  }
  int const t = threadIdx.x - 32;  // 0..127
  int const chunk = t % 8;         // 16-byte chunk of a 128-byte row
  for (int i = 0; i < loads; ++i) {
    int const s = i % p.stages;
    mbar_wait(&full[s], (i / p.stages) & 1);
    int box, first, count;
    p.walk.load(i, box, first, count);
    uint8_t const* stage = smem + size_t(s) * stage_bytes;
    for (int row = t / 8; row < p.rows; row += 16) {
      // 128-byte swizzle: chunk j of row r lies at chunk j ^ (r % 8)
      uint4 const v = *reinterpret_cast<uint4 const*>(stage + row * 128 + ((chunk ^ (row % 8)) * 16));
      size_t const pixel = size_t(box) * p.rows + row;
      for (int u = first; u < first + count; ++u)
        *reinterpret_cast<uint4*>(p.dx + pixel * kC + u * 64 + chunk * 8) = v;
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(&empty[s]);
  }
}

// The write path alone: every unit of every box is stored from one staged tile (whatever shared memory holds), no
// loads; a ring of `stages` store groups in flight before the thread waits.
__global__ void __launch_bounds__(32) write_only_kernel(__grid_constant__ const Params p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  if (threadIdx.x != 0) return;
  int const loads = p.walk.items();
  for (int i = 0; i < loads; ++i) {
    int box, first, count;
    p.walk.load(i, box, first, count);
    for (int u = first; u < first + count; ++u) tma_store(&p.dx_map, smem, u * 64, box * p.rows);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    store_wait_read<4>();
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Counts the elements of dx that differ from dy (bit for bit).
__global__ void count_mismatches(__half const* dy, __half const* dx, unsigned long long* bad) {
  size_t const n = size_t(kPixels) * kC;
  unsigned long long mine = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    size_t const pixel = i / kC, k = (i % kC) % 64;
    mine += __half_as_ushort(dx[i]) != __half_as_ushort(dy[pixel * kK + k]);
  }
  atomicAdd(bad, mine);
}

__global__ void fill_random(uint32_t* words, size_t n, uint32_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    words[i] = x & 0x7bff7bffu;  // finite f16 pairs (exponent below all-ones)
  }
}

// cuTensorMapEncodeTiled through the runtime's driver entry point, so the probe needs no -lcuda to link.
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, cuuint64_t const*,
                                 cuuint64_t const*, cuuint32_t const*, cuuint32_t const*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static CUtensorMap make_map(void* base, int channels, int rows) {
  static EncodeTiled encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess) {
      std::fprintf(stderr, "error: cuTensorMapEncodeTiled not found\n");
      std::exit(1);
    }
    return reinterpret_cast<EncodeTiled>(fn);
  }();
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(channels), cuuint64_t(kPixels)};
  cuuint64_t strides[1] = {cuuint64_t(channels) * 2};
  cuuint32_t box[2] = {64, cuuint32_t(rows)};
  cuuint32_t elem[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, elem,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "error: cuTensorMapEncodeTiled failed (%d)\n", int(r));
    std::exit(1);
  }
  return map;
}

struct Case {
  std::string kernel;  // tma, threads, write_only
  bool box_order;
  int rows, stages, grid;
};

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  size_t const dy_elems = size_t(kPixels) * kK, dx_elems = size_t(kPixels) * kC;
  __half *dy, *dx, *dx2;
  unsigned long long* bad;
  CHECK(cudaMalloc(&dy, dy_elems * 2));
  CHECK(cudaMalloc(&dx, dx_elems * 2));
  CHECK(cudaMalloc(&dx2, dx_elems * 2));
  CHECK(cudaMalloc(&bad, sizeof(unsigned long long)));
  fill_random<<<1024, 256>>>(reinterpret_cast<uint32_t*>(dy), dy_elems / 2, 25u);
  CHECK(cudaGetLastError());

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  auto median_us = [&](auto&& launch) {
    for (int w = 0; w < 3; ++w) launch();
    std::vector<float> times;
    for (int rep = 0; rep < 20; ++rep) {
      CHECK(cudaEventRecord(start));
      launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms * 1000.f);
    }
    CHECK(cudaGetLastError());
    std::sort(times.begin(), times.end());
    return 0.5 * (times[9] + times[10]);
  };
  double const dy_bytes = double(dy_elems) * 2, dx_bytes = double(dx_elems) * 2;
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"l2_bytes\": %d, \"dy_bytes\": %.0f, \"dx_bytes\": %.0f}\n",
              prop.name, sms, prop.l2CacheSize, dy_bytes, dx_bytes);

  double const memcpy_us = median_us([&] { CHECK(cudaMemcpyAsync(dx2, dx, dx_elems * 2, cudaMemcpyDeviceToDevice)); });
  std::printf("{\"kernel\": \"memcpy_dx\", \"us\": %.2f, \"bytes_per_s\": %.4e}\n", memcpy_us, 2 * dx_bytes / memcpy_us * 1e6);
  double const memcpy_dy_us = median_us([&] { CHECK(cudaMemcpyAsync(dx2, dy, dy_elems * 2, cudaMemcpyDeviceToDevice)); });
  std::printf("{\"kernel\": \"memcpy_dy\", \"us\": %.2f, \"bytes_per_s\": %.4e}\n", memcpy_dy_us,
              2 * dy_bytes / memcpy_dy_us * 1e6);

  std::vector<Case> cases;
  for (int rows : {128, 256})
    for (bool box_order : {false, true})
      for (int stages : {2, 3, 4, 6, 8}) {
        if (rows * 128 * stages > 200 * 1024) continue;
        cases.push_back({"tma", box_order, rows, stages, sms});
        cases.push_back({"threads", box_order, rows, stages, sms});
      }
  for (int grid : {120, 2 * sms}) {
    cases.push_back({"tma", false, 128, 6, grid});
    cases.push_back({"threads", false, 128, 6, grid});
  }
  for (bool box_order : {false, true}) cases.push_back({"write_only", box_order, 128, 1, sms});

  for (Case const& c : cases) {
    Params p;
    p.dy_map = make_map(dy, kK, c.rows);
    p.dx_map = make_map(dx, kC, c.rows);
    p.dx = dx;
    p.rows = c.rows;
    p.stages = c.stages;
    p.walk = Walk{kPixels / c.rows, c.box_order};
    size_t const smem = 1024 + size_t(c.stages) * c.rows * 128 + 2 * kMaxStages * 8;
    void const* fn = c.kernel == "tma" ? (void const*)copy_tma_kernel
                   : c.kernel == "threads" ? (void const*)copy_threads_kernel : (void const*)write_only_kernel;
    int const threads = c.kernel == "threads" ? 160 : 32;
    CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    auto launch = [&] {
      if (c.kernel == "tma") copy_tma_kernel<<<c.grid, threads, smem>>>(p);
      else if (c.kernel == "threads") copy_threads_kernel<<<c.grid, threads, smem>>>(p);
      else write_only_kernel<<<c.grid, threads, smem>>>(p);
    };
    CHECK(cudaMemset(dx, 0xFF, dx_elems * 2));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long mismatches = 0;
    if (c.kernel != "write_only") {
      CHECK(cudaMemset(bad, 0, sizeof(unsigned long long)));
      count_mismatches<<<1024, 256>>>(dy, dx, bad);
      CHECK(cudaMemcpy(&mismatches, bad, sizeof(mismatches), cudaMemcpyDeviceToHost));
    }
    double const us = median_us(launch);
    double const bytes = (c.kernel == "write_only" ? 0 : dy_bytes) + dx_bytes;  // dy from DRAM once at best
    std::printf("{\"kernel\": \"%s\", \"order\": \"%s\", \"rows\": %d, \"stages\": %d, \"grid\": %d, \"us\": %.2f, "
                "\"bytes_per_s\": %.4e, \"over_memcpy_rate\": %.4f, \"valid\": %s, \"mismatches\": %llu}\n",
                c.kernel.c_str(), c.box_order ? "box" : "unit", c.rows, c.stages, c.grid, us, bytes / us * 1e6,
                (bytes / us) / (2 * dx_bytes / memcpy_us), c.kernel == "write_only" || mismatches == 0 ? "true" : "false",
                mismatches);
    std::fflush(stdout);
  }
  return 0;
}
