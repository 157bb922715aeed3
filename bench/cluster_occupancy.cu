// How many 2-CTA clusters of our kernels' shape (384 threads, up to 232448 B of shared memory) the H200 holds at
// once, and on how many distinct SMs a persistent grid of 66 such clusters lands.
#include <cstdio>
#include <set>
#include <cuda_runtime.h>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1) probe(int* smid) {
  extern __shared__ int pad[];
  if (threadIdx.x == 0) {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    smid[blockIdx.x] = int(s);
    pad[0] = int(s);
  }
  // Stay resident long enough that the whole grid must be co-resident to finish together.
  long long start = clock64();
  while (clock64() - start < 2000000) {}
}
int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  for (int smem : {0, 150000, 216064, 232448}) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(sms);
    config.blockDim = dim3(384);
    config.dynamicSmemBytes = smem;
    int clusters = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, probe, &config);
    std::printf("smem %6d B: max active 2-CTA clusters %d (%s), SMs %d\n", smem, clusters, cudaGetErrorString(e), sms);
  }
  int* smid;
  cudaMalloc(&smid, sms * sizeof(int));
  probe<<<sms, 384, 232448>>>(smid);
  cudaError_t e = cudaDeviceSynchronize();
  int host[1024];
  cudaMemcpy(host, smid, sms * sizeof(int), cudaMemcpyDeviceToHost);
  std::set<int> distinct(host, host + sms);
  std::printf("grid of %d CTAs in 2-CTA clusters: %zu distinct SMs (%s)\n", sms, distinct.size(), cudaGetErrorString(e));
  return 0;
}
