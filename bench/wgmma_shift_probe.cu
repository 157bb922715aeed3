// Does wgmma read a 128-byte-swizzled, K-major shared-memory operand whose start lies a whole number of 128-byte
// rows past a 1024-byte swizzle atom boundary?
//
// Why: a dgrad tile of a 3x3 filter reads, for each of its 9 taps, the same dy pixels shifted by one tap. Today
// each tap's dy box is loaded again (TMA), and on the C = K = 64 layer that makes the loads, not the MMAs, the
// bound (L2 to shared memory at ~45 B a cycle an SM). A halo tile would load the pixels once and point each tap's
// wgmma descriptor at them shifted by (tap row * pitch + tap column) pixel rows of 128 bytes. A shift that is not
// a multiple of 8 rows starts the operand inside a swizzle atom: the PTX ISA's matrix descriptor has a "base
// offset" field for that case. This probe asks the GPU which descriptor reads the shifted rows right.
//
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O2 bench/wgmma_shift_probe.cu -o probe && ./probe > probe.json
//
// One warpgroup multiplies A[shift_a : shift_a + 64, 0:64] by B[shift_b : shift_b + 64, 0:64]^T (m64n64k16,
// f16 in, f32 out, four K steps of 32 bytes inside the swizzled row, as CUTLASS advances its descriptors), with
// A and B stored in shared memory in the 128-byte swizzle TMA writes (16-byte chunk index XOR address bits 7-9),
// for every shift in [0, 16) and three base-offset rules. Each line of output is one (operand, shift, rule) with
// the max error against a float64 reference on the host; inputs are random, the output poisoned (NaN) first.
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

constexpr int kRows = 64 + 16;   // operand rows held in shared memory: 64 read from any shift in [0, 16)
constexpr int kK = 64;           // one 128-byte swizzle row of 16-bit elements
constexpr int kOperandBytes = kRows * kK * 2;

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t e = (call);                                                                 \
    if (e != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "error: %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)

// Byte offset of element (row, k) in a 1024-byte-aligned buffer with the 128-byte swizzle.
__host__ __device__ inline int swizzled(int row, int k) {
  return row * 128 + ((((k * 2) / 16) ^ (row % 8)) * 16) + (k * 2) % 16;
}

// rule 0: base offset 0; rule 1: (start >> 7) & 7 (the PTX ISA's formula); rule 2: 7 - that (a control).
__device__ inline uint64_t descriptor(uint32_t start, int rule) {
  int const phase = int(start >> 7) & 7;
  int const base_offset = rule == 0 ? 0 : rule == 1 ? phase : 7 - phase;
  uint64_t d = uint64_t((start & 0x3FFFF) >> 4);   // start address, bits 0-13
  d |= uint64_t(1) << 16;                            // leading byte offset: unused by swizzled K-major operands
  d |= uint64_t(1024 >> 4) << 32;                    // stride byte offset: 8 rows of 128 bytes
  d |= uint64_t(base_offset) << 49;
  d |= uint64_t(1) << 62;                            // 128-byte swizzle
  return d;
}

__global__ void __launch_bounds__(128) probe(__half const* a, __half const* b, float* d, int shift_a, int shift_b,
                                             int rule) {
  extern __shared__ __align__(1024) uint8_t raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  uint8_t* sa = smem;
  uint8_t* sb = smem + kOperandBytes;   // a multiple of 1024
  for (int i = threadIdx.x; i < kRows * kK; i += 128) {
    int const row = i / kK, k = i % kK;
    *reinterpret_cast<__half*>(sa + swizzled(row, k)) = a[i];
    *reinterpret_cast<__half*>(sb + swizzled(row, k)) = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  float acc[32];
  for (float& x : acc) x = 0.f;
  uint32_t const base_a = uint32_t(__cvta_generic_to_shared(sa)) + shift_a * 128;
  uint32_t const base_b = uint32_t(__cvta_generic_to_shared(sb)) + shift_b * 128;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int step = 0; step < kK / 16; ++step) {
    uint64_t const da = descriptor(base_a + step * 32, rule);
    uint64_t const db = descriptor(base_b + step * 32, rule);
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, 1, 1, 1, 0, 0;"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]),
          "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]), "+f"(acc[10]), "+f"(acc[11]), "+f"(acc[12]), "+f"(acc[13]),
          "+f"(acc[14]), "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]), "+f"(acc[18]), "+f"(acc[19]),
          "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), "+f"(acc[24]), "+f"(acc[25]),
          "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]), "+f"(acc[30]), "+f"(acc[31])
        : "l"(da), "l"(db));
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  // wgmma's f32 accumulator layout for m64nN: warp w holds rows 16 w + [0, 16); register i of lane l is
  // row 16 w + l / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (l % 4) + i % 2.
  int const warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = 0; i < 32; ++i) {
    int const row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    int const col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    d[row * 64 + col] = acc[i];
  }
}

int main() {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  std::vector<__half> a(kRows * kK), b(kRows * kK);
  std::vector<double> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = __float2half(normal(gen));
    b[i] = __float2half(normal(gen));
    af[i] = __half2float(a[i]);
    bf[i] = __half2float(b[i]);
  }
  __half *a_d, *b_d;
  float* d_d;
  CHECK(cudaMalloc(&a_d, a.size() * 2));
  CHECK(cudaMalloc(&b_d, b.size() * 2));
  CHECK(cudaMalloc(&d_d, 64 * 64 * 4));
  CHECK(cudaMemcpy(a_d, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b_d, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  int const smem_bytes = 2 * kOperandBytes + 1024;
  CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
  std::vector<float> d(64 * 64);
  int failures = 0;
  std::printf("[\n");
  bool first = true;
  for (int operand = 0; operand < 2; ++operand) {          // 0: shift A's rows (M), 1: shift B's rows (N)
    for (int shift = 0; shift < 16; ++shift) {
      for (int rule = 0; rule < 3; ++rule) {
        int const shift_a = operand == 0 ? shift : 0, shift_b = operand == 1 ? shift : 0;
        CHECK(cudaMemset(d_d, 0xFF, 64 * 64 * 4));   // NaN
        probe<<<1, 128, smem_bytes>>>(a_d, b_d, d_d, shift_a, shift_b, rule);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(d.data(), d_d, d.size() * 4, cudaMemcpyDeviceToHost));
        double max_error = 0, max_ref = 0;
        for (int m = 0; m < 64; ++m) {
          for (int n = 0; n < 64; ++n) {
            double ref = 0;
            for (int k = 0; k < kK; ++k) ref += af[(m + shift_a) * kK + k] * bf[(n + shift_b) * kK + k];
            double const got = d[m * 64 + n];
            double const error = std::isfinite(got) ? std::fabs(got - ref) : INFINITY;
            max_error = std::fmax(max_error, error);
            max_ref = std::fmax(max_ref, std::fabs(ref));
          }
        }
        bool const ok = max_error <= 1e-3 * max_ref;
        failures += ok ? 0 : 1;
        std::printf("%s {\"operand\": \"%s\", \"shift_rows\": %d, \"rule\": %d, \"max_error\": %.3e, "
                    "\"max_ref\": %.3e, \"ok\": %s}\n",
                    first ? " " : ",", operand == 0 ? "A" : "B", shift, rule, max_error, max_ref,
                    ok ? "true" : "false");
        first = false;
      }
    }
  }
  std::printf("]\n");
  std::fprintf(stderr, "wgmma_shift_probe: %d of %d cases wrong\n", failures, 2 * 16 * 3);
  return 0;
}
