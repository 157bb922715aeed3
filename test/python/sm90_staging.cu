// Host-side checks of the sm90 kernels' epilogue (plugin/sm90_dgrad.cuh), run by test_plugin_build.py; CuTe's
// layouts and the thread-store copy are host code, so this needs nvcc but no GPU. Exits non-zero and names the
// first mismatch otherwise.
// - Transposed staging: a store ring slot written by one warpgroup must receive exactly the values, at exactly
//   the offsets, that whole-tile staging puts into that warpgroup's 64-channel block.
// - Ping-pong transposed staging (one warpgroup's whole 64- or 128-channel tile): each value stmatrix stores is
//   the accumulator's own (channel, pixel), at its own offset of the staging tile.
// - Thread stores: the threads that share a staged block copy every row of it to the dx pixel its box position
//   and phase give, every channel below C, and nothing else.
// - Warp stores: every row a thread stages with stmatrix lies in one of its warp's 16-row slices, the warps'
//   slices cover the tile's rows once, and each slice's box, read in TMA order from its packed offset, names the
//   same (image, row, column) of the tile's box as the tile row it reads.
#include <cstdio>
#include <array>
#include <vector>

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

// Ping-pong transposed tiles (one warpgroup's whole kTileN x kTileM tile; 128 channels are two m64 MMAs, which
// the stores take as two 64-channel repeats): on each 64-channel repeat, every register a thread hands to the
// transposing stmatrix holds the accumulator value of the (channel, pixel) it is stored as; the accumulator's and
// the stores' repeat r both hold channels 64 r to 64 r + 63; and the tile's stores put each (channel, pixel) at
// its own offset of the staging tile, once.
template <int kTileM, int kTileN>
int check_pingpong_transposed() {
  using Kernel = iree_cutlass_sm90::DgradKernel<cutlass::half_t, kTileM, kTileN, 2, 1, true, 1, 0, 0, 1, false, true>;
  auto const tile_tv = typename Kernel::TransposedTileStore{}.get_layoutS_TV();   // over one 64 x kTileM repeat
  auto const mma_tv = typename Kernel::TransposedTiledMma{}.get_layoutC_TV();
  auto const tile_view = Kernel::transposed_tile_view();
  constexpr int kRepeats = kTileN / 64;
  if (int(size<0>(tile_tv)) != 128 || int(size<0>(mma_tv)) != 128 || int(size<1>(tile_tv)) != 64 * kTileM / 128) {
    std::printf("ping-pong tile %dx%d: unexpected thread or value counts\n", kTileM, kTileN);
    return 1;
  }
  auto const coordinates = make_identity_tensor(make_shape(Int<kTileN>{}, Int<kTileM>{}));   // (channel, pixel)
  std::vector<int> seen(kTileM * kTileN, 0);
  for (int thread = 0; thread < 128; ++thread) {
    auto const held = typename Kernel::TransposedTiledMma{}.get_thread_slice(thread).partition_C(coordinates);
    auto const placed = typename Kernel::TransposedTileStore{}.get_slice(thread).partition_D(coordinates);
    if (int(size<1>(held)) != kRepeats || int(size<1>(placed)) != kRepeats) {
      std::printf("ping-pong tile %dx%d: %d and %d repeats\n", kTileM, kTileN, int(size<1>(held)),
                  int(size<1>(placed)));
      return 1;
    }
    for (int r = 0; r < kRepeats; ++r) {
      for (int i = 0; i < int(size(held(_, r, _))); ++i) {
        if (get<0>(held(_, r, _)(i)) / 64 != r || get<0>(placed(_, r, _)(i)) / 64 != r) {
          std::printf("ping-pong tile %dx%d: thread %d repeat %d holds or stores another repeat's channels\n",
                      kTileM, kTileN, thread, r);
          return 1;
        }
      }
      for (int value = 0; value < int(size<1>(tile_tv)); ++value) {
        int const in_tile = tile_tv(thread, value);
        int const channel = 64 * r + in_tile % 64, pixel = in_tile / 64;
        int const offset = tile_view(channel, pixel);
        if (int(mma_tv(thread, value)) != in_tile || offset < 0 || offset >= kTileM * kTileN || seen[offset]++) {
          std::printf("ping-pong tile %dx%d: thread %d value %d: (%d, %d)\n", kTileM, kTileN, thread, value,
                      channel, pixel);
          return 1;
        }
      }
    }
  }
  std::printf("ping-pong tile %dx%d: %d values a thread agree\n", kTileM, kTileN, kRepeats * int(size<1>(tile_tv)));
  return 0;
}

