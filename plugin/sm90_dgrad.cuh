// Hopper (sm_90a) implicit-GEMM convolution backward-data with TMA loads and warpgroup MMA (wgmma), built from
// CUTLASS's CuTe primitives, in IREE's hal.dispatch.extern CUDA ABI.
//
//   dx[n, h, w, c] = sum over r, s, k of dy[n, p, q, k] * w_rsck[r, s, c, k]
//                    with h = p * stride_h - pad_h + r and w = q * stride_w - pad_w + s
//
// How the work is cut:
// - Output phases. For stride > 1 each dx row h = stride_h * i + ph belongs to one phase ph; only the filter taps
//   r with r == (ph + pad_h) mod stride_h reach it, and for those p = i + (ph + pad_h - r) / stride_h exactly. So
//   every phase is a unit-stride convolution over its own taps: the zeros a dilated dy would hold are never
//   loaded or multiplied. A phase with no taps is written as zeros: for a 1x1 filter with stride > 1 and no
//   padding (only phase (0, 0) has taps) the walk covers that phase alone and the producer warpgroup's three idle
//   warps write every other phase's zeros with plain stores while the consumers compute (zero fill, chosen by the
//   host through the phase count); otherwise the walk's tiles of an empty phase store zeros like any tile.
// - Spatial M tiles. A tile is box_n x box_h x box_w outputs of one phase (box_n * box_h * box_w == kTileM), by
//   kTileN channels. For each (tap, 64-channel block of K) one 4-D TMA box of dy (64 x box_w x box_h x box_n,
//   128-byte swizzle) lands in shared memory exactly as a K-major A tile; coordinates that fall off dy (padding,
//   borders) are filled with zeros by the TMA unit, which is what makes the implicit GEMM exact.
// - Clipped taps (kClipTaps): a tap whose dy rows or columns all lie outside dy for a tile's box reads only the
//   zeros TMA fills in, so the tile skips it (on a 7x7 image with a 3x3 filter and one-pixel boxes, 18% of the
//   multiplies); the walk then puts border boxes after the interior ones, so that every persistent CTA draws a mix
//   of full and clipped tiles. Not for M clusters, whose CTAs share one tap's filter tile.
// - B is the forward filter in its natural RSCK (HWIO) layout: for one tap it is a K-major [C, K] matrix, one
//   3-D TMA box (64 x kTileN x 1) per stage.
// - Warp specialization: warpgroup 0 is the producer (one thread issues TMA); warpgroups 1 and 2 multiply
//   (each owns half of the tile's rows), with the producer's registers moved to them by setmaxnreg. They stage
//   the tile in shared memory (128-byte swizzle) and one thread stores it with TMA: a 4-D box per 64 channels
//   into the phase's view of dx (strided rows and columns), which clips whatever falls outside dx. With
//   warpgroup stores (kWgStores) each warpgroup stages and stores its own half of the rows with a half-height
//   box, so the two never wait for each other in the epilogue. The store drains while the consumers start the
//   next tile. With thread stores (kThreadStores) the consumer threads copy the staged tile out instead (16-byte
//   shared loads and global stores, edges clipped per thread), which keeps dx off the TMA unit the loads use.
//   With warp stores (kWarpStores) each consumer warp stages and stores the 16 rows of each 64-row slice of the
//   block that its own accumulator holds (a 16-row box): no barrier between warps in the epilogue at all.
//   With a warpgroup offset (kWgOffset) warpgroup 1 starts kWgOffset K blocks behind warpgroup 0 and stays
//   behind, so one warpgroup's epilogue and next decode run while the other still multiplies.
//   The grid is persistent: each CTA walks tiles blockIdx.x, blockIdx.x + gridDim.x, ..., decoding each with
//   divisions by host-computed multiply-high constants (FastDivisor). In ping-pong kernels each consumer
//   warpgroup walks every tile, its partner's included, to keep count of the stage ring; with kSkipPartner, in a
//   walk of one phase without clipped taps, it moves the ring on over the partner's tiles without decoding them
//   (each decode is ~200 dependent integer instructions a warp). With a box walk (kBoxWalk) each CTA takes whole
//   boxes instead (every channel unit of box blockIdx.x, then of box blockIdx.x + gridDim.x, ...): it reads a box's
//   dy again itself a tile later, from L2 however far the CTAs drift apart, and decodes only a box's first tile.
//
// - Clusters (kCluster 2): two CTAs of a cluster take two neighbouring M tiles of the same phase and channel
//   block, and each loads half of the shared filter tile once for both (TMA multicast): a third less traffic from
//   L2 into shared memory per multiply for 128x256 tiles. A stage is refilled only when the consumers of both
//   CTAs have released it. The cluster shape is compiled in (__cluster_dims__), so IREE's plain launch works.
//   With kShareDy the cluster lies along the channels instead (cuDNN's Hopper 1x1 kernels share this way): the
//   two CTAs take neighbouring channel blocks of the same M tile, and each loads half of the shared dy tile (the
//   half box of the tile's slowest dimension of extent 2 or more) for both, and its own filter tile.
//
// - Resident filter (kResidentK > 0, 1x1 filters only): the CTA's whole filter slab (kTileN channels x every K)
//   is loaded once into shared memory and kept while the CTA's tiles share its channel block, so only dy streams
//   through the stage ring: the L2 traffic of the filter disappears and the ring holds more, smaller stages.
//   The slab is reloaded (after every consumer warp has released it) only when a tile's channel block changes.
//
// - Split-K across a cluster (kSplitK 2 or 4, for layers with too few tiles to fill the GPU): the kSplitK CTAs of
//   a cluster take the same tile and each multiplies one contiguous slice of its (tap, K block) iterations. They
//   exchange f32 partial sums through distributed shared memory: each writes its accumulator to its own shared
//   memory and signals every peer; the CTA of rank b % kSplitK adds the peers' partials of 64-channel block b
//   to its own registers and stores that block. No workspace, no zero-filled counters, one kernel.
//
// - Transposed tiles (kTransposed): the same loads, with the MMA's operands
//   swapped, so it computes dx^T: the filter tile (64 or 128 channels) is wgmma's M and the dy tile's pixels its
//   N, which can be any multiple of 8 up to 256 a warpgroup (tile_m 128 to 512). The accumulator is written into
//   the usual (pixels x 64 channels) staging blocks with transposing stmatrix. The host walks a 1x1 unit-stride
//   problem as flat pixels (sm90.py `kernel_problem`), so tiles of 192 or 384 pixels waste nothing. With
//   kTileBuffers 2 consecutive tiles stage into two buffers, so one tile's stores drain while the next is staged.
//   With 128 channels a store ring (kStoreSlots) takes one warpgroup's 64 channels a block: one slot halves the
//   staging, which buys a 192x128 tile a fifth stage (cuDNN's kernel for the 7x7 C = 512 layer has five).
//   Ping-pong transposed tiles (64 channels by 128 or 256 pixels, or 128 by 128) give each consumer warpgroup
//   whole tiles in turns, each with its own staging tile, so one warpgroup's epilogue runs under the other's MMAs:
//   on the short-K 1x1 layers and the strided 3x3 ones (whose output phases take 1-4 taps) a tile multiplies 1-8
//   K blocks and then stores as many bytes as a long GEMM tile would.
//
// - Halo tiles (kHaloBlocks > 0; transposed, 64 channels, unit stride): the taps of a filter read the same dy
//   pixels shifted, so a tile loads them once per K block instead of once per tap. Its box is one image's rows,
//   box_w >= W + S - 1 wide (the columns past W are junk: computed, never stored, the dx store clips them), and
//   the halo box (box_h + R - 1 rows of box_w pixels, from tap (R-1, S-1)'s corner) lands as pixel rows of 128
//   bytes; tap (r, s)'s B operand is that buffer shifted by (R - 1 - r) * box_w + (S - 1 - s) pixel rows. wgmma
//   reads a 128-byte-swizzled operand that starts at any 128-byte row, with base offset 0: the swizzle follows
//   the address (bench/wgmma_shift_probe.cu, session 25, on an H100: every shift 0-15 right, both operands). The
//   whole filter (taps x K blocks of 64 x 64) stays resident, as for 1x1 resident filters. On the 3x3 C = K = 64
//   layer the per-tap loads made the kernel load-bound (no MMA at all: 0.99x its time; dy loaded once a tile:
//   0.69x; H100, session 25). Ping-pong halo tiles give each consumer warpgroup whole tiles in turns, so one
//   warpgroup's epilogue runs under the other's MMAs; a warpgroup stages its tile in the halo stage it has just
//   multiplied (the shared memory of two staging tiles does not fit beside the slab) and frees that stage once its
//   dx store has read it.
//
// IREE's HAL cannot build TMA descriptors on the host at dispatch time, so each CTA builds its descriptors (dy,
// the filter, and dx once per phase) on the device: zeroed, every field set with tensormap.replace, copied to
// the CTA's own slot of the workspace binding with a release fence, and acquired before first use.
#pragma once

#include <cstdint>

#include <cute/tensor.hpp>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/cluster_sm90.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/numeric_types.h>

namespace iree_cutlass_sm90 {

using namespace cute;

// x / value as a multiply-high and a shift (CUTLASS's FastDivmod), for 0 <= x < 2^31. The host computes the
// multiplier and shift (sm90.py `fast_divisor`); as push constants they stay in the parameter bank, costing no
// registers, and a division is 2-3 instructions instead of ~20.
struct FastDivisor {
  uint32_t value, multiplier, shift;
  __device__ __forceinline__ int div(int x) const {
    return value == 1 ? x : int(__umulhi(uint32_t(x), multiplier) >> shift);
  }
  __device__ __forceinline__ int divmod(int& remainder, int x) const {
    int const quotient = div(x);
    remainder = x - quotient * int(value);
    return quotient;
  }
};

// The push constants, in kernel-parameter order after the four bindings.
struct DgradShape {
  uint32_t n, h, w, c, k, r, s, p, q, pad_h, pad_w, stride_h, stride_w;
  uint32_t box_n, box_h, box_w;  // the spatial M tile, chosen by the host (box_n * box_h * box_w == kTileM)
  uint32_t slots;                // descriptor slots in the workspace (one per CTA): at least gridDim.x
  // The divisors of a tile decode (TileWalk), checked against the shape once by the kernel. The consumers decode
  // each tile between its predecessor's last wgmma and its own first, with the tensor cores idle; with
  // hardware-style divisions that was ~300 instructions a warp, 17% of the stall samples of the 1x1 c1024/k256
  // layer at batch 256 (ncu, session 8).
  FastDivisor tiles_c, phases, tiles_w, tiles_h, stride_h_div, stride_w_div;
};

constexpr int kTileK = 64;            // 64 16-bit elements: one 128-byte swizzle row
constexpr int kThreads = 384;         // producer warpgroup + two consumer warpgroups
constexpr int kDescBytes = 128;       // one TMA descriptor
constexpr int kConsumerBarrier = 1;   // first named barrier id of the consumers (0 is __syncthreads; 1-4 used)
constexpr int kOffsetBarrier = 5;     // warpgroup offset: warpgroup 1 waits here for warpgroup 0's head start

// Descriptors per CTA: dy, the filter, then dx for every output phase.
__device__ __forceinline__ int descriptor_count(uint32_t stride_h, uint32_t stride_w) {
  return 2 + int(stride_h * stride_w);
}

// One tile of the persistent walk, decoded identically by the producer and the consumers.
struct Tile {
  int n0, i0, j0, c0;            // first image, first phase row, first phase column, first channel
  int ph, pw;                    // the output phase
  int rows, cols;                // extent of this phase: ceil((H - ph) / stride_h) x ceil((W - pw) / stride_w)
  int r_first, taps_h, s_first, taps_w;
  int dy_row0, dy_col0;          // dy row/column of tap 0 for phase row/column 0: (ph + pad) / stride
  bool live;                     // false when the tile lies entirely outside its phase (nothing to store)
};

// The persistent walk is over units: one tile, or with clusters one tile per CTA of the cluster (neighbouring M
// tiles of the same phase and channel block, so they run the same taps and share the filter tile).
struct TileWalk {
  DgradShape d;
  int cluster;     // CTAs of a unit along M (neighbouring spatial tiles, sharing the filter tile)
  int cluster_c;   // CTAs of a unit along the channels (neighbouring channel blocks, sharing the dy tile)
  int tiles_c, tiles_n, tiles_h, tiles_w, tiles_m, phases, count, kblocks;
  bool zero_fill;  // the walk covers phase (0, 0) only; the other phases are zero-filled beside it
  bool clip;       // kClipTaps: each tile skips the taps that read only dy's padding, and border boxes walk last

