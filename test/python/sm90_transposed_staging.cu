// Host-side check of the transposed kernels' two staging paths (plugin/sm90_dgrad.cuh), run by
// test_plugin_build.py: a store ring slot written by one warpgroup must receive exactly the values, at exactly the
// offsets, that the whole-tile staging puts into that warpgroup's 64-channel block. CuTe's layouts are host code,
// so this needs nvcc but no GPU. Exits non-zero and names the first mismatch otherwise.
#include <cstdio>

#include "sm90_dgrad.cuh"

using namespace cute;

template <int kTileM>
int check() {
  using Kernel = iree_cutlass_sm90::DgradKernel<cutlass::half_t, kTileM, 128, 2, 1, false, 1, 0, 1, 1, false, true>;
  // (thread, value) -> coordinate of the register each thread hands to stmatrix: (channel, pixel) of the tile,
  // flattened channels fastest; (channel within the warpgroup's 64, pixel) of a block.
  auto const tile_tv = typename Kernel::TransposedTileStore{}.get_layoutS_TV();
  auto const block_tv = typename Kernel::TransposedBlockStore{}.get_layoutS_TV();
  auto const mma_tv = typename Kernel::TransposedTiledMma{}.get_layoutC_TV();
  auto const tile_view = Kernel::transposed_tile_view();
  auto const block_view = Kernel::transposed_block_view();
  if (int(size<0>(tile_tv)) != 256 || int(size<0>(block_tv)) != 128 || size<1>(tile_tv) != size<1>(block_tv)) {
    std::printf("tile %d: unexpected thread or value counts\n", kTileM);
    return 1;
  }
  for (int thread = 0; thread < 256; ++thread) {
    int const wg = thread / 128;
    for (int value = 0; value < int(size<1>(tile_tv)); ++value) {
      int const in_tile = tile_tv(thread, value), in_block = block_tv(thread % 128, value);
      int const channel = in_tile % 128, pixel = in_tile / 128;
      int const block_channel = in_block % 64, block_pixel = in_block / 64;
      bool const same_value = int(mma_tv(thread, value)) == in_tile;  // the accumulator's own coordinate
      bool const same_place = channel == 64 * wg + block_channel && pixel == block_pixel;
      bool const same_offset = int(tile_view(channel, pixel)) == wg * kTileM * 64 + int(block_view(block_channel,
                                                                                                      block_pixel));
      if (!same_value || !same_place || !same_offset) {
        std::printf("tile %d: thread %d value %d: tile (%d, %d), block (%d, %d)\n", kTileM, thread, value, channel,
                    pixel, block_channel, block_pixel);
        return 1;
      }
    }
  }
  std::printf("tile %dx128: %d values a thread agree\n", kTileM, int(size<1>(tile_tv)));
  return 0;
}

int main() { return check<128>() | check<192>() | check<256>(); }