// One staged (kTileM x 64) block, copied out by the threads of each group as the kernel does, against dx computed
// from the box decomposition directly.
template <class Kernel, int kTileM, int kGroups>
int check_thread_stores(char const* name, int n0, int i0, int j0, int c0) {
  using iree_cutlass_sm90::DgradShape;
  using Element = cutlass::half_t;
  // A strided problem seen from phase (1, 0): 3 images, dx 9 x 20 (4 x 20 in the phase), 200 channels; box
  // 2 x 4 x 16 (128 rows) or 2 x 8 x 16 (256), placed at (n0, i0, j0) of the phase and channel c0.
  DgradShape d{};
  d.n = 3; d.h = 9; d.w = 20; d.c = 200; d.stride_h = 2; d.stride_w = 1;
  d.box_n = 2; d.box_h = kTileM / 32; d.box_w = 16;
  iree_cutlass_sm90::Tile t{};
  t.n0 = n0; t.i0 = i0; t.j0 = j0; t.c0 = c0; t.ph = 1; t.pw = 0; t.rows = 4; t.cols = 20;
  std::vector<Element> dx(size_t(d.n) * d.h * d.w * d.c, Element(-1.0f));
  // The block staged as stmatrix stages it: through a tensor on the shared-memory pointer, whose 128-byte swizzle
  // acts on the address (so the block is 1024-byte aligned, as in the kernel's shared storage).
  alignas(1024) static Element slot[256 * 64];
  Tensor staged = make_tensor(make_smem_ptr(slot), typename Kernel::SmemLayoutBlock{});
  for (int m = 0; m < kTileM; ++m)
    for (int k = 0; k < 64; ++k) staged(m, k) = Element(float(m * 64 + k) / 8.0f);
  for (int group = 0; group < kGroups; ++group)
    for (int thread = 0; thread < Kernel::kCopyThreads; ++thread)
      Kernel::ThreadRows::make(d, thread, group * kTileM / kGroups).copy_out(slot, t, d, t.c0, dx.data());
  int written = 0;
  for (int n = 0; n < int(d.n); ++n)
    for (int h = 0; h < int(d.h); ++h)
      for (int w = 0; w < int(d.w); ++w)
        for (int c = 0; c < int(d.c); ++c) {
          float expected = -1.0f;
          int const i = h - t.ph, bn = n - t.n0, bw = w - t.j0;
          bool const in_box = bn >= 0 && bn < int(d.box_n) && bw >= 0 && bw < int(d.box_w) &&
                              i / 2 - t.i0 >= 0 && i / 2 - t.i0 < int(d.box_h);
          if (i >= 0 && i % 2 == 0 && i / 2 < t.rows && c >= t.c0 && c < t.c0 + 64 && in_box) {
            int const m = (bn * int(d.box_h) + i / 2 - t.i0) * int(d.box_w) + bw;
            expected = float(m * 64 + c - t.c0) / 8.0f;
          }
          float const got = float(dx[((size_t(n) * d.h + h) * d.w + w) * d.c + c]);
          written += got != -1.0f;
          if (got != Element(expected)) {
            std::printf("%s: dx[%d, %d, %d, %d] = %g, expected %g\n", name, n, h, w, c, got, float(Element(expected)));
            return 1;
          }
        }
  std::printf("%s, tile at (%d, %d, %d, %d): %d values copied out where expected\n", name, n0, i0, j0, c0,
              written);
  return written > 0 ? 0 : 1;
}