  // tiles_c counts channel units of tile_n * cluster_c channels (the host's divisor).
  __device__ TileWalk(DgradShape const& shape, int tile_n, int cluster_m, int cluster_n, bool clip_taps = false)
      : d(shape), cluster(cluster_m), cluster_c(cluster_n), clip(clip_taps) {
    tiles_c = int(d.tiles_c.value);
    tiles_n = (d.n + d.box_n - 1) / d.box_n;
    tiles_h = int(d.tiles_h.value);
    tiles_w = int(d.tiles_w.value);
    phases = int(d.phases.value);
    zero_fill = phases == 1 && d.stride_h * d.stride_w > 1;
    tiles_m = tiles_w * tiles_h * tiles_n;
    count = tiles_c * phases * ((tiles_m + cluster - 1) / cluster);
    kblocks = (d.k + kTileK - 1) / kTileK;
  }

  // Whether the host's divisors are the ones this shape and channel unit imply (checked once, by thread 0).
  __device__ static bool divisors_match(DgradShape const& d, int tile_n) {
    uint32_t const rows_max = (d.h + d.stride_h - 1) / d.stride_h;
    uint32_t const cols_max = (d.w + d.stride_w - 1) / d.stride_w;
    bool const phases_match = d.phases.value == d.stride_h * d.stride_w ||
                              (d.phases.value == 1 && zero_fill_shape(d));
    return d.tiles_c.value == (d.c + tile_n - 1) / tile_n && phases_match &&
           d.tiles_w.value == (cols_max + d.box_w - 1) / d.box_w &&
           d.tiles_h.value == (rows_max + d.box_h - 1) / d.box_h &&
           d.stride_h_div.value == d.stride_h && d.stride_w_div.value == d.stride_w &&
           exact(d.tiles_c) && exact(d.phases) && exact(d.tiles_w) && exact(d.tiles_h) && exact(d.stride_h_div) &&
           exact(d.stride_w_div);
  }

  // The shapes whose only phase with filter taps is (0, 0): 1x1 filters with stride > 1 and no padding.
  __device__ static bool zero_fill_shape(DgradShape const& d) {
    return d.r == 1 && d.s == 1 && d.pad_h == 0 && d.pad_w == 0 && d.stride_h * d.stride_w > 1 && d.c % 8 == 0;
  }

  // A spot check of a divisor's multiplier and shift at the edges of its first two quotients.
  __device__ static bool exact(FastDivisor const& by) {
    int const v = int(by.value);
    return v >= 1 && by.div(v) == 1 && by.div(2 * v - 1) == 1 && by.div(2 * v) == 2 && by.div(v - 1) == 0;
  }

  // Channels vary fastest, then phases, so CTAs running together share the same dy rows in L2. `rank` picks
  // the CTA's tile within a cluster's unit (along M or along the channels). Every dividend is non-negative and
  // below 2^31.
  //
  // With `clip` (no M clusters) the images vary fastest within a phase, then the box columns, then the box rows,
  // each of those two in border_last order: a persistent CTA's tiles then mix full tiles with border tiles, whose
  // clipped taps make them lighter, instead of some CTAs drawing only full ones.
  __device__ Tile decode(int index, int tile_n, int rank = 0) const {
    Tile t;
    int cn, phase, tw, th, tn;
    int rest = d.tiles_c.divmod(cn, index);
    rest = d.phases.divmod(phase, rest);
    int const m = rest * cluster + (cluster > 1 ? rank : 0);
    if (clip) {
      tn = m % tiles_n;
      th = border_last(d.tiles_w.divmod(tw, m / tiles_n), tiles_h);
      tw = border_last(tw, tiles_w);
    } else {
      tn = d.tiles_h.divmod(th, d.tiles_w.divmod(tw, m));
    }
    t.ph = d.stride_w_div.divmod(t.pw, phase);
    t.rows = int(d.h) > t.ph ? d.stride_h_div.div(int(d.h) - t.ph + int(d.stride_h) - 1) : 0;
    t.cols = int(d.w) > t.pw ? d.stride_w_div.div(int(d.w) - t.pw + int(d.stride_w) - 1) : 0;
    t.n0 = tn * d.box_n;
    t.i0 = th * d.box_h;
    t.j0 = tw * d.box_w;
    t.c0 = (cn * cluster_c + (cluster_c > 1 ? rank : 0)) * tile_n;
    t.dy_row0 = d.stride_h_div.divmod(t.r_first, t.ph + int(d.pad_h));
    t.dy_col0 = d.stride_w_div.divmod(t.s_first, t.pw + int(d.pad_w));
    t.taps_h = t.r_first < int(d.r) ? d.stride_h_div.div(int(d.r) - 1 - t.r_first) + 1 : 0;
    t.taps_w = t.s_first < int(d.s) ? d.stride_w_div.div(int(d.s) - 1 - t.s_first) + 1 : 0;
    t.live = t.i0 < t.rows && t.j0 < t.cols && t.n0 < int(d.n) && t.c0 < int(d.c);
    if (clip) {
      // Tap th reads dy rows i + dy_row0 - th for the box's stored rows i (columns alike): a tap whose rows (or
      // columns) all fall outside dy multiplies only the zeros TMA fills in, so the tile skips it. On ResNet-50's
      // 3x3 layer at 7x7 that is 80 of every 441 tap-pixels.
      int const lo_h = max(0, t.i0 + t.dy_row0 - (int(d.p) - 1));
      int const hi_h = min(t.taps_h - 1, min(t.i0 + int(d.box_h), t.rows) - 1 + t.dy_row0);
      int const lo_w = max(0, t.j0 + t.dy_col0 - (int(d.q) - 1));
      int const hi_w = min(t.taps_w - 1, min(t.j0 + int(d.box_w), t.cols) - 1 + t.dy_col0);
      t.r_first += lo_h * int(d.stride_h);
      t.s_first += lo_w * int(d.stride_w);
      t.dy_row0 -= lo_h;
      t.dy_col0 -= lo_w;
      t.taps_h = max(0, hi_h - lo_h + 1);
      t.taps_w = max(0, hi_w - lo_w + 1);
    }
    return t;
  }

  // Box index i of `count` in the order the interior boxes first, then the first, then the last.
  __device__ static int border_last(int i, int count) {
    return i < count - 2 ? i + 1 : i == count - 2 ? 0 : count - 1;
  }

  // Whether any CTA of the cluster has a tile to store in this unit: then all of them run its mainloop.
  __device__ bool unit_live(int index, int tile_n) const {
    for (int rank = 0; rank < cluster * cluster_c; ++rank) {
      if (decode(index, tile_n, rank).live) return true;
    }
    return false;
  }

  __device__ int iterations(Tile const& t) const { return t.taps_h * t.taps_w * kblocks; }
};

// ---------------------------------------------------------------------------------------------------------------
// TMA descriptors built on the device. Field values follow the PTX ISA's tensormap.replace rules (CUDA 12.5+:
// strides in bytes); a zeroed descriptor is tile mode, no interleave, no L2 promotion, zero OOB fill.

__device__ __forceinline__ uint32_t smem_u32(void const* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

template <int kRank>
__device__ void build_tensormap(uint8_t* smem_desc, void* gmem_slot, void const* base,
                                uint32_t const (&dims)[kRank], uint64_t const (&strides)[kRank - 1],
                                uint32_t const (&box)[kRank], int lane) {
  reinterpret_cast<uint32_t*>(smem_desc)[lane] = 0u;
  __syncwarp();
  if (lane == 0) {
    uint32_t desc = smem_u32(smem_desc);
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;"
                 :: "r"(desc), "l"(reinterpret_cast<uint64_t>(base)) : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], %1;"
                 :: "r"(desc), "r"(kRank - 1) : "memory");
    asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 1;" :: "r"(desc) : "memory");  // 16-bit
    asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 3;" :: "r"(desc) : "memory");  // 128B
#pragma unroll
    for (int i = 0; i < kRank; ++i) {
      // The dimension index is an immediate operand: unrolled constants only.
      switch (i) {
#define IREE_CUTLASS_SET_DIM(I)                                                                           \
  case I:                                                                                                 \
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], " #I ", %1;"              \
                 :: "r"(desc), "r"(dims[I]) : "memory");                                                  \
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], " #I ", %1;"                 \
                 :: "r"(desc), "r"(box[I]) : "memory");                                                   \
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], " #I ", %1;"          \
                 :: "r"(desc), "r"(1) : "memory");                                                        \
    break;
        IREE_CUTLASS_SET_DIM(0)
        IREE_CUTLASS_SET_DIM(1)
        IREE_CUTLASS_SET_DIM(2)
        IREE_CUTLASS_SET_DIM(3)
        IREE_CUTLASS_SET_DIM(4)
#undef IREE_CUTLASS_SET_DIM
      }
    }
#pragma unroll
    for (int i = 0; i + 1 < kRank; ++i) {
      switch (i) {
#define IREE_CUTLASS_SET_STRIDE(I)                                                                        \
  case I:                                                                                                 \
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], " #I ", %1;"           \
                 :: "r"(desc), "l"(strides[I]) : "memory");                                               \
    break;
        IREE_CUTLASS_SET_STRIDE(0)
        IREE_CUTLASS_SET_STRIDE(1)
        IREE_CUTLASS_SET_STRIDE(2)
        IREE_CUTLASS_SET_STRIDE(3)
#undef IREE_CUTLASS_SET_STRIDE
      }
    }
  }
  __syncwarp();
  asm volatile(
      "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
      :: "l"(reinterpret_cast<uint64_t>(gmem_slot)), "r"(smem_u32(smem_desc)) : "memory");
}

// Makes a descriptor another warp of this CTA released (before a __syncthreads) visible to the tensormap proxy.
__device__ __forceinline__ void acquire_tensormap(void const* gmem_desc) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;"
               :: "l"(reinterpret_cast<uint64_t>(gmem_desc)) : "memory");
  // ptxas can drop the acquire above unless a bulk-async group follows it (the workaround Triton uses too).
  asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;" ::: "memory");
}

// Split-K's shared memory: the CTA's f32 partial tile, as float4 groups of each consumer thread's accumulator
// ([group][thread][4], so the owner's writes and the peers' reads are contiguous across threads), and the two
// cluster barriers that hand it over.
template <int kFloats>
struct SplitKStorage {
  alignas(1024) float partial[kFloats];
  uint64_t partial_full;    // every CTA of the cluster has written its partial of the current tile
  uint64_t partial_empty;   // every CTA has finished reading this CTA's partial of the previous tile
};
template <>
struct SplitKStorage<0> {};

// Cluster-scope handover of shared memory between the CTAs of a cluster (split-K): a remote arrive that
// releases this thread's (and, after __syncwarp, its warp's) writes at cluster scope, and a wait that acquires
// the peers' writes.
__device__ __forceinline__ void arrive_cluster(uint64_t const* barrier, uint32_t cta) {
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}"
      :: "r"(smem_u32(barrier)), "r"(cta) : "memory");
}

__device__ __forceinline__ void wait_cluster(uint64_t const* barrier, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\t"
      "WAIT:\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}"
      :: "r"(smem_u32(barrier)), "r"(parity) : "memory");
}

// Four floats of a peer CTA's shared memory, at the address `local` has in this CTA.
__device__ __forceinline__ float4 load_peer(float const* local, uint32_t cta) {
  float4 v;
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %4, %5;\n\t"
      "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n\t}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(smem_u32(local)), "r"(cta) : "memory");
  return v;
}