// A tile inside dx but for its rows past the phase, and one off the edges of images, rows, columns and channels.
template <class Kernel, int kTileM, int kGroups>
int check_thread_stores(char const* name) {
  return check_thread_stores<Kernel, kTileM, kGroups>(name, 0, 0, 0, 128) |
         check_thread_stores<Kernel, kTileM, kGroups>(name, 2, 2, 16, 192);
}

// Warp stores of one kernel on one tile box (n, h, w): the slices of every consumer thread against the rows its
// stmatrix writes and the box decomposition.
template <class Kernel, int kTileM>
int check_warp_slices(char const* name, uint32_t box_n, uint32_t box_h, uint32_t box_w) {
  iree_cutlass_sm90::DgradShape d{};
  d.box_n = box_n; d.box_h = box_h; d.box_w = box_w;
  if (!Kernel::warp_slice_exact(d)) {
    std::printf("%s box %ux%ux%u: 16-row slices do not tile the box\n", name, box_n, box_h, box_w);
    return 1;
  }
  using Store = decltype(make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, cutlass::half_t>{},
                                           typename Kernel::BlockTiledMma{}));
  auto const store_tv = Store{}.get_layoutS_TV();   // (thread, value) -> row + kTileM * column of the block
  int const threads = int(size<0>(store_tv));
  std::vector<int> owner(kTileM, -1);               // the warp that stores each tile row
  for (int thread = 0; thread < threads; ++thread) {
    int const warp = thread / 32;
    auto const slices = Kernel::WarpSlices::make(d, thread);
    for (int i = 0; i < Kernel::kWarpSlices; ++i) {
      int const row0 = slices.first_row + i * Kernel::kWarpSliceStride;
      auto const slice = Kernel::warp_slice(d);
      // The slice's offset in the tile's box, as the warp's storer unpacks it.
      int const n_offset = int(slices.packed[i] >> 18), h_offset = int(slices.packed[i] >> 9 & 511u),
                w_offset = int(slices.packed[i] & 511u);
      if (row0 % 16 != 0 || row0 + 16 > kTileM) {
        std::printf("%s box %ux%ux%u: thread %d slice %d at row %d, not 16 rows of the tile\n", name, box_n, box_h,
                    box_w, thread, i, row0);
        return 1;
      }
      for (int r = 0; r < 16; ++r) {
        int const row = row0 + r;
        if (owner[row] != -1 && owner[row] != warp) {
          std::printf("%s box %ux%ux%u: row %d stored by warps %d and %d\n", name, box_n, box_h, box_w, row,
                      owner[row], warp);
          return 1;
        }
        owner[row] = warp;
        // TMA order in the slice box: columns fastest, then rows, then images.
        int const bn = n_offset + r / int(slice.w * slice.h), bh = h_offset + r / int(slice.w) % int(slice.h),
                  bw = w_offset + r % int(slice.w);
        if (bn != row / int(box_w * box_h) || bh != row / int(box_w) % int(box_h) || bw != row % int(box_w)) {
          std::printf("%s box %ux%ux%u: slice row %d of row %d lands at (%d, %d, %d)\n", name, box_n, box_h, box_w,
                      r, row0, bn, bh, bw);
          return 1;
        }
      }
    }
    for (int value = 0; value < int(size<1>(store_tv)); ++value) {
      int const row = int(store_tv(thread, value)) % kTileM;
      bool mine = false;
      for (int i = 0; i < Kernel::kWarpSlices; ++i) {
        int const row0 = slices.first_row + i * Kernel::kWarpSliceStride;
        mine |= row >= row0 && row < row0 + 16;
      }
      if (!mine) {
        std::printf("%s: thread %d stages row %d outside its warp's slices\n", name, thread, row);
        return 1;
      }
    }
  }
  for (int row = 0; row < kTileM; ++row) {
    if (owner[row] == -1) {
      std::printf("%s box %ux%ux%u: row %d stored by no warp\n", name, box_n, box_h, box_w, row);
      return 1;
    }
  }
  std::printf("%s box %ux%ux%u: warp slices agree\n", name, box_n, box_h, box_w);
  return 0;
}

int main() {
  using cutlass::half_t;
  using iree_cutlass_sm90::DgradKernel;
  // Cooperative (256 threads, one group), warpgroup stores (two groups of 128 over the halves), ping-pong.
  using Cooperative = DgradKernel<half_t, 128, 256, 2, 1, false, 1, 0, 0, 1, false, false, 1, false, true>;
  using WarpgroupStores = DgradKernel<half_t, 128, 256, 2, 1, false, 1, 0, 2, 1, true, false, 1, false, true>;
  using Pingpong = DgradKernel<half_t, 128, 128, 2, 1, true, 1, 0, 0, 1, false, false, 1, false, true>;
  using Wide = DgradKernel<half_t, 256, 128, 2, 1, false, 1, 0, 1, 1, false, false, 1, false, true>;
  // Warp stores: cooperative 128- and 256-row tiles, ping-pong 128 and 64, on boxes of every aspect.
  using WarpCooperative = DgradKernel<half_t, 128, 256, 2, 1, false, 1, 0, 2, 1, false, false, 1, false, false,
                                      false, true>;
  using WarpWide = DgradKernel<half_t, 256, 128, 2, 1, false, 1, 0, 1, 1, false, false, 1, false, false, false, true>;
  using WarpPingpong = DgradKernel<half_t, 128, 128, 2, 1, true, 1, 0, 2, 1, false, false, 1, false, false, false,
                                   true>;
  using WarpPingpong64 = DgradKernel<half_t, 64, 128, 2, 1, true, 1, 0, 2, 1, false, false, 1, false, false, false,
                                     true>;
  int warp_failures = 0;
  for (auto [n, h, w] : {std::array<uint32_t, 3>{1, 1, 128}, {1, 8, 16}, {2, 4, 16}, {1, 16, 8}, {4, 8, 4},
                         {8, 8, 2}, {16, 4, 2}, {128, 1, 1}, {32, 2, 2}, {2, 2, 32}, {1, 2, 64}}) {
    warp_failures |= check_warp_slices<WarpCooperative, 128>("warp stores 128x256", n, h, w);
    warp_failures |= check_warp_slices<WarpPingpong, 128>("warp stores ping-pong 128x128", n, h, w);
    warp_failures |= check_warp_slices<WarpWide, 256>("warp stores 256x128", 2 * n, h, w);
    warp_failures |= check_warp_slices<WarpWide, 256>("warp stores 256x128", n, h, 2 * w);
  }
  for (auto [n, h, w] : {std::array<uint32_t, 3>{1, 4, 16}, {1, 1, 64}, {4, 4, 4}, {64, 1, 1}, {2, 2, 16}}) {
    warp_failures |= check_warp_slices<WarpPingpong64, 64>("warp stores ping-pong 64x128", n, h, w);
  }
  return warp_failures | check<128>() | check<192>() | check<256>() | check_pingpong_transposed<128, 64>() |
         check_pingpong_transposed<256, 64>() | check_pingpong_transposed<128, 128>() |
         check_thread_stores<Cooperative, 128, 1>("cooperative 128x256") |
         check_thread_stores<WarpgroupStores, 128, 2>("warpgroup stores 128x256") |
         check_thread_stores<Pingpong, 128, 1>("ping-pong 128x128") |
         check_thread_stores<Wide, 256, 1>("cooperative 256x128");
}