// ---------------------------------------------------------------------------------------------------------------

// kTileM: rows of one tile (cooperative: split over both consumer warpgroups; ping-pong: one warpgroup's).
// kCtasPerSm 1: registers move from the producer warpgroup (56 a thread) to the consumers (224) with setmaxnreg
// (the register file is split in four quadrants of 16384, so 12 warps get 168 each at entry).
// kCtasPerSm 2: two CTAs share an SM, each hiding the other's epilogue behind its mainloop; every thread keeps
// the entry budget of 80 registers (room for a 64x64 accumulator).
// kResidentK: 0 streams the filter through the stage ring; N > 0 keeps a filter slab of N 64-wide K blocks
// resident (1x1 filters with K <= 64 * N, no clusters).
// kSplitK: 1, or 2 or 4 CTAs of a cluster splitting each tile's reduction (cooperative, no M cluster, whole-tile
// staging).
// kWgStores (cooperative 128-row tiles with a store ring): each consumer warpgroup stages and stores its own 64
// rows of every block (its own storer thread, its own named barrier, a half-height dx box), so the two warpgroups
// never wait for each other in the epilogue and can drift apart: one converts while the other multiplies.
// kStoreSlots: 0 stages the whole output tile at once (the next tile's epilogue waits until its TMA store has
// read all of it); E >= 1 stages it one 64-channel block at a time through a ring of E block-sized slots that
// runs on across tiles, so a block waits only for the store issued E blocks earlier: stores keep flowing while
// the tile is converted, and the ring can be smaller (more mainloop stages; one slot leaves a 256x128 tile four
// stages, as cuDNN's kernel for the 1x1 1024<-512 layer has) or larger (two tiles in flight).
// kThreadStores: the staged blocks leave shared memory through the consumer threads (16-byte loads from shared
// memory, 16-byte global stores, edges clipped by each thread) instead of TMA stores. A TMA store shares the SM's
// TMA unit with the producer's loads, so it may wait behind them, and the staging slot with it.
// kWgRelease: in a 2-CTA cluster each consumer warpgroup releases a stage once to each CTA (its warp d signals
// CTA d), as CUTLASS's multicast pipeline does: 4 arrivals a stage on each CTA's barrier instead of 16 (every
// consumer warp to both). One warp may speak for its warpgroup: a wgmma group completes for the whole warpgroup.
// kWarpStores (a store ring, not transposed): every consumer warp stages the rows its own accumulator holds (16 of
// each 64-row MMA slice) and its lane 0 stores them with a 16-row dx box, waiting only for the warp's own earlier
// stores: the 128- or 256-thread named barriers around each block (and the wait behind one storer) disappear.
// kWgOffset (cooperative, with warpgroup or warp stores, so the two warpgroups never meet in the epilogue):
// warpgroup 1 starts only once warpgroup 0 has issued its first kWgOffset K blocks. Both read every stage, so
// from then on warpgroup 0 runs about kWgOffset blocks ahead: while it converts and stores a tile and decodes the
// next, warpgroup 1 multiplies the last kWgOffset blocks of that tile alone (wgmma of one warpgroup can fill the
// tensor pipe), and the other way round. The stages it holds back cost warpgroup 0 as much prefetch depth, so
// kWgOffset < kStages; with kWgOffset <= kStages warpgroup 0 never waits for a stage warpgroup 1 must release
// before its head start is over (no deadlock).
template <class Element, int kTileM, int kTileN, int kStages, int kCtasPerSm, bool kPingpong, int kCluster,
          int kResidentK = 0, int kStoreSlots = 0, int kSplitK = 1, bool kWgStores = false, bool kTransposed = false,
          int kTileBuffers = 1, bool kShareDy = false, bool kThreadStores = false, bool kWgRelease = false,
          bool kWarpStores = false, int kWgOffset = 0, int kHaloBlocks = 0, int kHaloRows = 0,
          bool kClipTaps = false, bool kSkipPartner = false, bool kBoxWalk = false>
struct DgradKernel {
  static_assert(kCtasPerSm == 1 || kCtasPerSm == 2, "one or two CTAs per SM");
  static_assert(kCluster == 1 || kCluster == 2, "clusters of one or two CTAs, along M or (kShareDy) channels");
  static_assert(!kShareDy || (kCluster == 2 && kSplitK == 1 && kResidentK == 0),
                "a dy-sharing cluster is two CTAs along the channels, without split-K or a resident filter");
  static_assert(kPingpong ? (kTileM == 64 || kTileM == 128 || (kTransposed && kTileM == 256))
                           : (kTileM == 128 || kTileM == 256 || kTransposed),
                "cooperative tiles are 128 or 256 rows (two warpgroups), ping-pong tiles 64 or 128 (one; transposed "
                "tiles 256 pixels)");
  static_assert(kTileN % 64 == 0 && kTileN <= 256, "N tile is 64, 128, 192 or 256 channels");
  static_assert(sizeof(Element) == 2, "16-bit operands");
  static_assert(kResidentK == 0 || kCluster == 1, "a resident filter slab is not shared across a cluster");
  static_assert(kStoreSlots >= 0, "a store ring has slots");
  static_assert(kSplitK == 1 || ((kSplitK == 2 || kSplitK == 4) && !kPingpong && kCluster == 1 && kResidentK == 0 &&
                                 kStoreSlots == 0),
                "split-K is 2 or 4 CTAs, cooperative, without M clusters, resident filters or store rings");
  static_assert(!kWgStores || (!kPingpong && kTileM == 128 && kStoreSlots >= 1 && kSplitK == 1),
                "warpgroup stores are for cooperative 128-row tiles with a store ring");
  static_assert(!kTransposed || ((!kPingpong || ((kTileN == 64 || (kTileN == 128 && kTileM == 128)) &&
                                                  kTileBuffers == 1 && kStoreSlots == 0)) &&
                                 kResidentK == 0 && kSplitK == 1 && (kTileN == 64 || kTileN == 128) &&
                                 kTileM % 64 == 0 && (kStoreSlots == 0 || (kTileN == 128 && kTileBuffers == 1))),
                "transposed tiles are 64 or 128 channels (ping-pong: 64, or 128 by 128 pixels, a staging tile per "
                "warpgroup), no resident filter or split-K; a store ring only with 128 channels and one staging tile");
  static_assert(kTileBuffers == 1 || (kTileBuffers == 2 && kTransposed), "two staging tiles are for transposed tiles");
  static_assert(!kThreadStores || kSplitK == 1, "thread stores are not for split-K kernels");
  static_assert(!kWgRelease || kCluster == 2, "a warpgroup release is for 2-CTA clusters");
  static_assert(!kWarpStores || (kStoreSlots >= 1 && !kTransposed && kSplitK == 1 && !kWgStores && !kThreadStores),
                "warp stores need a store ring, and are not for transposed, split-K, warpgroup- or thread-store "
                "kernels");
  static_assert(kWgOffset == 0 || (!kPingpong && !kTransposed && (kWgStores || kWarpStores) && kWgOffset < kStages),
                "a warpgroup offset is for cooperative kernels with warpgroup or warp stores, under the stage count");
  static_assert(kHaloBlocks == 0 ? kHaloRows == 0
                                  : (kTransposed && kTileN == 64 && kCluster == 1 && kStoreSlots == 0 &&
                                     !kThreadStores && kResidentK == 0 && kHaloRows % 8 == 0 &&
                                     kHaloRows >= kTileM),
                "halo tiles are transposed 64-channel tiles without a cluster, store ring, thread stores or a 1x1 "
                "slab; a halo stage holds a multiple of 8 pixel rows, at least a tile's");
  static_assert(!kClipTaps || (kHaloBlocks == 0 && (kCluster == 1 || kShareDy) && kSplitK == 1),
                "clipped taps are per tile: not for halo tiles, M clusters (whose CTAs share the filter tile of "
                "one tap) or split-K");
  static_assert(!kSkipPartner || (kPingpong && kResidentK == 0 && kHaloBlocks == 0),
                "skipping the partner's tiles is for ping-pong kernels without a filter slab (whose warpgroups "
                "count slabs over every tile)");
  static_assert(!kBoxWalk || (kCluster == 1 && kSplitK == 1 && kResidentK == 0 && kHaloBlocks == 0 && !kSkipPartner),
                "a box walk is for kernels of one CTA a unit without a filter slab (which keeps one channel block a "
                "CTA) or a partner skip");
  static constexpr int kClusterCtas = kCluster * kSplitK;   // CTAs of one cluster (__cluster_dims__)
  static constexpr bool kResident = kResidentK > 0;
  static constexpr bool kHalo = kHaloBlocks > 0;
  static constexpr bool kSlab = kResident || kHalo;   // a resident filter slab (1x1 K blocks, or every tap's)
  // B buffers: the slab's blocks or the ring's stages.
  static constexpr int kBBlocks = kResident ? kResidentK : kHalo ? kHaloBlocks : kStages;
  static constexpr int kStageRows = kHalo ? kHaloRows : kTileM;   // dy pixel rows of one stage
  static constexpr int kRowUnits = kTileK * int(sizeof(Element)) / 16;   // a pixel row in wgmma descriptor units

  using SmemLayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             make_shape(Int<kStageRows>{}, Int<kTileK>{}, Int<kStages>{})));
  using SmemLayoutB = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             make_shape(Int<kTileN>{}, Int<kTileK>{}, Int<kBBlocks>{})));
  using MmaOp = decltype(SM90::GMMA::ss_op_selector<Element, Element, float,
                                                    Shape<_64, Int<kTileN>, Int<kTileK>>,
                                                    GMMA::Major::K, GMMA::Major::K>());
  using TiledMma = decltype(make_tiled_mma(
      MmaOp{}, Layout<Shape<Int<kPingpong ? 1 : 2>, _1, _1>>{}));
  // Transposed (kTransposed): the MMA computes dx^T, channels by pixels: its A operand is the filter tile
  // (kTileN x 64, K-major, as loaded), its B operand the dy tile (kTileM x 64, K-major, as loaded). The two
  // consumer warpgroups split the channels (128: 64 each, all pixels) or, with 64 channels, the pixels (half
  // each); in ping-pong one warpgroup takes the whole tile (128 channels: two m64 MMAs a K step, as the
  // non-transposed 128-row ping-pong tiles). The pixel extent is the MMA's N, free in steps of 8 (cuDNN's 1x1
  // kernels on Hopper are of this kind: 64 x 512 for C = 64, 128 x 192 for the 7x7 C = 512 layer, whose 264
  // tiles fill two waves exactly).
  static constexpr int kTransposedN = kTileN == 64 && !kPingpong ? kTileM / 2 : kTileM;   // pixels per warpgroup
  using TransposedTiledMma = decltype(make_tiled_mma(
      decltype(SM90::GMMA::ss_op_selector<Element, Element, float,
                                          Shape<_64, Int<kTransposed ? kTransposedN : 64>, Int<kTileK>>,
                                          GMMA::Major::K, GMMA::Major::K>()){},
      Layout<Shape<Int<kTileN == 128 && !kPingpong ? 2 : 1>, Int<kTileN == 128 || kPingpong ? 1 : 2>, _1>>{}));
  using ConsumerMma = cute::conditional_t<kTransposed, TransposedTiledMma, TiledMma>;
  // The same warpgroups on one 64-channel block: the layout stage_block converts and stores a block in.
  using BlockTiledMma = decltype(make_tiled_mma(
      decltype(SM90::GMMA::ss_op_selector<Element, Element, float, Shape<_64, Int<kTileK>, Int<kTileK>>,
                                          GMMA::Major::K, GMMA::Major::K>()){},
      Layout<Shape<Int<kPingpong ? 1 : 2>, _1, _1>>{}));
  using SmemLayoutBlock = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                                 make_shape(Int<kTileM>{}, Int<kTileK>{})));
  static constexpr int kMmaThreads = kPingpong ? 128 : 256;      // threads sharing one tile
  // One staging tile per tile in flight in the consumers; transposed tiles may stage into two in turns
  // (kTileBuffers), so that a tile's stores drain while the next tile is staged.
  static constexpr int kStagingBuffers = kPingpong ? 2 : kTileBuffers;
  // Ping-pong halo tiles stage their output in the halo stage they have multiplied (no staging tiles of their own).
  static constexpr bool kStageInStage = kPingpong && kHaloBlocks > 0;

  // The output tile, staged as kTileN / 64 column blocks of kTileM x 64, each in the 128-byte swizzle that
  // the dx TMA store reads (the same layout as an A stage).
  using SmemLayoutD = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<Element>{},
                                             make_shape(Int<kTileM>{}, Int<kTileN>{})));
  // Elements of one staging buffer: the whole tile, or a ring of kStoreSlots blocks of kTileM x 64.
  static constexpr int kStagingElements = kStageInStage ? 8 : kStoreSlots ? kStoreSlots * kTileM * kTileK
                                                                           : int(cosize_v<SmemLayoutD>);
  static constexpr uint32_t kStageBytes = (kTileM + (kResident ? 0 : kTileN)) * kTileK * sizeof(Element);
  static constexpr uint32_t kBBlockBytes = kTileN * kTileK * sizeof(Element);   // one K block of the slab
  static constexpr int kSliceN = kShareDy ? kTileN : kTileN / kCluster;   // filter rows each CTA loads
  static constexpr int kClusterM = kShareDy ? 1 : kCluster;   // the walk's CTAs per unit along M
  static constexpr int kClusterC = kShareDy ? kCluster : 1;   // and along the channels
  static constexpr int kWarps = kThreads / 32;

  // An empty base without split-K, so other kernels keep their layout.
  struct SharedStorage : SplitKStorage<(kSplitK > 1 ? kTileM * kTileN : 0)> {
    alignas(1024) Element a[cosize_v<SmemLayoutA>];
    alignas(1024) Element b[cosize_v<SmemLayoutB>];
    alignas(1024) Element staging[kStagingBuffers][kStagingElements];
    alignas(8) uint64_t full[kStages];
    uint64_t empty[kStages];
    uint64_t turn[2];   // ping-pong: warpgroup w may multiply once turn[w] completes a phase
    uint64_t b_full;    // resident filter: the slab of the current channel block has landed
    uint64_t b_empty;   // resident filter: every consumer warp is done with the previous slab
    alignas(128) uint8_t tensormap[kWarps][kDescBytes];   // each warp builds its descriptors here
  };

  // Dynamic shared memory is only 16-byte aligned by contract: ask for 1 KiB more and align by hand.
  static constexpr int kSmemBytes = int(sizeof(SharedStorage)) + 1024;

  static __device__ void run(Element const* dy, Element const* w_rsck, Element* dx, uint8_t* workspace,
                             DgradShape const& shape) {
    extern __shared__ uint8_t smem_raw[];
    uintptr_t aligned = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023);
    SharedStorage& smem = *reinterpret_cast<SharedStorage*>(aligned);

    int const thread = threadIdx.x;
    int const warp = thread / 32;
    int const lane = thread % 32;

    if (thread == 0) {
      uint32_t dynamic_smem;
      asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_smem));
      // A launch that does not match what this kernel was built for would corrupt memory: fail loudly.
      if (blockDim.x != kThreads || blockDim.y != 1 || blockDim.z != 1 || gridDim.y != 1 || gridDim.z != 1 ||
          gridDim.x % kClusterCtas != 0 ||
          blockIdx.x >= shape.slots || dynamic_smem < uint32_t(kSmemBytes) ||
          shape.box_n * shape.box_h * shape.box_w != uint32_t(kTileM) ||
          !TileWalk::divisors_match(shape, kTileN * kClusterC) || (kShareDy && !half_box_exact(shape)) ||
          (kWarpStores && !warp_slice_exact(shape)) ||
          (kResident && (shape.r * shape.s != 1 || (shape.k + kTileK - 1) / kTileK > uint32_t(kResidentK))) ||
          ((reinterpret_cast<uintptr_t>(dy) | reinterpret_cast<uintptr_t>(w_rsck) |
            reinterpret_cast<uintptr_t>(dx)) & 15) != 0) {
        __trap();
      }
      if constexpr (kHalo) {
        if (!halo_fits(shape)) __trap();
      }
#pragma unroll
      for (int stage = 0; stage < kStages; ++stage) {
        cutlass::arch::ClusterTransactionBarrier::init(&smem.full[stage], 1);
        // Released by the tile's consumer warps (kWgRelease: warpgroups) in every CTA of the cluster (they all
        // read this stage's shared operand).
        cutlass::arch::ClusterBarrier::init(&smem.empty[stage], kMmaThreads / (kWgRelease ? 128 : 32) * kCluster);
      }
      cutlass::arch::ClusterBarrier::init(&smem.turn[0], 1);
      cutlass::arch::ClusterBarrier::init(&smem.turn[1], 1);
      cutlass::arch::ClusterBarrier::arrive(&smem.turn[0]);  // warpgroup 0 multiplies first
      cutlass::arch::ClusterTransactionBarrier::init(&smem.b_full, 1);
      cutlass::arch::ClusterBarrier::init(&smem.b_empty, 256 / 32);  // both consumer warpgroups, either schedule
      if constexpr (kSplitK > 1) {
        // Every consumer warp of every CTA in the cluster arrives once per tile on each CTA's barriers.
        cutlass::arch::ClusterBarrier::init(&smem.partial_full, 256 / 32 * kSplitK);
        cutlass::arch::ClusterBarrier::init(&smem.partial_empty, 256 / 32 * kSplitK);
      }
      cutlass::arch::fence_barrier_init();
    }

    // This CTA's descriptor slot, 128-byte aligned (the workspace is allocated with 128 bytes of slack).
    int const descriptors = descriptor_count(shape.stride_h, shape.stride_w);
    uint8_t* slot = reinterpret_cast<uint8_t*>(
        (reinterpret_cast<uintptr_t>(workspace) + 127) & ~uintptr_t(127)) +
        size_t(blockIdx.x) * descriptors * kDescBytes;
    for (int index = warp; index < descriptors; index += kWarps) {
      build_descriptor(index, smem.tensormap[warp], slot + index * kDescBytes, dy, w_rsck, dx, shape, lane);
    }
    __syncthreads();
    if constexpr (kClusterCtas > 1) cute::cluster_sync();  // the peer's barriers exist before anyone signals them

    TileWalk const walk(shape, kTileN, kClusterM, kClusterC, kClipTaps);
    if (warp < 4) {
      if constexpr (kCtasPerSm == 1) cutlass::arch::warpgroup_reg_dealloc<56>();
      if (warp == 0 && lane == 0) produce(smem, walk, slot);
      if (warp > 0 && walk.zero_fill) zero_fill_phases(dx, shape, thread - 32, 96);
    } else {
      if constexpr (kCtasPerSm == 1) cutlass::arch::warpgroup_reg_alloc<224>();
      consume(smem, walk, slot, dx, thread - 128);
    }
    if constexpr (kClusterCtas > 1) {
      // No CTA leaves while its peer may still arrive on its barriers (or, split-K, read its partial).
      __syncwarp();
      cute::cluster_sync();
    }
  }

  // Whether a halo kernel walks this shape: unit stride, one image's rows a box spanning every column a tap
  // reads, the halo box within TMA's extents and a stage, every tap's K blocks in the slab.
  static __device__ bool halo_fits(DgradShape const& d) {
    uint32_t const halo_h = d.box_h + d.r - 1;
    return d.stride_h == 1 && d.stride_w == 1 && d.box_n == 1 && d.w + d.s - 1 <= d.box_w && halo_h <= 256 &&
           halo_h * d.box_w + d.s - 1 <= uint32_t(kHaloRows) &&
           d.r * d.s * ((d.k + kTileK - 1) / kTileK) <= uint32_t(kHaloBlocks);
  }

  // Zero fill: the dx positions outside phase (0, 0), written by `threads` threads of this CTA with 16-byte
  // streaming stores (no shared memory, no TMA, no barrier: nothing else writes them). CTAs take dx rows
  // blockIdx.x, blockIdx.x + gridDim.x, ...: a row h % stride_h != 0 is zero from end to end, and in the other
  // rows the columns w % stride_w != 0, each C * 2 contiguous bytes (C is a multiple of 8).
  static __device__ void zero_fill_phases(Element* dx, DgradShape const& d, int thread, int threads) {
    int const chunks_per_pixel = int(d.c) / 8;
    int const row_chunks = int(d.w) * chunks_per_pixel;
    int const zero_cols = int(d.w) - (int(d.w) + int(d.stride_w) - 1) / int(d.stride_w);
    int const col_chunks = zero_cols * chunks_per_pixel;
    int const gaps = int(d.stride_w) - 1;  // zero columns between two columns of phase 0
    int const rows = int(d.n * d.h);
    uint4 const zero = make_uint4(0u, 0u, 0u, 0u);
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
      uint4* base = reinterpret_cast<uint4*>(dx + size_t(row) * d.w * d.c);
      if ((row % int(d.h)) % int(d.stride_h) != 0) {
        for (int j = thread; j < row_chunks; j += threads) __stcs(base + j, zero);
      } else {
        for (int j = thread; j < col_chunks; j += threads) {
          int const z = j / chunks_per_pixel;  // the z-th zero column of the row
          int const col = z / gaps * int(d.stride_w) + 1 + z % gaps;
          __stcs(base + col * chunks_per_pixel + (j - z * chunks_per_pixel), zero);
        }
      }
    }
  }

  // Descriptor `index` of this CTA: 0 = dy as (K, Q, P, N), 1 = the filter as (K, C, R*S), 2 + phase = dx seen
  // from one output phase as (C, W_phase, H_phase, N) with the phase's strides.
  static __device__ void build_descriptor(int index, uint8_t* scratch, uint8_t* gmem_desc, Element const* dy,
                                          Element const* w_rsck, Element* dx, DgradShape const& d, int lane) {
    if (index == 0) {
      uint32_t dims[4] = {d.k, d.q, d.p, d.n};
      uint64_t strides[3] = {uint64_t(d.k) * 2, uint64_t(d.q) * d.k * 2, uint64_t(d.p) * d.q * d.k * 2};
      // A dy-sharing cluster's CTAs each load half of the dy tile.
      HalfBox const half = half_box(d);
      // A halo tile loads its box with the R - 1 rows above it that its taps read.
      uint32_t box[4] = {kTileK, kShareDy ? half.w : d.box_w,
                         kShareDy ? half.h : kHalo ? d.box_h + d.r - 1 : d.box_h, kShareDy ? half.n : d.box_n};
      build_tensormap<4>(scratch, gmem_desc, dy, dims, strides, box, lane);
    } else if (index == 1) {
      uint32_t dims[3] = {d.k, d.c, d.r * d.s};
      uint64_t strides[2] = {uint64_t(d.k) * 2, uint64_t(d.c) * d.k * 2};
      uint32_t box[3] = {kTileK, kSliceN, 1};
      build_tensormap<3>(scratch, gmem_desc, w_rsck, dims, strides, box, lane);
    } else {
      uint32_t const phase = index - 2;
      uint32_t const ph = phase / d.stride_w, pw = phase % d.stride_w;
      // A phase no output falls in (H <= ph) is never stored to; give it a valid one-row shape.
      uint32_t const rows = d.h > ph ? (d.h - ph + d.stride_h - 1) / d.stride_h : 1;
      uint32_t const cols = d.w > pw ? (d.w - pw + d.stride_w - 1) / d.stride_w : 1;
      uint32_t dims[4] = {d.c, cols, rows, d.n};
      uint64_t strides[4 - 1] = {uint64_t(d.stride_w) * d.c * 2, uint64_t(d.stride_h) * d.w * d.c * 2,
                                 uint64_t(d.h) * d.w * d.c * 2};
      // With warpgroup stores each warpgroup stores half of the tile's rows: the dx box is half as tall; with
      // warp stores each warp stores 16 rows at a time.
      HalfBox const half = half_box(d);
      SliceBox const slice = kWarpStores ? warp_slice(d) : SliceBox{};
      uint32_t box[4] = {kTileK, kWarpStores ? slice.w : kWgStores ? half.w : d.box_w,
                         kWarpStores ? slice.h : kWgStores ? half.h : d.box_h,
                         kWarpStores ? slice.n : kWgStores ? half.n : d.box_n};
      Element* base = dx + (size_t(ph < d.h ? ph : 0) * d.w + (pw < d.w ? pw : 0)) * d.c;
      build_tensormap<4>(scratch, gmem_desc, base, dims, strides, box, lane);
    }
  }

  static __device__ void produce(SharedStorage& smem, TileWalk const& walk, uint8_t const* slot) {
    void const* desc_a = slot;
    void const* desc_b = slot + kDescBytes;
    acquire_tensormap(desc_a);
    acquire_tensormap(desc_b);
    uint64_t const hint = static_cast<uint64_t>(TMA::CacheHintSm90::EVICT_NORMAL);
    int const rank = kCluster > 1 ? int(cute::block_rank_in_cluster()) : 0;
    HalfBox const half = half_box(walk.d);
    int stage = 0;
    uint32_t phase = 0;
    int slab_c0 = -1;       // resident filter: the channel block in shared memory
    uint32_t slabs = 0;     // resident filter: slabs loaded so far
    Tile box{};             // box walk: the box's first tile
    int cu = 0;             // box walk: the channel unit within the box
    for (int index = first_unit(walk); index < walk.count; index = next_unit(walk, index, cu)) {
      Tile t;
      if (!unit_tile(walk, index, cu, rank, box, t)) continue;
      if constexpr (kSlab) {
        // The slab: every tap's filter blocks of the tile's channel block (block tap * kblocks + kb; a 1x1
        // resident filter has the one tap), loaded when the channel block changes.
        if (t.c0 != slab_c0) {
          // Wait for every consumer warp to leave the previous slab (passes at once for the first one).
          cutlass::arch::ClusterBarrier::wait(&smem.b_empty, (slabs & 1u) ^ 1u);
          int const taps = kHalo ? int(walk.d.r * walk.d.s) : 1;
          cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.b_full,
                                                                        kBBlockBytes * taps * walk.kblocks);
          for (int tap = 0; tap < taps; ++tap) {
            for (int kb = 0; kb < walk.kblocks; ++kb) {
              Element* block = smem.b + (tap * walk.kblocks + kb) * kTileN * kTileK;
              SM90_TMA_LOAD_3D::copy(desc_b, &smem.b_full, hint, block, kb * kTileK, t.c0, tap);
            }
          }
          slab_c0 = t.c0;
          ++slabs;
        }
      }
      if constexpr (kHalo) {
        // Per K block one halo box: the tile's rows and the R - 1 above them, from tap (R - 1, S - 1)'s first
        // column.
        uint32_t const halo_bytes = (walk.d.box_h + walk.d.r - 1) * walk.d.box_w * kTileK * sizeof(Element);
        for (int kb = 0; kb < walk.kblocks; ++kb) {
          cutlass::arch::ClusterBarrier::wait(&smem.empty[stage], phase ^ 1);
          cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.full[stage], halo_bytes);
          SM90_TMA_LOAD_4D::copy(desc_a, &smem.full[stage], hint, smem.a + stage * kStageRows * kTileK,
                                 kb * kTileK, t.j0 + t.dy_col0 - (t.taps_w - 1), t.i0 + t.dy_row0 - (t.taps_h - 1),
                                 t.n0);
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
      if constexpr (kSplitK > 1) {
        // This CTA's slice of the tile's iterations, in the order of the loops below (taps by row, by column,
        // then K blocks); the filter streams through the ring (no cluster multicast, no resident slab).
        int const iterations = walk.iterations(t);
        int const split = split_rank();
        int const last = slice_begin(iterations, split + 1);
        for (int it = slice_begin(iterations, split); it < last; ++it) {
          int const kb = it % walk.kblocks;
          int const tap_index = it / walk.kblocks;
          int const tw = tap_index % t.taps_w;
          int const th = tap_index / t.taps_w;
          int const tap = (t.r_first + th * walk.d.stride_h) * walk.d.s + t.s_first + tw * walk.d.stride_w;
          cutlass::arch::ClusterBarrier::wait(&smem.empty[stage], phase ^ 1);
          cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.full[stage], kStageBytes);
          SM90_TMA_LOAD_4D::copy(desc_a, &smem.full[stage], hint, smem.a + stage * kTileM * kTileK,
                                 kb * kTileK, t.j0 + t.dy_col0 - tw, t.i0 + t.dy_row0 - th, t.n0);
          SM90_TMA_LOAD_3D::copy(desc_b, &smem.full[stage], hint, smem.b + stage * kTileN * kTileK,
                                 kb * kTileK, t.c0, tap);
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
        continue;
      }
      for (int th = 0; th < (kHalo ? 0 : t.taps_h); ++th) {   // a halo tile's loads are above
        int const r = t.r_first + th * walk.d.stride_h;
        int const dy_row = t.i0 + t.dy_row0 - th;
        for (int tw = 0; tw < t.taps_w; ++tw) {
          int const s = t.s_first + tw * walk.d.stride_w;
          int const dy_col = t.j0 + t.dy_col0 - tw;
          int const tap = r * walk.d.s + s;
          for (int kb = 0; kb < walk.kblocks; ++kb) {
            cutlass::arch::ClusterBarrier::wait(&smem.empty[stage], phase ^ 1);
            cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.full[stage], kStageBytes);
            if constexpr (kShareDy) {
              // This CTA's half of the dy tile lands in both CTAs of the cluster (the peer loads the other).
              SM90_TMA_LOAD_MULTICAST_4D::copy(desc_a, &smem.full[stage], uint16_t(0b11), hint,
                                               smem.a + stage * kTileM * kTileK + rank * (kTileM / 2) * kTileK,
                                               kb * kTileK, dy_col + rank * half.w_offset,
                                               dy_row + rank * half.h_offset, t.n0 + rank * half.n_offset);
            } else {
              SM90_TMA_LOAD_4D::copy(desc_a, &smem.full[stage], hint, smem.a + stage * kTileM * kTileK,
                                     kb * kTileK, dy_col, dy_row, t.n0);
            }
            if constexpr (kResident) {
              // The filter is in the slab already.
            } else if constexpr (kCluster > 1 && !kShareDy) {
              // This CTA's slice of the filter tile lands in every CTA of the cluster.
              Element* b_slice = smem.b + stage * kTileN * kTileK + rank * kSliceN * kTileK;
              SM90_TMA_LOAD_MULTICAST_3D::copy(desc_b, &smem.full[stage], uint16_t((1 << kCluster) - 1), hint,
                                               b_slice, kb * kTileK, t.c0 + rank * kSliceN, tap);
            } else {
              SM90_TMA_LOAD_3D::copy(desc_b, &smem.full[stage], hint, smem.b + stage * kTileN * kTileK,
                                     kb * kTileK, t.c0, tap);
            }
            if (++stage == kStages) {
              stage = 0;
              phase ^= 1;
            }
          }
        }
      }
    }
  }

  static __device__ void consume(SharedStorage& smem, TileWalk const& walk, uint8_t const* slot, Element* dx,
                                 int thread) {
    int const wg = thread / 128;                      // consumer warpgroup 0 or 1
    int const mma_thread = kPingpong ? thread % 128 : thread;
    ConsumerMma tiled_mma;
    auto thr_mma = tiled_mma.get_thread_slice(mma_thread);
    Tensor sA = make_tensor(make_smem_ptr(smem.a), SmemLayoutA{});  // (M, K, stage)
    Tensor sB = make_tensor(make_smem_ptr(smem.b), SmemLayoutB{});  // (N, K, stage)
    Element* staging = smem.staging[kPingpong ? wg : 0];
    // wgmma descriptors (MMA, M, K, stage): dy then the filter, or transposed the filter then dy.
    // Halo tiles: descriptors of one tile's pixel rows (kTileM x 64) at the start of the ring, moved to each stage
    // and tap's shifted start in the mainloop.
    auto const sDy = cute::conditional_return(cute::bool_constant<kHalo>{},
                                              make_tensor(make_smem_ptr(smem.a), SmemLayoutBlock{}), sA);
    auto const transposed = cute::bool_constant<kTransposed>{};
    Tensor tCrA = thr_mma.make_fragment_A(thr_mma.partition_A(cute::conditional_return(transposed, sB, sDy)));
    Tensor tCrB = thr_mma.make_fragment_B(thr_mma.partition_B(cute::conditional_return(transposed, sDy, sB)));
    Tensor accum = partition_fragment_C(tiled_mma, Shape<Int<kTransposed ? kTileN : kTileM>,
                                                         Int<kTransposed ? kTileM : kTileN>>{});

    // One thread per tile owner (warp stores: per warp) issues the dx stores; it acquires the phases'
    // descriptors once.
    bool const storer = kWarpStores ? thread % 32 == 0
                                    : !kThreadStores && (kWgStores ? thread % 128 == 0 : mma_thread == 0);
    if (storer) {
      for (int phase = 0; phase < walk.phases; ++phase) acquire_tensormap(slot + (2 + phase) * kDescBytes);
    }

    // Thread stores: the tile rows this thread copies out, as box offsets (the same for every block and tile).
    ThreadRows const rows = ThreadRows::make(walk.d, kWgStores ? thread % 128 : mma_thread,
                                             kWgStores ? wg * kTileM / 2 : 0);
    // Warp stores: the box offsets of this warp's row slices (the same for every block and tile).
    WarpSlices const slices = WarpSlices::make(walk.d, mma_thread);

    // Warpgroup offset: warpgroup 0 counts down its head start; warpgroup 1 waits until it is over.
    int head_start = kWgOffset > 0 && wg == 0 ? kWgOffset : 0;
    if constexpr (kWgOffset > 0) {
      if (wg == 1) asm volatile("bar.sync %0, 256;" :: "n"(kOffsetBarrier) : "memory");
    }

    int const lane = thread % 32;
    int const rank = kCluster > 1 ? int(cute::block_rank_in_cluster()) : 0;
    int stage = 0;
    uint32_t phase_bit = 0;
    uint32_t turn_bit = 0;
    int store_slot = 0;     // store ring: the slot the next 64-channel block is staged in
    uint32_t staged = 0;    // two staging tiles: tiles staged so far (they alternate)
    uint32_t reduced = 0;   // split-K: tiles reduced so far (the parity of the partial barriers)
    // kSkipPartner: in a walk of one phase without clipped taps every unit is live (each of its extents is a
    // ceiling division, so every unit's first tile starts inside) and every tile runs the same taps, so the
    // partner's tiles move the stage ring on by one count, undecoded.
    bool const uniform = kSkipPartner && walk.phases == 1 && !walk.clip;
    int const uniform_iterations = uniform ? walk.iterations(walk.decode(0, kTileN)) : 0;
    int live = 0;
    int slab_c0 = -1;       // resident filter: the channel block of the slab this warpgroup multiplies with
    uint32_t slabs = 0;
    Tile box{};             // box walk: the box's first tile
    int cu = 0;             // box walk: the channel unit within the box
    for (int index = first_unit(walk); index < walk.count; index = next_unit(walk, index, cu)) {
      if constexpr (kSkipPartner) {
        if (uniform && (live & 1) != wg) {
          ++live;
          int const advanced = stage + uniform_iterations;
          phase_bit ^= uint32_t(advanced / kStages) & 1u;
          stage = advanced % kStages;
          continue;
        }
      }
      Tile t;
      if (!unit_tile(walk, index, cu, rank, box, t)) continue;
      int iterations = kHalo ? walk.kblocks : walk.iterations(t);   // a halo stage serves every tap
      if constexpr (kSplitK > 1) {
        int const split = split_rank();
        iterations = slice_begin(iterations, split + 1) - slice_begin(iterations, split);
      }
      if constexpr (kSlab) {
        // Every warpgroup sees every tile in order (ping-pong too, its partner's included), so all consumer
        // warps count slabs alike. This warpgroup's MMAs on the old slab are complete (warpgroup_wait<0>).
        if (t.c0 != slab_c0) {
          if (slab_c0 >= 0) release_slab(smem, lane);
          slab_c0 = t.c0;
          ++slabs;
        }
      }
      if constexpr (kPingpong) {
        // Live tiles alternate between the warpgroups; the other one's tile only moves the stage ring on.
        if ((live++ & 1) != wg) {
          int const advanced = stage + iterations;
          phase_bit ^= uint32_t(advanced / kStages) & 1u;
          stage = advanced % kStages;
          continue;
        }
        cutlass::arch::ClusterBarrier::wait(&smem.turn[wg], turn_bit);
        turn_bit ^= 1;
      }

      if constexpr (kSlab) cutlass::arch::ClusterTransactionBarrier::wait(&smem.b_full, (slabs - 1) & 1u);
      // The tile's first wgmma overwrites the accumulator (scale-d 0) rather than adding to a zeroed one: no
      // 64-128 register clears per tile (3.2 M of the c512/k128 layer's 29.5 M instructions).
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      int previous = -1;
      for (int it = 0; it < iterations; ++it) {
        cutlass::arch::ClusterTransactionBarrier::wait(&smem.full[stage], phase_bit);
        if constexpr (kHalo) {
          // Iteration `it` is K block `it`, one stage: each tap is a batch that multiplies its slab block with the
          // halo shifted to the tap's start (descriptor units of 16 bytes; a pixel row is 128). Taps in a runtime
          // loop inside one batch made ptxas serialize the wgmmas (C7520).
          for (int th = 0; th < t.taps_h; ++th) {
            for (int tw = 0; tw < t.taps_w; ++tw) {
              int const shift = (t.taps_h - 1 - th) * int(walk.d.box_w) + (t.taps_w - 1 - tw);
              Tensor tCrH = make_tensor(tCrB.data() + (stage * kStageRows + shift) * kRowUnits, tCrB.layout());
              int const block = (th * int(walk.d.s) + tw) * walk.kblocks + it;
              warpgroup_fence_operand(accum);
              warpgroup_arrive();
              CUTE_UNROLL
              for (int kb = 0; kb < size<2>(tCrA); ++kb) {
                cute::gemm(tiled_mma, tCrA(_, _, kb, block), tCrH(_, _, kb), accum);
                tiled_mma.accumulate_ = GMMA::ScaleOut::One;
              }
              warpgroup_commit_batch();
              // Keep one tap in flight; once the previous stage's last tap has finished, free that stage.
              warpgroup_wait<1>();
              warpgroup_fence_operand(accum);
              if (previous >= 0) release(smem, previous, lane);
              previous = -1;
            }
          }
        } else {
          warpgroup_fence_operand(accum);
          warpgroup_arrive();
          CUTE_UNROLL
          for (int kb = 0; kb < size<2>(tCrA); ++kb) {
            // Resident filter: 1x1, so iteration `it` is K block `it` of the slab.
            cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, kResident ? it : stage), accum);
            tiled_mma.accumulate_ = GMMA::ScaleOut::One;
          }
          warpgroup_commit_batch();
          if constexpr (kWgOffset > 0) {
            if (head_start > 0 && --head_start == 0) end_head_start();
          }
          // Keep one batch in flight; the one before it has finished reading its stage, so free that stage.
          warpgroup_wait<1>();
          warpgroup_fence_operand(accum);
          if (previous >= 0) release(smem, previous, lane);
        }
        previous = stage;
        if (++stage == kStages) {
          stage = 0;
          phase_bit ^= 1;
        }
      }
      warpgroup_wait<0>();
      warpgroup_fence_operand(accum);
      // A ping-pong halo tile keeps its last stage: it stages its output there, and frees it after the store.
      if (previous >= 0 && !kStageInStage) release(smem, previous, lane);
      if (iterations == 0) {
        // A tile no filter tap reaches (an empty phase of a strided layer) is zeros. The empty asm keeps
        // this a branch: if-converted, it became 128 selects on every tile, and as an else arm around the
        // mainloop the accumulator spilled and ptxas serialized the wgmmas.
        asm volatile("" ::: "memory");
        clear(accum);
        warpgroup_fence_operand(accum);
      }
      if constexpr (kPingpong) {
        if (mma_thread == 0) cutlass::arch::ClusterBarrier::arrive(&smem.turn[wg ^ 1]);  // the other's turn
      }

      // A cluster peer's tile can outlive this CTA's one at the edge: then this CTA only helped load.
      if (!t.live) {
        if constexpr (kStageInStage) release(smem, previous, lane);
        continue;
      }
      if constexpr (kStoreSlots > 0) {
        store_blocks(accum, mma_thread, staging, store_slot, storer, wg,
                     slot + (2 + t.ph * walk.d.stride_w + t.pw) * kDescBytes, t, walk.d, rows, slices, dx);
        continue;
      }
      if constexpr (kSplitK > 1) {
        reduce_and_store(smem, accum, thr_mma, staging, storer, thread, lane,
                         slot + (2 + t.ph * walk.d.stride_w + t.pw) * kDescBytes, t, reduced++);
        continue;
      }
      // Epilogue: wait until the previous tile's stores have read the staging tile, then stage this one. With two
      // staging tiles, until those of the tile before it (which used the same one) have.
      if constexpr (kTileBuffers == 2) {
        staging = smem.staging[staged++ & 1];
        if (storer) tma_store_wait<1>();
      } else if constexpr (kStageInStage) {
        staging = smem.a + previous * kStageRows * kTileK;   // its own last stage: no earlier store reads it
      } else {
        if (storer) tma_store_wait<0>();
      }
      tile_sync(wg);
      // The staging tile holds its 64-channel blocks one after another (kTileM x 64 each).
      if constexpr (kTransposed) {
        stage_transposed(accum, staging, mma_thread);
      } else {
        CUTE_UNROLL
        for (int block = 0; block < kTileN / kTileK; ++block) {
          stage_block(accum, block, staging + block * kTileM * kTileK, mma_thread);
        }
      }
      cutlass::arch::fence_view_async_shared();  // make the stores visible to the TMA (async proxy)
      tile_sync(wg);
      if constexpr (kThreadStores) {
        // The next tile's staging waits at tile_sync until every thread has copied this one out.
        CUTE_UNROLL
        for (int block = 0; block < kTileN / kTileK; ++block) {
          rows.copy_out(staging + block * kTileM * kTileK, t, walk.d, t.c0 + block * kTileK, dx);
        }
      }
      if (storer) {
        void const* desc_d = slot + (2 + t.ph * walk.d.stride_w + t.pw) * kDescBytes;
        CUTE_UNROLL
        for (int block = 0; block < kTileN / kTileK; ++block) {
          SM90_TMA_STORE_4D::copy(desc_d, staging + block * kTileM * kTileK,
                                  t.c0 + block * kTileK, t.j0, t.i0, t.n0);
        }
        tma_store_arrive();
      }
      if constexpr (kStageInStage) {
        // The stage takes the producer's next halo once the store has read it.
        if (storer) tma_store_wait<0>();
        tile_sync(wg);
        release(smem, previous, lane);
      }
    }
    // A walk shorter than the head start (warpgroup 0 did all of it) lets warpgroup 1 go at the end.
    if constexpr (kWgOffset > 0) {
      if (head_start > 0) end_head_start();
    }
    if (storer) {
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
  }

  // Warpgroup 0's arrival that lets warpgroup 1 begin (kWgOffset).
  static __device__ __forceinline__ void end_head_start() {
    asm volatile("bar.arrive %0, 256;" :: "n"(kOffsetBarrier) : "memory");
  }

  // Thread stores: the threads sharing a staged block (the tile's owners, or with warpgroup stores one warpgroup)
  // copy it out in 16-byte chunks, thread g taking chunk g % 8 of rows g / 8, g / 8 + kGroup / 8, ...: a warp
  // writes four rows of 128 contiguous bytes at a time. The rows' box offsets are decoded once per kernel and
  // kept packed (n, h, w of at most 256 each, 9 bits apiece). Host-callable for the CPU test of the copy.
  // Tile row m's offset in the tile's box (image, row, column), packed n << 18 | h << 9 | w (extents of at most
  // 256): how thread stores and warp stores keep their rows' box positions.
  static CUTE_HOST_DEVICE uint32_t packed_box_offset(DgradShape const& d, uint32_t m) {
    return m / (d.box_w * d.box_h) << 18 | m / d.box_w % d.box_h << 9 | m % d.box_w;
  }
  static constexpr int kCopyThreads = (kPingpong || kWgStores) ? 128 : 256;
  static constexpr int kCopyRows = (kWgStores ? kTileM / 2 : kTileM);
  static constexpr int kRowsPerThread = kThreadStores ? kCopyRows * 8 / kCopyThreads : 1;
  static_assert(!kThreadStores || (kRowsPerThread >= 1 && kRowsPerThread <= 8 && kCopyRows * 8 % kCopyThreads == 0),
                "thread stores keep at most eight rows a thread");
  struct ThreadRows {
    uint32_t packed[kRowsPerThread];   // box offset (n << 18 | h << 9 | w) of each tile row this thread copies
    int first_row;                     // the first of them; the next are kCopyThreads / 8 rows apart
    int chunk;                         // the 16-byte chunk (8 channels) of every row it copies

    // `row0`: the first tile row of the threads' share (with warpgroup stores, the warpgroup's half).
    static CUTE_HOST_DEVICE ThreadRows make(DgradShape const& d, int group_thread, int row0) {
      ThreadRows rows{};
      if constexpr (kThreadStores) {
        rows.chunk = group_thread % 8;
        rows.first_row = row0 + group_thread / 8;
        CUTE_UNROLL
        for (int i = 0; i < kRowsPerThread; ++i) {
          rows.packed[i] = packed_box_offset(d, uint32_t(rows.first_row + i * (kCopyThreads / 8)));
        }
      }
      return rows;
    }

    // Copies this thread's chunks of the staged (kTileM x 64) block `slot` to dx channels [channel0, channel0 +
    // 64) of tile t, leaving out rows outside the phase or dx and channels past C (C is a multiple of 8).
    CUTE_HOST_DEVICE void copy_out(Element const* slot, Tile const& t, DgradShape const& d, int channel0,
                                   Element* dx) const {
      int const c = channel0 + chunk * 8;
      if (c >= int(d.c)) return;
      // Through a tensor on the shared-memory pointer, as stmatrix staged it: the 128-byte swizzle acts on the
      // address there, and evaluating SmemLayoutBlock as a function (element offsets) gives other chunks for
      // three rows in four (measured: every `_ts` kernel's dx wrong in session 15's first GPU call).
      Tensor const staged = make_tensor(make_smem_ptr(slot), SmemLayoutBlock{});
      CUTE_UNROLL
      for (int i = 0; i < kRowsPerThread; ++i) {
        int const n = t.n0 + int(packed[i] >> 18), h = t.i0 + int(packed[i] >> 9 & 511u),
                  w = t.j0 + int(packed[i] & 511u);
        if (n >= int(d.n) || h >= t.rows || w >= t.cols) continue;
        int const m = first_row + i * (kCopyThreads / 8);
        uint4 const v = *reinterpret_cast<uint4 const*>(&staged(m, chunk * 8));
        size_t const pixel = (size_t(n) * d.h + size_t(h) * d.stride_h + t.ph) * d.w + size_t(w) * d.stride_w + t.pw;
        *reinterpret_cast<uint4*>(dx + pixel * d.c + c) = v;
      }
    }
  };

  // Warp stores: warp v of a warpgroup holds rows [16 v, 16 v + 16) of each 64-row slice of the warpgroup's MMA
  // (wgmma's accumulator layout), so of a block it stages and stores rows first_row + i * kWarpSliceStride + [0,
  // 16) for i < kWarpSlices, each with the 16-row box at its offset in the tile's box (packed_box_offset).
  // Host-callable for the CPU test of the slices.
  static constexpr int kWarpRows = 16;
  static constexpr int kWarpSlices = kWarpStores ? (kPingpong ? kTileM : kTileM / 2) / 64 : 1;
  static constexpr int kWarpSliceStride = kPingpong ? 64 : 128;
  struct WarpSlices {
    uint32_t packed[kWarpSlices];   // box offset (n << 18 | h << 9 | w) of each slice's first row
    int first_row;

    static CUTE_HOST_DEVICE WarpSlices make(DgradShape const& d, int mma_thread) {
      WarpSlices slices{};
      if constexpr (kWarpStores) {
        slices.first_row = (kPingpong ? 0 : mma_thread / 128 * 64) + mma_thread % 128 / 32 * kWarpRows;
        CUTE_UNROLL
        for (int i = 0; i < kWarpSlices; ++i) {
          slices.packed[i] = packed_box_offset(d, uint32_t(slices.first_row + i * kWarpSliceStride));
        }
      }
      return slices;
    }
  };

  // The epilogue through the store ring: each 64-channel block of the tile is converted into the next ring
  // slot, once the store that used that slot E blocks ago has read it, and stored on its own bulk group (with
  // thread stores: copied out by the threads, which have read the slot by the next block's barrier).
  template <class Accum>
  static __device__ __forceinline__ void store_blocks(Accum const& accum, int mma_thread, Element* ring,
                                                      int& store_slot, bool storer, int wg, void const* desc_d,
                                                      Tile const& t, DgradShape const& d, ThreadRows const& rows,
                                                      WarpSlices const& slices, Element* dx) {
    constexpr int kBlocks = kTileN / kTileK;
    constexpr int kBlockElements = kTileM * kTileK;
    // Warpgroup stores: this warpgroup's 64 rows are the first or second half of each slot (8 KB of the 128-byte
    // swizzle, so the half stays 1024-byte aligned), stored with the half box at its offset in the tile.
    HalfBox const half = half_box(d);
    int const n0 = t.n0 + (kWgStores ? wg * half.n_offset : 0);
    int const i0 = t.i0 + (kWgStores ? wg * half.h_offset : 0);
    int const j0 = t.j0 + (kWgStores ? wg * half.w_offset : 0);
    int const half_offset = kWgStores ? wg * kBlockElements / 2 : 0;
    CUTE_UNROLL
    for (int block = 0; block < kBlocks; ++block) {
      if (storer) tma_store_wait<kStoreSlots - 1>();  // the store issued kStoreSlots blocks ago has read its slot
      block_sync(wg);
      Element* slot_base = ring + store_slot * kBlockElements;
      if constexpr (kTransposed) {
        // Block b is warpgroup b's 64 channels: it stages them while the other warpgroup waits.
        if (wg == block) stage_transposed_block(accum, slot_base, mma_thread % 128);
      } else {
        stage_block(accum, block, slot_base, mma_thread);
      }
      cutlass::arch::fence_view_async_shared();
      block_sync(wg);
      if constexpr (kThreadStores) {
        rows.copy_out(slot_base, t, d, t.c0 + block * kTileK, dx);
      }
      if (storer) {
        if constexpr (kWarpStores) {
          CUTE_UNROLL
          for (int i = 0; i < kWarpSlices; ++i) {
            uint32_t const offset = slices.packed[i];
            SM90_TMA_STORE_4D::copy(desc_d, slot_base + (slices.first_row + i * kWarpSliceStride) * kTileK,
                                    t.c0 + block * kTileK, t.j0 + int(offset & 511u), t.i0 + int(offset >> 9 & 511u),
                                    t.n0 + int(offset >> 18));
          }
        } else {
          SM90_TMA_STORE_4D::copy(desc_d, slot_base + half_offset, t.c0 + block * kTileK, j0, i0, n0);
        }
        tma_store_arrive();
      }
      if (++store_slot == kStoreSlots) store_slot = 0;
    }
  }

  // The threads that stage one store-ring block together: the tile's owners, with warpgroup stores each
  // warpgroup alone (named barriers 3 and 4; 1 and 2 serve tile_sync), with warp stores each warp alone.
  static __device__ __forceinline__ void block_sync(int wg) {
    if constexpr (kWarpStores) {
      __syncwarp();
    } else if constexpr (kWgStores) {
      asm volatile("bar.sync %0, 128;" :: "r"(kConsumerBarrier + 2 + wg) : "memory");
    } else {
      tile_sync(wg);
    }
  }

  // Split-K epilogue. Every CTA of the cluster publishes its partial tile; the CTA of rank b % kSplitK sums
  // the partials of 64-channel block b (its own from registers, the peers' through distributed shared memory)
  // and stores that block. A partial is overwritten only after every CTA has read it (partial_empty).
  template <class Accum, class ThrMma>
  static __device__ __forceinline__ void reduce_and_store(SharedStorage& smem, Accum& accum, ThrMma const& thr_mma,
                                                          Element* staging, bool storer, int thread, int lane,
                                                          void const* desc_d, Tile const& t, uint32_t reduced) {
    static_assert(size<0>(Accum{}) == kTileN / 2 && size<2>(Accum{}) == 1, "unexpected accumulator layout");
    static_assert(size(Accum{}) % 4 == 0, "float4 groups");
    constexpr int kBlocks = kTileN / kTileK;
    constexpr int kGroups = size(Accum{}) / 4;
    constexpr int kBlockValues = 32;   // flat mode-0 elements of one 64-channel block (per MMA_M)
    uint32_t const split = uint32_t(split_rank());
    uint32_t const parity = reduced & 1u;

    // Publish: wait until every CTA has read the previous tile's partial, then write this one.
    wait_cluster(&smem.partial_empty, parity ^ 1u);
    float4* mine = reinterpret_cast<float4*>(smem.partial);
    CUTE_UNROLL
    for (int g = 0; g < kGroups; ++g) {
      mine[g * 256 + thread] = make_float4(accum(4 * g), accum(4 * g + 1), accum(4 * g + 2), accum(4 * g + 3));
    }
    __syncwarp();
    if (lane == 0) {
      for (uint32_t cta = 0; cta < uint32_t(kSplitK); ++cta) arrive_cluster(&smem.partial_full, cta);
    }

    // Reduce this CTA's blocks into its registers.
    wait_cluster(&smem.partial_full, parity);
    CUTE_UNROLL
    for (int block = 0; block < kBlocks; ++block) {
      if (uint32_t(block % kSplitK) != split) continue;
      CUTE_UNROLL
      for (int mm = 0; mm < size<1>(accum); ++mm) {
        CUTE_UNROLL
        for (int v = block * kBlockValues; v < (block + 1) * kBlockValues; v += 4) {
          int const e = v + mm * size<0>(accum);   // flat element of (v, mm, 0)
          CUTE_UNROLL
          for (int peer = 1; peer < kSplitK; ++peer) {
            float4 const other = load_peer(smem.partial + (e / 4 * 256 + thread) * 4, (split + peer) % kSplitK);
            accum(e) += other.x;
            accum(e + 1) += other.y;
            accum(e + 2) += other.z;
            accum(e + 3) += other.w;
          }
        }
      }
    }
    __syncwarp();
    if (lane == 0) {
      for (uint32_t cta = 0; cta < uint32_t(kSplitK); ++cta) arrive_cluster(&smem.partial_empty, cta);
    }
    if (kBlocks <= int(split)) return;   // no block of this tile is this CTA's

    // Stage and store this CTA's blocks, as the whole-tile epilogue does.
    if (storer) tma_store_wait<0>();
    tile_sync(0);
    Tensor sD = make_tensor(make_smem_ptr(staging), SmemLayoutD{});
    Tensor tCsD = thr_mma.partition_C(sD);
    CUTE_UNROLL
    for (int block = 0; block < kBlocks; ++block) {
      if (uint32_t(block % kSplitK) != split) continue;
      CUTE_UNROLL
      for (int mm = 0; mm < size<1>(accum); ++mm) {
        CUTE_UNROLL
        for (int v = block * kBlockValues; v < (block + 1) * kBlockValues; v += 2) {
          *reinterpret_cast<uint32_t*>(&tCsD(v, mm, 0)) = pack_pair(accum(v, mm, 0), accum(v + 1, mm, 0));
        }
      }
    }
    cutlass::arch::fence_view_async_shared();
    tile_sync(0);
    if (storer) {
      CUTE_UNROLL
      for (int block = 0; block < kBlocks; ++block) {
        if (uint32_t(block % kSplitK) != split) continue;
        SM90_TMA_STORE_4D::copy(desc_d, staging + block * kTileM * kTileK, t.c0 + block * kTileK, t.j0, t.i0, t.n0);
      }
      tma_store_arrive();
    }
  }

  // Synchronizes the threads that share a tile: both consumer warpgroups (cooperative) or one (ping-pong).
  // The dx box of warpgroup stores: the tile's box cut in two along its slowest dimension of extent 2 or more
  // (images, else rows, else columns), so that tile rows [0, 64) and [64, 128) are its two halves (box extents
  // are powers of two whose product is kTileM, checked at entry). The offsets place the second half.
  struct HalfBox {
    uint32_t n, h, w;
    int n_offset, h_offset, w_offset;
  };
  static __device__ __forceinline__ HalfBox half_box(DgradShape const& d) {
    if (d.box_n >= 2) return {d.box_n / 2, d.box_h, d.box_w, int(d.box_n / 2), 0, 0};
    if (d.box_h >= 2) return {d.box_n, d.box_h / 2, d.box_w, 0, int(d.box_h / 2), 0};
    return {d.box_n, d.box_h, d.box_w / 2, 0, 0, int(d.box_w / 2)};
  }
  // Whether the two halves cover the box exactly (the halved extent is even; a power-of-two tile's always is).
  static __device__ __forceinline__ bool half_box_exact(DgradShape const& d) {
    HalfBox const half = half_box(d);
    return 2 * half.n * half.h * half.w == uint32_t(kTileM);
  }

  // The dx box of warp stores: 16 consecutive tile rows from a multiple of 16 as a box of their own, columns
  // first, then rows, then images (its offset in the tile's box is packed_box_offset of its first row). The box's
  // extents are powers of two (their product is kTileM), so 16 rows are always a whole number of columns, rows or
  // images.
  struct SliceBox {
    uint32_t n, h, w;
  };
  static CUTE_HOST_DEVICE SliceBox warp_slice(DgradShape const& d) {
    uint32_t const w = d.box_w < uint32_t(kWarpRows) ? d.box_w : uint32_t(kWarpRows);
    uint32_t const h = d.box_h < kWarpRows / w ? d.box_h : kWarpRows / w;
    return {kWarpRows / (w * h), h, w};
  }
  // Whether the 16-row boxes tile the tile's box (checked at entry, after its extents' product).
  static CUTE_HOST_DEVICE bool warp_slice_exact(DgradShape const& d) {
    SliceBox const slice = warp_slice(d);
    return slice.n * slice.h * slice.w == uint32_t(kWarpRows) && d.box_n % slice.n == 0 && d.box_h % slice.h == 0 &&
           d.box_w % slice.w == 0;
  }

  static __device__ __forceinline__ void tile_sync(int wg) {
    if constexpr (kPingpong) {
      asm volatile("bar.sync %0, 128;" :: "r"(kConsumerBarrier + wg) : "memory");
    } else {
      asm volatile("bar.sync %0, 256;" :: "n"(kConsumerBarrier) : "memory");
    }
  }

  static __device__ __forceinline__ uint32_t pack_pair(float lo, float hi) {
    cutlass::Array<Element, 2> pair;
    pair[0] = Element(lo);
    pair[1] = Element(hi);
    return reinterpret_cast<uint32_t const&>(pair);
  }

  // Converts 64-channel block `block` of this thread's accumulator and writes it with stmatrix (four 8x8
  // matrices per instruction) into `slot`: kTileM x 64 in the 128-byte swizzle the dx TMA store reads. One
  // stmatrix replaces eight 32-bit stores and their swizzled address arithmetic, which made the epilogue the
  // kernel's largest instruction stream (ncu, session 7).
  template <class Accum>
  static __device__ __forceinline__ void stage_block(Accum const& accum, int block, Element* slot, int mma_thread) {
    static_assert(size<0>(Accum{}) == kTileN / 2 && size<2>(Accum{}) == 1, "unexpected accumulator layout");
    BlockTiledMma block_mma;
    auto tiled_store = make_tiled_copy_C(Copy_Atom<SM90_U32x4_STSM_N, Element>{}, block_mma);
    auto thr_store = tiled_store.get_slice(mma_thread);
    Tensor tSsD = thr_store.partition_D(make_tensor(make_smem_ptr(slot), SmemLayoutBlock{}));
    // The wgmma accumulator of one thread is ((2, 2, kTileN / 8), MMA_M, 1): column pairs, row halves and
    // 8-column groups, so block b is flat elements [32 b, 32 b + 32) of mode 0 of every MMA_M slice: the
    // accumulator a 64-channel MMA would hold.
    auto block_shape = shape(partition_fragment_C(block_mma, Shape<Int<kTileM>, Int<kTileK>>{}));
    Tensor acc = make_tensor(accum.data() + 32 * block,
                             make_layout(block_shape, make_stride(make_stride(_1{}, _2{}, _4{}),
                                                                  Int<kTileN / 2>{}, _0{})));
    Tensor converted = make_tensor<Element>(block_shape);
    CUTE_UNROLL
    for (int v = 0; v < size(acc); v += 2) {
      *reinterpret_cast<uint32_t*>(&converted(v)) = pack_pair(acc(v), acc(v + 1));
    }
    copy(tiled_store, thr_store.retile_S(converted), tSsD);
  }

  // Transposed staging. The whole (channels x pixels) accumulator is converted and written with transposing
  // stmatrix into the staging tile, seen as (channels, pixels) over its (pixels, channels) layout: pixel rows of
  // 64 channels in the 128-byte swizzle, as the dx TMA store reads them. With a store ring (128 channels) each
  // warpgroup writes its own 64 channels, one ring slot (a kTileM x 64 block) seen the same way; a single-
  // warpgroup MMA of 64 channels gives its thread the same fragment. The stores and views are host-callable so
  // that a CPU test can check that both put every value where the other does (test_plugin_build.py).
  using WarpgroupTransposedMma = decltype(make_tiled_mma(
      decltype(SM90::GMMA::ss_op_selector<Element, Element, float,
                                          Shape<_64, Int<kTransposed ? kTransposedN : 64>, Int<kTileK>>,
                                          GMMA::Major::K, GMMA::Major::K>()){},
      Layout<Shape<_1, _1, _1>>{}));
  using TransposedTileStore = decltype(make_tiled_copy_C(Copy_Atom<SM90_U16x8_STSM_T, Element>{},
                                                         TransposedTiledMma{}));
  using TransposedBlockStore = decltype(make_tiled_copy_C(Copy_Atom<SM90_U16x8_STSM_T, Element>{},
                                                          WarpgroupTransposedMma{}));
  static CUTE_HOST_DEVICE auto transposed_tile_view() {
    return composition(SmemLayoutD{}, make_layout(make_shape(Int<kTileN>{}, Int<kTileM>{}),
                                                  make_stride(Int<kTileM>{}, _1{})));
  }
  static CUTE_HOST_DEVICE auto transposed_block_view() {
    return composition(SmemLayoutBlock{}, make_layout(make_shape(Int<kTileK>{}, Int<kTileM>{}),
                                                      make_stride(Int<kTileM>{}, _1{})));
  }

  template <class Accum>
  static __device__ __forceinline__ void stage_transposed(Accum const& accum, Element* staging, int mma_thread) {
    auto thr_store = TransposedTileStore{}.get_slice(mma_thread);
    Tensor tSsD = thr_store.partition_D(make_tensor(make_smem_ptr(staging), transposed_tile_view()));
    copy(TransposedTileStore{}, thr_store.retile_S(converted_fragment(accum)), tSsD);
  }

  template <class Accum>
  static __device__ __forceinline__ void stage_transposed_block(Accum const& accum, Element* slot, int wg_thread) {
    static_assert(kTileN == 128 && size(Accum{}) == size(decltype(partition_fragment_C(
                      WarpgroupTransposedMma{}, Shape<_64, Int<kTileM>>{})){}),
                  "a warpgroup's transposed accumulator is one 64-channel block");
    auto thr_store = TransposedBlockStore{}.get_slice(wg_thread);
    Tensor tSsD = thr_store.partition_D(make_tensor(make_smem_ptr(slot), transposed_block_view()));
    copy(TransposedBlockStore{}, thr_store.retile_S(converted_fragment(accum)), tSsD);
  }

  // The accumulator converted to 16-bit elements, value for value.
  template <class Accum>
  static __device__ __forceinline__ auto converted_fragment(Accum const& accum) {
    Tensor converted = make_fragment_like<Element>(accum);
    CUTE_UNROLL
    for (int v = 0; v < size(accum); v += 2) {
      *reinterpret_cast<uint32_t*>(&converted(v)) = pack_pair(accum(v), accum(v + 1));
    }
    return converted;
  }

  static __device__ __forceinline__ void release_slab(SharedStorage& smem, int lane) {
    __syncwarp();
    if (lane == 0) cutlass::arch::ClusterBarrier::arrive(&smem.b_empty);
  }

  static __device__ __forceinline__ void release(SharedStorage& smem, int stage, int lane) {
    __syncwarp();
    if (lane == 0) {
      if constexpr (kWgRelease) {
        int const warp_in_group = int(threadIdx.x / 32) % 4;
        if (warp_in_group < kCluster) cutlass::arch::ClusterBarrier::arrive(&smem.empty[stage], warp_in_group, 1);
      } else if constexpr (kCluster > 1) {
        for (int cta = 0; cta < kCluster; ++cta) cutlass::arch::ClusterBarrier::arrive(&smem.empty[stage], cta, 1);
      } else {
        cutlass::arch::ClusterBarrier::arrive(&smem.empty[stage]);
      }
    }
  }

  // The persistent walk over units: clusters take units in turn, all CTAs of a cluster the same unit.
  static __device__ __forceinline__ int unit_begin() { return blockIdx.x / kClusterCtas; }
  static __device__ __forceinline__ int unit_stride() { return gridDim.x / kClusterCtas; }

  // A CTA's units in the order it takes them. Plain: begin, begin + stride, ... (channels fastest across the
  // grid: neighbouring CTAs read a box's dy at the same step, from DRAM once only while they keep in step). Box
  // walk (kBoxWalk): boxes begin, begin + stride, ..., each box's channel units in turn, so the CTA itself reads a
  // box's dy again a tile or two later, from L2 whatever the CTAs' drift. `cu` is the channel unit within the box.
  static __device__ __forceinline__ int first_unit(TileWalk const& walk) {
    return kBoxWalk ? unit_begin() * walk.tiles_c : unit_begin();
  }
  static __device__ __forceinline__ int next_unit(TileWalk const& walk, int index, int& cu) {
    if constexpr (kBoxWalk) {
      if (++cu < walk.tiles_c) return index + 1;
      cu = 0;
      return index + 1 + (unit_stride() - 1) * walk.tiles_c;   // the next box's first unit
    }
    return index + unit_stride();
  }

  // This CTA's tile of unit `index`, and whether its unit is live (any CTA of the cluster has a tile to store).
  // A box walk decodes a box's first unit into `box` and derives the others, which differ only in their channels:
  // a tile's decode is ~200 dependent integer instructions in every consumer warp.
  static __device__ __forceinline__ bool unit_tile(TileWalk const& walk, int index, int cu, int rank, Tile& box,
                                                   Tile& t) {
    if constexpr (kBoxWalk) {
      if (cu == 0) box = walk.decode(index, kTileN);
      t = box;
      t.c0 = box.c0 + cu * kTileN;
      t.live = box.live && t.c0 < int(walk.d.c);
      return t.live;
    }
    if (!walk.unit_live(index, kTileN)) return false;
    t = walk.decode(index, kTileN, rank);
    return true;
  }

  // Split-K: this CTA's slice [first, last) of a tile's iterations (empty when there are fewer than kSplitK).
  static __device__ __forceinline__ int split_rank() {
    if constexpr (kSplitK > 1) return int(cute::block_rank_in_cluster());
    return 0;
  }
  static __device__ __forceinline__ int slice_begin(int iterations, int split) {
    return iterations * split / kSplitK;
  }

};

}  // namespace iree_cutlass_sm90

// The extern "C" entry point of one configuration, in IREE's CUDA ABI: bindings, then 32-bit push constants.
#define IREE_CUTLASS_SM90_DGRAD_ENTRY(NAME, ELEMENT, TILE_M, TILE_N, STAGES, CTAS_PER_SM, PINGPONG, CLUSTER,  \
                                      RESIDENT_K, STORE_SLOTS, SPLIT_K, WG_STORES, TRANSPOSED, TILE_BUFFERS,  \
                                      SHARE_DY, THREAD_STORES, WG_RELEASE, WARP_STORES, WG_OFFSET,            \
                                      HALO_BLOCKS, HALO_ROWS, CLIP_TAPS, SKIP_PARTNER, BOX_WALK)              \
  extern "C" __global__ void __cluster_dims__((CLUSTER) * (SPLIT_K), 1, 1)                                    \
      __launch_bounds__(iree_cutlass_sm90::kThreads, CTAS_PER_SM) NAME(                                       \
      ELEMENT const* dy, ELEMENT const* w_rsck, ELEMENT* dx, uint8_t* workspace, uint32_t n, uint32_t h,       \
      uint32_t w, uint32_t c, uint32_t k, uint32_t r, uint32_t s, uint32_t p, uint32_t q, uint32_t pad_h,     \
      uint32_t pad_w, uint32_t stride_h, uint32_t stride_w, uint32_t box_n, uint32_t box_h, uint32_t box_w,   \
      uint32_t slots, uint32_t tiles_c, uint32_t tiles_c_mul, uint32_t tiles_c_shift, uint32_t phases,        \
      uint32_t phases_mul, uint32_t phases_shift, uint32_t tiles_w, uint32_t tiles_w_mul,                     \
      uint32_t tiles_w_shift, uint32_t tiles_h, uint32_t tiles_h_mul, uint32_t tiles_h_shift,                 \
      uint32_t stride_h_value, uint32_t stride_h_mul, uint32_t stride_h_shift, uint32_t stride_w_value,       \
      uint32_t stride_w_mul, uint32_t stride_w_shift) {                                                       \
    iree_cutlass_sm90::DgradShape const shape{                                                                \
        n, h, w, c, k, r, s, p, q, pad_h, pad_w, stride_h, stride_w, box_n, box_h, box_w, slots,              \
        {tiles_c, tiles_c_mul, tiles_c_shift}, {phases, phases_mul, phases_shift},                            \
        {tiles_w, tiles_w_mul, tiles_w_shift}, {tiles_h, tiles_h_mul, tiles_h_shift},                         \
        {stride_h_value, stride_h_mul, stride_h_shift}, {stride_w_value, stride_w_mul, stride_w_shift}};      \
    iree_cutlass_sm90::DgradKernel<ELEMENT, TILE_M, TILE_N, STAGES, CTAS_PER_SM, PINGPONG, CLUSTER,          \
                                   RESIDENT_K, STORE_SLOTS, SPLIT_K, WG_STORES, TRANSPOSED, TILE_BUFFERS,     \
                                   SHARE_DY, THREAD_STORES, WG_RELEASE, WARP_STORES, WG_OFFSET, HALO_BLOCKS,  \
                                   HALO_ROWS, CLIP_TAPS, SKIP_PARTNER, BOX_WALK>::run(                        \
        dy, w_rsck, dx, workspace, shape);                                                                    \
  }
