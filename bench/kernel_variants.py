"""Shipped sm90 kernels beside variants of their source (A/B by text edit) and probes of their prologue.

    python3 bench/kernel_variants.py build --out out/variants [--tags ...] [--variants ...] [--probes]  # here
    python3 bench/kernel_variants.py measure --plan out/variants --out $OUT/variants.json               # GPU
    python3 bench/kernel_variants.py sass --plan out/variants --out $OUT/sass.json    # where cuobjdump is

For each layer tag, the kernel the tuning table ships (or, as TAG=ENTRY, another of the layer's candidates) is
compiled once per variant: its translation unit with the variant's text edits (VARIANTS), so an idea is measured
against the unedited kernel ("shipped") in one run before it is made a real option. With --probes, each unit also
gets probe entry points (same shared storage, launch bounds, cluster shape and grid) that stop at one step of
`DgradKernel::run`'s prologue:
- empty: returns at once (the launch of this grid and shared memory, nothing else);
- barriers: thread 0 initializes a barrier, then the CTA (and cluster) synchronizes;
- copies: + every warp copies a zeroed descriptor to its workspace slot with the release (no field set);
- replaces: + every warp sets a rank-4 descriptor's fields in shared memory (tensormap.replace, no copy);
- descriptors: + every warp builds its TMA descriptors on the device (tensormap.replace, the release copy to the
  workspace) before that synchronization, as the kernel does;
- first_load: + the producer acquires the dy and filter descriptors and waits for its first dy box to land.
Every figure is the mean of two medians of CUDA-graph replays (two passes over the variants), all measured in
one run: the differences between neighbouring probes are what each step adds to a launch, and kernel -
first_load bounds the work itself.
The measure step also checks that every variant of a kernel writes the same dx as the shipped one, and all of it.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from iree_cutlass.cli.common import write_atomically  # noqa: E402
from sass_profile import instruction_opcode  # noqa: E402  (a neighbour: bench/ is this script's folder)

PROBES = ("empty", "barriers", "copies", "replaces", "descriptors", "first_load")
# Text edits of the translation unit that make each variant: (old, new) where `old` occurs once in the kernel's
# source, or (old, new, count) where it occurs `count` times (every occurrence is replaced, in the probes too),
# each counted after the edits before it. A header change that adds or drops an occurrence then fails the build
# here instead of editing a place nobody meant to.
_HINT = "uint64_t const hint = static_cast<uint64_t>(TMA::CacheHintSm90::EVICT_NORMAL);"
_EVICT_FIRST_DY = (
    (_HINT, _HINT + "\n    uint64_t const hint_a = walk.d.r * walk.d.s == 1 ? "
                    "static_cast<uint64_t>(TMA::CacheHintSm90::EVICT_FIRST) : hint;"),
    ("desc_a, &smem.full[stage], hint,", "desc_a, &smem.full[stage], hint_a,", 3))   # split-K, halo and not
_EVICT_LAST_FILTER = (
    (_HINT, _HINT + "\n    uint64_t const hint_b = static_cast<uint64_t>(TMA::CacheHintSm90::EVICT_LAST);"),
    ("desc_b, &smem.full[stage], hint,", "desc_b, &smem.full[stage], hint_b,", 2),
    ("desc_b, &smem.b_full, hint,", "desc_b, &smem.b_full, hint_b,"),   # the slab (1x1 resident or halo)
    ("uint16_t((1 << kCluster) - 1), hint,", "uint16_t((1 << kCluster) - 1), hint_b,"))
_NO_EPILOGUE = (("      if (!t.live) {\n", "      if (t.live || !t.live) {\n"),)   # (a held stage is freed)
_NO_MMA = (("cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, kResident ? it : stage), accum);",
            "(void)kb;"),)
# Decoding the next tile inside the mainloop (session 16). A decode takes ~250 dependent integer instructions
# (~0.6 us); between tiles it leaves the tensor pipe idle (8% of the consumers' stall samples on the 1x1 1024<-512
# layer, Nsight Compute, session 15's call D). `decode_ahead` decodes it behind a tile's second batch of MMAs, after
# the first batch's stage is released, in cooperative tiles of a lone CTA with at least 4 iterations; every other
# tile decodes it after its epilogue, where the old loop did (the loop's step); a ping-pong kernel's partner skip
# (kSkipPartner, session 38) stays, its tiles stepped over by the new loop's step. Not yet measured.
# `decode_ahead_all` decodes ahead in every kernel with at least 2 iterations a tile, about what b28f7cc shipped
# (session 16: 2.2% faster than decoding just before the epilogue, but its whole check ran the 1x1 256<-128 layer
# 1.23x, the 1x1 256<-64 1.10x, the 3x3 128<-128 stride-2 1.10x and the 3x3 512<-512 1.04x session 15's times).
# The walk as the producer's loop and the consumers' spell it: the loop head, and each tile's decode (the liveness
# pass over the unit's CTAs, then the own tile). The consumers' loop head and per-tile decode are told from the
# producer's by their neighbours (a ping-pong kernel's partner skip stays between the two).
_WALK_LOOP = "for (int index = first_unit(walk); index < walk.count; index = next_unit(walk, index, cu)) {"
_WALK_DECODE = "      Tile t;\n      if (!unit_tile(walk, index, cu, rank, box, t)) continue;\n"
_CONSUMER_WALK_HEAD = ("    uint32_t slabs = 0;\n    Tile box{};             // box walk: the box's first tile\n"
                       "    int cu = 0;             // box walk: the channel unit within the box\n    " + _WALK_LOOP + "\n")
_CONSUMER_TILE_DECODE = _WALK_DECODE + "      int iterations = kHalo"
_AHEAD_WALK_HEAD = """    uint32_t slabs = 0;
    int index = next_live_unit(walk, unit_begin());
    Tile t = index < walk.count ? walk.decode(index, kTileN, rank) : Tile{};
    int next_index = walk.count;
    Tile next_tile{};
    bool decoded = false;   // this tile's iteration has decoded the next tile
    auto const decode_next = [&] {
      next_index = next_live_unit(walk, index + unit_stride());
      if (next_index < walk.count) next_tile = walk.decode(next_index, kTileN, rank);
      decoded = true;
    };
    for (; index < walk.count; decoded ? void() : decode_next(), decoded = false, index = next_index,
                                t = next_tile) {
"""
_RELEASE = "          if (previous >= 0) release(smem, previous, lane);\n        }\n        previous = stage;\n"
_PERSISTENT = "  // The persistent walk over units: clusters take units in turn, all CTAs of a cluster the same unit.\n"
_MMA_THREADS = "  static constexpr int kMmaThreads = kPingpong ? 128 : 256;      // threads sharing one tile\n"
_DECODE_AHEAD = (
    (_MMA_THREADS, _MMA_THREADS + "  static constexpr bool kDecodeAhead = !kPingpong && kClusterCtas == 1;\n"
                                  "  static constexpr int kDecodeAheadIterations = 4;\n"),
    (_PERSISTENT, "  static __device__ __forceinline__ int next_live_unit(TileWalk const& walk, int index) {\n"
                  "    while (index < walk.count && !walk.unit_live(index, kTileN)) index += unit_stride();\n"
                  "    return index;\n  }\n\n" + _PERSISTENT),
    (_CONSUMER_WALK_HEAD, _AHEAD_WALK_HEAD),
    (_CONSUMER_TILE_DECODE, "      int iterations = kHalo"),
    (_RELEASE, "          if (previous >= 0) release(smem, previous, lane);\n        }\n"
               "        if (kDecodeAhead && it == 1 && iterations >= kDecodeAheadIterations) decode_next();\n"
               "        previous = stage;\n"))
# Decoding each tile once (session 17). `unit_live` decodes the tile of every CTA of the unit (its own first) and
# `decode` then decodes the own tile again: ~190 SASS instructions between the last tile's stores and the next
# tile's first wait, about half of them the liveness pass (1x1 1024<-512's kernel, nvdisasm). Decoded once, the
# own tile's `live` decides, and the peers are decoded only when it is dead (never without a cluster).
_DECODE_ONCE = (
    (_WALK_DECODE, """      Tile const t = walk.decode(index, kTileN, rank);
      if (!t.live && (kClusterM * kClusterC == 1 || !walk.unit_live(index, kTileN))) continue;
""", 2),)   # the producer's loop and the consumers' 
# ptxas can drop tensormap acquires unless a bulk-async group follows them (as in plugin/sm90_dgrad.cuh).
_BULK_WAIT = '    asm volatile("cp.async.bulk.commit_group;\\n\\tcp.async.bulk.wait_group.read 0;" ::: "memory");\n'
# The consumers' wait for a full stage (session 38, not yet measured). CUTLASS's ClusterBarrier::wait is a try-wait
# with a suspend-time hint: a warp that arrives before the data can be suspended and resumed later. With the partner
# skip (`_sp`), ping-pong warpgroups arrive earlier, and the 128x64 ping-pong kernel ran 1.26-1.32x slower on 256<-64
# (one K block a tile) though not on 64<-256. `spin_full` polls with test_wait (never suspended; it takes issue
# slots from the other warpgroups); `tryw_full` is a try-wait without the hint (the system's own time limit).
_FULL_WAIT = "        cutlass::arch::ClusterTransactionBarrier::wait(&smem.full[stage], phase_bit);\n"


def _full_wait_by(instruction: str) -> tuple:
    """The consumers' full-stage wait as a loop over `mbarrier.<instruction>.parity` (no suspend-time hint)."""
    return ((_FULL_WAIT,
             "        asm volatile(\"{\\n\\t.reg .pred P1;\\n\\tFULL_WAIT:\\n\\t\"\n"
             f"                     \"mbarrier.{instruction}.parity.shared::cta.b64 P1, [%0], %1;\\n\\t"
             "@!P1 bra FULL_WAIT;\\n\\t}\"\n"
             "                     :: \"r\"(smem_u32(&smem.full[stage])), \"r\"(phase_bit) : \"memory\");\n"),)


# Warp-uniform branches (session 39). CUTLASS broadcasts its warp and warpgroup indices from lane 0
# (`canonical_warp_idx_sync`) so that ptxas knows them warp-uniform. Ours divide threadIdx.x, so to ptxas the
# producer/consumer split and the ping-pong turn look divergent, which may be why the consumers' per-tile decode runs
# on the vector datapath with its constants re-read by LDC (session 38: IMAD 19.8 M, LDC 9.2 M) where cuDNN's integer
# work runs on the uniform datapath. Session 39 (H100, ten table kernels): ptxas moved nothing (`sass`: 391 -> 384
# uniform instructions of 3,096, LDC unchanged), timings 0.98-1.06x the kernel's, noise: dropped.
_UNIFORM_WARP = (("    int const warp = thread / 32;\n",
                  "    int const warp = __shfl_sync(0xffffffffu, thread / 32, 0);   // warp-uniform to ptxas\n"),
                 ("    int const wg = thread / 128;                      // consumer warpgroup 0 or 1\n",
                  "    int const wg = __shfl_sync(0xffffffffu, thread / 128, 0);   // warp-uniform to ptxas\n"))
# Stepping the walk instead of decoding each tile (session 39). A CTA's units are begin, begin + stride, ...; in a
# walk of one phase without clipped taps, of one CTA a unit, a tile differs from the walk's first only in its digits
# (channel block, box column, box row, image), so each step adds the stride's digits with a carry apiece (no
# multiply-high division, no constant re-read) and the tile's other fields are the first tile's. Other walks decode
# as before. `step_walk` steps the producer's walk and the consumers'; `step_walk_consumers` the consumers' only
# (the producer warpgroup keeps 56 registers). Session 39 (H100, ten table kernels, two runs, every dx equal): within
# +-2% on most layers, 0.96-0.98x on 256<-128, 1.28x on 256<-64 (the partner skip's loss): not adopted.
_STEP_WALK_STRUCT = """
// A CTA's walk stepped unit by unit (one-phase walks without clipped taps, one CTA a unit): see kernel_variants.py.
struct StepWalk {
  bool on;
  Tile base;                             // the walk's first tile: every field but the digits' is the same
  int cn, tw, th, tn;                    // this unit's digits
  int step_cn, step_tw, step_th, step_tn;  // the stride's digits
  int tiles_c, tiles_w, tiles_h, tile_n, box_n, box_h, box_w, n, c;

  __device__ StepWalk(TileWalk const& walk, int begin, int stride, int tile_n_, bool one_cta_a_unit)
      : on(one_cta_a_unit && walk.phases == 1 && !walk.clip), tiles_c(walk.tiles_c), tiles_w(walk.tiles_w),
        tiles_h(walk.tiles_h), tile_n(tile_n_), box_n(int(walk.d.box_n)), box_h(int(walk.d.box_h)),
        box_w(int(walk.d.box_w)), n(int(walk.d.n)), c(int(walk.d.c)) {
    base = walk.decode(0, tile_n_);
    digits(walk, begin, cn, tw, th, tn);
    digits(walk, stride, step_cn, step_tw, step_th, step_tn);
  }
  // index's digits in a one-phase walk: channels fastest, then box columns, box rows, images (TileWalk::decode).
  __device__ static void digits(TileWalk const& walk, int index, int& cn, int& tw, int& th, int& tn) {
    tn = walk.d.tiles_h.divmod(th, walk.d.tiles_w.divmod(tw, walk.d.tiles_c.divmod(cn, index)));
  }
  // Each digit and the stride's are below the radix, so one carry a digit.
  __device__ void step() {
    cn += step_cn;
    int carry = cn >= tiles_c;
    cn -= carry ? tiles_c : 0;
    tw += step_tw + carry;
    carry = tw >= tiles_w;
    tw -= carry ? tiles_w : 0;
    th += step_th + carry;
    carry = th >= tiles_h;
    th -= carry ? tiles_h : 0;
    tn += step_tn + carry;
  }
  __device__ Tile tile() const {
    Tile t = base;
    t.n0 = tn * box_n;
    t.i0 = th * box_h;
    t.j0 = tw * box_w;
    t.c0 = cn * tile_n;
    t.live = t.i0 < t.rows && t.j0 < t.cols && t.n0 < n && t.c0 < c;
    return t;
  }
};
"""
_ITERATIONS = "  __device__ int iterations(Tile const& t) const { return t.taps_h * t.taps_w * kblocks; }\n};\n"
_ADD_STEP_WALK = (_ITERATIONS, _ITERATIONS + _STEP_WALK_STRUCT)   # StepWalk after TileWalk
_STEPPED_LOOP = ("StepWalk steps(walk, unit_begin(), unit_stride(), kTileN, kClusterCtas == 1);\n"
                 "    for (int index = unit_begin(); index < walk.count; index += unit_stride(), steps.step()) {")
_STEPPED_DECODE = ("      Tile const t = steps.on ? steps.tile() : walk.decode(index, kTileN, rank);\n"
                   "      if (steps.on ? !t.live : !walk.unit_live(index, kTileN)) continue;\n")
_STEP_WALK = (_ADD_STEP_WALK,
              (_WALK_LOOP, _STEPPED_LOOP, 2),
              (_WALK_DECODE, _STEPPED_DECODE, 2))
# Controls for `step_walk_consumers`, whose consumers reach each tile's first wait ~200 instructions sooner. Session
# 39: on 256<-64 (one K block a tile) the 128x64 ping-pong kernel ran 1.28x slower stepped, as with the partner skip
# (1.27x, session 38), yet 2-4% faster on 256<-128. `step_walk_decoded` steps and still decodes each tile, the
# result unused (kept by an empty asm): the same delay without the decode's use. `step_walk_pause` steps, then
# sleeps ~0.5 us (__nanosleep) where the decode was: a delay with no instructions.
_DECODED = ("      if (steps.on) {\n        Tile const decoded = walk.decode(index, kTileN, rank);\n"
            "        asm volatile(\"\" :: \"r\"(decoded.n0), \"r\"(decoded.i0), \"r\"(decoded.j0), \"r\"(decoded.c0), "
            "\"r\"(decoded.rows), \"r\"(decoded.cols));\n      }\n")
_PAUSE = "      if (steps.on) __nanosleep(500);\n"


# A box's channel units in a row on one CTA (session 40): `box_walk` (the order alone) and `box_walk_reuse` (the
# consumers also decoding a box once), built as variants at f6509a8 for bench/plans/session40/build_box.sh, are now
# the kernel's kBoxWalk option (config `box_walk`, entry suffix `_bw`; the order with the reuse, in the producer too).


def _step_consumers(after_decode: str = "") -> tuple:
    """The consumers' walk stepped (the producer's decodes as before), with `after_decode` after each tile's."""
    return (_ADD_STEP_WALK,
            (_CONSUMER_WALK_HEAD, "    uint32_t slabs = 0;\n    " + _STEPPED_LOOP + "\n"),
            (_CONSUMER_TILE_DECODE, _STEPPED_DECODE + after_decode + "      int iterations = kHalo"))


VARIANTS = {
    "shipped": (),
    # The descriptors' release copy and acquire at CTA scope instead of GPU scope: each CTA builds and uses its
    # own descriptors, so no other CTA observes them.
    "cta_scope": (("generic.release.gpu", "generic.release.cta"), ("generic.acquire.gpu", "generic.acquire.cta")),
    # The storer's last wait for its TMA stores only until they have read shared memory (CUTLASS's epilogues end
    # so), not until their writes are done.
    "read_tail": (("cp.async.bulk.wait_group 0;", "cp.async.bulk.wait_group.read 0;"),),
    # L2 eviction hints: dy of 1x1 filters (read by one tap, by the CTAs of its channel blocks about at once)
    # evicted first; the filter (read by every CTA) last; both.
    "evict_first_dy": _EVICT_FIRST_DY,
    "evict_last_filter": _EVICT_LAST_FILTER,
    "evict_both": _EVICT_FIRST_DY + _EVICT_LAST_FILTER,
    # Ablations (their dx differs from the shipped kernel's by design): what a kernel costs without its epilogue
    # (no staging, no stores, no dx traffic: more than an epilogue that overlaps the MMAs could save), and without
    # its MMAs (the loads, barriers and epilogue alone: near the shipped time means the kernel waits on memory).
    "no_epilogue": _NO_EPILOGUE,
    "no_mma": _NO_MMA,
    # The loads alone (no MMA, no epilogue), and the epilogue without its TMA stores (staged, never stored): with
    # no_mma they split the time of a kernel's memory path into loads, staging and stores.
    "loads_only": _NO_EPILOGUE + _NO_MMA,
    # Every dx store path: the whole tile, split-K's blocks, the ring's single storer and its warp stores.
    "no_store": (("SM90_TMA_STORE_4D::copy(", "if (false) SM90_TMA_STORE_4D::copy(", 4),),
    # The staging without its proxy fences (whole tile, ring, split-K), so the TMA store may read a block before
    # its stmatrix lands (dx can differ): what the fences cost. Session 15's samples put the epilogue's stalls at
    # them; session 16's SASS shows each as MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S, once a block.
    "no_fence": (("cutlass::arch::fence_view_async_shared();", "", 3),),
    # The epilogue's control without its data (session 17, not yet measured): no conversion, no stmatrix, no
    # store; the waits, fences and barriers stay. With `no_store` (+ conversion and stmatrix) and `no_epilogue`
    # (none of it) it splits session 15's ~32 us of staging on the 1x1 1024<-512 layer, which neither the
    # fences (`no_fence`) nor the barriers (warp stores) explained.
    "no_staging": (("SM90_TMA_STORE_4D::copy(", "if (false) SM90_TMA_STORE_4D::copy(", 4),
                   ("        stage_transposed(accum, staging, mma_thread);\n", ""),
                   ("          stage_block(accum, block, staging + block * kTileM * kTileK, mma_thread);\n", ""),
                   ("        if (wg == block) stage_transposed_block(accum, slot_base, mma_thread % 128);\n", ""),
                   ("        stage_block(accum, block, slot_base, mma_thread);\n", "")),
    # Each tile's dy box loaded at its first tap only (every K block), the other taps multiplying whatever the
    # stage holds (dx differs by design): how fast a filter of several taps would run if its tiles loaded the dy
    # pixels they share once (a halo tile, one shifted view a tap) instead of once a tap. Session 25: on the 3x3
    # C = K = 64 layer the loads (L2 to shared memory), not the MMAs, look like the bound.
    "dy_once": (("            cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.full[stage], "
                 "kStageBytes);\n            if constexpr (kShareDy) {",
                 "            cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.full[stage], "
                 "th + tw == 0 || kShareDy ? kStageBytes\n                : kStageBytes - uint32_t(kTileM * kTileK * "
                 "sizeof(Element)));\n            if constexpr (kShareDy) {"),
                ("            } else {\n              SM90_TMA_LOAD_4D::copy(desc_a, &smem.full[stage], hint, "
                 "smem.a + stage * kTileM * kTileK,\n                                     kb * kTileK, dy_col, dy_row, "
                 "t.n0);",
                 "            } else if (th + tw == 0) {\n              SM90_TMA_LOAD_4D::copy(desc_a, &smem.full[stage], "
                 "hint, smem.a + stage * kTileM * kTileK,\n                                     kb * kTileK, dy_col, "
                 "dy_row, t.n0);")),
    "decode_once": _DECODE_ONCE,
    "decode_ahead": _DECODE_AHEAD,
    "decode_ahead_all": _DECODE_AHEAD + (("kDecodeAhead = !kPingpong && kClusterCtas == 1;", "kDecodeAhead = true;"),
                                         ("kDecodeAheadIterations = 4;", "kDecodeAheadIterations = 2;")),
    # One bulk wait after each run of acquires (the producer's two, the storer's phases) instead of one after
    # every acquire: each wait is on the producer's path to its first load. Session 21 (H100): 1.006x the shipped
    # kernel over the 22 f16 batch-256 layers, the same dx: dropped.
    "merged_wait": (("  // ptxas can drop the acquire above unless a bulk-async group follows it (the workaround Triton "
                     "uses too).\n" + _BULK_WAIT[2:] + "}", "}"),
                    ("    acquire_tensormap(desc_b);\n", "    acquire_tensormap(desc_b);\n" + _BULK_WAIT),
                    ("acquire_tensormap(slot + (2 + phase) * kDescBytes);\n",
                     "acquire_tensormap(slot + (2 + phase) * kDescBytes);\n" + _BULK_WAIT)),
    # Each descriptor prefetched into the TMA unit's cache right after its acquire (CUTLASS's kernels prefetch
    # theirs at entry), so that the first load and the first store do not fetch it from memory.
    "spin_full": _full_wait_by("test_wait"),
    "tryw_full": _full_wait_by("try_wait"),
    "uniform_warp": _UNIFORM_WARP,
    "step_walk": _STEP_WALK,
    "step_walk_consumers": _step_consumers(),
    "step_walk_decoded": _step_consumers(_DECODED),
    "step_walk_pause": _step_consumers(_PAUSE),
    "prefetch_desc": (('wait_group.read 0;" ::: "memory");\n}\n\n// Split-K',
                       'wait_group.read 0;" ::: "memory");\n'
                       '  asm volatile("prefetch.tensormap [%0];" :: '
                       '"l"(reinterpret_cast<uint64_t>(gmem_desc)) : "memory");'
                       '\n}\n\n// Split-K'),),
}

# Layers whose time per launch is short enough for the start to matter: batch 8 (4-12 us) and the shortest
# batch-256 layers, unit-stride and strided (six descriptors), a cluster among them.
DEFAULT_TAGS = ("s2_1x1_128_512_n8_f16", "s4_3x3_512_512_n8_f16", "s4_1x1_512_2048_n256_f16",
                "s4_3x3_512_512s2_n256_f16", "s1_1x1_64_64_n256_f16", "s4_1x1_1024_512_n256_f16")

_PARAMETERS = ("n h w c k r s p q pad_h pad_w stride_h stride_w box_n box_h box_w slots tiles_c tiles_c_mul "
               "tiles_c_shift phases phases_mul phases_shift tiles_w tiles_w_mul tiles_w_shift tiles_h tiles_h_mul "
               "tiles_h_shift stride_h_value stride_h_mul stride_h_shift stride_w_value stride_w_mul "
               "stride_w_shift").split()

_PROBE_SOURCE = """
namespace prologue_probe {
using namespace iree_cutlass_sm90;
using Element = {element};

// A rank-4 descriptor's fields set in shared memory as build_tensormap sets them, without the copy to global.
__device__ __forceinline__ void replaces_only(uint8_t* smem_desc, void const* base, DgradShape const& d, int lane) {
  reinterpret_cast<uint32_t*>(smem_desc)[lane] = 0u;
  __syncwarp();
  if (lane == 0) {
    uint32_t desc = smem_u32(smem_desc);
    uint32_t dims[4] = {d.k, d.q, d.p, d.n};
    uint64_t strides[3] = {uint64_t(d.k) * 2, uint64_t(d.q) * d.k * 2, uint64_t(d.p) * d.q * d.k * 2};
    uint32_t box[4] = {kTileK, d.box_w, d.box_h, d.box_n};
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;"
                 :: "r"(desc), "l"(reinterpret_cast<uint64_t>(base)) : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 3;" :: "r"(desc) : "memory");
    asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 1;" :: "r"(desc) : "memory");
    asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 3;" :: "r"(desc) : "memory");
#define PROBE_DIM(I)                                                                                      \
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], " #I ", %1;"              \
                 :: "r"(desc), "r"(dims[I]) : "memory");                                                  \
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], " #I ", %1;"                 \
                 :: "r"(desc), "r"(box[I]) : "memory");                                                   \
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], " #I ", 1;"           \
                 :: "r"(desc) : "memory");
    PROBE_DIM(0) PROBE_DIM(1) PROBE_DIM(2) PROBE_DIM(3)
#undef PROBE_DIM
#define PROBE_STRIDE(I)                                                                                   \
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], " #I ", %1;"           \
                 :: "r"(desc), "l"(strides[I]) : "memory");
    PROBE_STRIDE(0) PROBE_STRIDE(1) PROBE_STRIDE(2)
#undef PROBE_STRIDE
  }
  __syncwarp();
}

// kDepth 0: barriers only; 1: + the descriptor builds; 2: + the producer's acquire and first dy box;
// 3: + zeroed descriptors copied with the release instead of built; 4: + fields set in shared memory only.
template <int kDepth>
__device__ __forceinline__ void run(Element const* dy, Element const* w_rsck, Element* dx, uint8_t* workspace,
                                   DgradShape const& shape) {
  extern __shared__ uint8_t smem_raw[];
  uintptr_t aligned = (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023);
  Kernel::SharedStorage& smem = *reinterpret_cast<Kernel::SharedStorage*>(aligned);
  int const thread = threadIdx.x, warp = thread / 32, lane = thread % 32;
  if (thread == 0) {
    cutlass::arch::ClusterTransactionBarrier::init(&smem.full[0], 1);
    cutlass::arch::fence_barrier_init();
  }
  int const descriptors = descriptor_count(shape.stride_h, shape.stride_w);
  uint8_t* slot = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(workspace) + 127) & ~uintptr_t(127)) +
                  size_t(blockIdx.x) * descriptors * kDescBytes;
  if constexpr (kDepth == 3) {
    for (int index = warp; index < descriptors; index += Kernel::kWarps) {
      reinterpret_cast<uint32_t*>(smem.tensormap[warp])[lane] = 0u;
      __syncwarp();
      asm volatile(
          "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
          :: "l"(reinterpret_cast<uint64_t>(slot + index * kDescBytes)), "r"(smem_u32(smem.tensormap[warp])) : "memory");
    }
  } else if constexpr (kDepth == 4) {
    for (int index = warp; index < descriptors; index += Kernel::kWarps) replaces_only(smem.tensormap[warp], dy, shape, lane);
  } else if constexpr (kDepth >= 1) {
    for (int index = warp; index < descriptors; index += Kernel::kWarps) {
      Kernel::build_descriptor(index, smem.tensormap[warp], slot + index * kDescBytes, dy, w_rsck, dx, shape, lane);
    }
  }
  __syncthreads();
  if constexpr (Kernel::kClusterCtas > 1) cute::cluster_sync();
  if constexpr (kDepth == 2) {
    if (thread == 0) {
      acquire_tensormap(slot);
      acquire_tensormap(slot + kDescBytes);
      cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&smem.full[0],
                                                                    uint32_t(shape.box_n * shape.box_h * shape.box_w) * kTileK * 2);
      SM90_TMA_LOAD_4D::copy(slot, &smem.full[0], static_cast<uint64_t>(TMA::CacheHintSm90::EVICT_NORMAL), smem.a,
                             0, 0, 0, int(blockIdx.x % shape.n));
      cutlass::arch::ClusterTransactionBarrier::wait(&smem.full[0], 0);
    }
  }
  if constexpr (Kernel::kClusterCtas > 1) {
    __syncwarp();
    cute::cluster_sync();
  }
}
}  // namespace prologue_probe
"""

_PROBE_ENTRY = """
extern "C" __global__ void __cluster_dims__({cluster_ctas}, 1, 1) __launch_bounds__(iree_cutlass_sm90::kThreads, {ctas})
{name}_{probe}({element} const* dy, {element} const* w_rsck, {element}* dx, uint8_t* workspace, {parameters}) {{
  iree_cutlass_sm90::DgradShape const shape{{{shape}}};
  {body}
}}
"""


def _shape_initializer() -> str:
    plain, divisors = _PARAMETERS[:17], _PARAMETERS[17:]
    groups = [", ".join(divisors[i:i + 3]) for i in range(0, len(divisors), 3)]
    return ", ".join(plain) + ", " + ", ".join("{" + g + "}" for g in groups)


def variant_source(config, variant: str = "shipped", probes: bool = False) -> str:
    """The kernel's translation unit edited into `variant`, with the probe entry points appended if asked."""
    from iree_cutlass.plugin import sm90
    # The probes' parameters must be the entry point's push constants, one for one: a missing one would still
    # compile (DgradShape's aggregate initializer zero-fills the rest).
    assert len(_PARAMETERS) == sm90.CONSTANTS, "probe parameters out of step with sm90.CONSTANTS"
    element = sm90._ELEMENT_TYPES[config.dtype]
    parameters = ", ".join(f"uint32_t {p}" for p in _PARAMETERS)
    kernel = sm90.generate_source(config)
    source = _PROBE_SOURCE.replace("{element}", element) if probes else ""   # what follows the kernel
    bodies = {"empty": "(void)shape;",
              "barriers": "prologue_probe::run<0>(dy, w_rsck, dx, workspace, shape);",
              "copies": "prologue_probe::run<3>(dy, w_rsck, dx, workspace, shape);",
              "replaces": "prologue_probe::run<4>(dy, w_rsck, dx, workspace, shape);",
              "descriptors": "prologue_probe::run<1>(dy, w_rsck, dx, workspace, shape);",
              "first_load": "prologue_probe::run<2>(dy, w_rsck, dx, workspace, shape);"}
    for probe in PROBES if probes else ():
        source += _PROBE_ENTRY.format(cluster_ctas=config.cluster_ctas, ctas=config.ctas_per_sm, name=config.name,
                                      probe=probe, element=element, parameters=parameters,
                                      shape=_shape_initializer(), body=bodies[probe])
    for edit in VARIANTS[variant]:
        old, new, count = edit if len(edit) == 3 else (*edit, 1)
        found = kernel.count(old)
        if found != count:
            raise ValueError(f"variant {variant}: {old!r} occurs {found} times in the kernel source, not {count}")
        kernel, source = kernel.replace(old, new), source.replace(old, new)
    return kernel + source


def build(args) -> int:
    from iree_cutlass.plugin.build import find_nvcc, nvcc_flags
    from iree_cutlass.plugin.kernels import launch_record
    from iree_cutlass.plugin.select import candidate_configs, select_kernel
    from iree_cutlass.workloads import dgrad_problem, resnet50_layers

    layers = {layer.tag: layer for layer in resnet50_layers()}
    picks = [item.partition("=")[::2] for item in args.tags]    # (tag, entry or "" for the shipped kernel)
    unknown = [t for t, _ in picks if t not in layers] + [v for v in args.variants if v not in VARIANTS]
    if unknown:
        print(f"error: unknown tags or variants {unknown}", file=sys.stderr)
        return 2
    kernels = []   # (tag, problem, config)
    for tag, entry in picks:
        problem = dgrad_problem(layers[tag])
        config = select_kernel(problem, arch="sm_90") if not entry else \
            next((c for c in candidate_configs(problem, "sm_90") if c.name == entry), None)
        if config is None:
            print(f"error: {entry} is not a candidate for {tag}", file=sys.stderr)
            return 2
        kernels.append((tag, problem, config))
    variants = ["shipped"] + [v for v in args.variants if v != "shipped"]
    try:   # every edit applies to every kernel, before anything is compiled
        for _, _, config in kernels:
            for variant in variants:
                variant_source(config, variant, args.probes)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    cases, jobs = [], []
    suffix = "-probes" if args.probes else ""
    for tag, problem, config in kernels:
        fatbins = {v: f"{config.name}-{v}{suffix}.fatbin" for v in variants}
        jobs += [(config, v, args.out / name) for v, name in fatbins.items() if not (args.out / name).exists()]
        cases.append({"tag": tag, "problem": problem.__dict__, "record": launch_record(config, problem),
                      "fatbins": fatbins})

    def compile_variant(job) -> str | None:
        config, variant, fatbin = job
        print(f"[variants] nvcc {fatbin.name}", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory(dir=fatbin.parent) as tmp:   # same file system: an atomic rename
            source = pathlib.Path(tmp) / "variant.cu"
            source.write_text(variant_source(config, variant, args.probes))
            partial = pathlib.Path(tmp) / "variant.fatbin"
            command = [str(find_nvcc()), *nvcc_flags("sm_90a"), str(source), "-o", str(partial)]
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode:
                return f"{fatbin.name}: {result.stderr[-4000:]}"
            partial.replace(fatbin)   # whole fatbins only: a failed or interrupted build leaves none
        return None

    # Duplicate jobs (two tags sharing a kernel) are built once.
    unique = list({job[2]: job for job in jobs}.values())
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        errors = [e for e in pool.map(compile_variant, unique) if e]
    if errors:
        print("error: nvcc failed for " + errors[0], file=sys.stderr)
        return 1
    plan = {"cases": cases, "probes": list(PROBES) if args.probes else []}
    write_atomically(args.out / "plan.json", json.dumps(plan, indent=1).encode())
    print(f"[variants] {len(cases)} cases x {len(variants)} variants in {args.out}", file=sys.stderr)
    return 0


def measure(args) -> int:
    import cupy as cp
    import numpy as np
    from iree_cutlass.kernel_launch import POISON_BITS, KernelLauncher, filter_in_layout

    def random_bits(shape, dtype: str) -> np.ndarray:
        """Random normal values of `dtype` (f16 or bf16: the high half of an f32) as 16-bit patterns."""
        values = rng.standard_normal(shape, dtype=np.float32)
        return values.astype(np.float16).view(np.uint16) if dtype == "f16" else \
            (values.view(np.uint32) >> 16).astype(np.uint16)

    plan = json.loads((args.plan / "plan.json").read_text())
    probes = tuple(plan["probes"])
    rng = np.random.default_rng(7)
    rows = []
    for case in plan["cases"]:
        p, record = case["problem"], case["record"]
        dy_d = cp.asarray(random_bits((p["n"], p["p"], p["q"], p["k"]), p["dtype"]))
        w_d = cp.asarray(filter_in_layout(random_bits((p["k"], p["r"], p["s"], p["c"]), p["dtype"]),
                                          record["filter_layout"]))
        dx_d = cp.zeros((p["n"], p["h"], p["w"], p["c"]), dtype=cp.uint16)
        poison = POISON_BITS[p["dtype"]]
        # Every entry point loaded once (module and workspace), for both passes.
        launchers = {(variant, probe): KernelLauncher(args.plan / fatbin, {
                         **record, "entry": record["entry"] if probe == "kernel" else f"{record['entry']}_{probe}"})
                     for variant, fatbin in case["fatbins"].items() for probe in (*probes, "kernel")}
        outputs, case_rows = {}, {}
        # Two passes over the variants, so that a drift in clocks over the case's seconds reaches them all alike;
        # each figure is the mean of its two medians.
        for _ in range(2):
            for variant in case["fatbins"]:
                row = case_rows.setdefault(variant, {"tag": case["tag"], "entry": record["entry"], "variant": variant,
                                                     "grid": record["grid"][0]})
                for probe in (*probes, "kernel"):
                    launcher = launchers[variant, probe]
                    if probe == "kernel" and variant not in outputs:
                        dx_d.fill(poison)   # NaN: whatever the kernel leaves unwritten stays NaN
                        launcher.launch(dy_d, w_d, dx_d)
                        outputs[variant] = cp.asnumpy(dx_d)
                    us = 1000 * launcher.graph_time_ms(dy_d, w_d, dx_d, rounds=9, calls=50)
                    row.setdefault(f"{probe}_passes_us", []).append(us)
        for row in case_rows.values():
            for probe in (*probes, "kernel"):
                row[f"{probe}_us"] = sum(row[f"{probe}_passes_us"]) / len(row[f"{probe}_passes_us"])
        for variant, row in case_rows.items():
            row["dx_matches_shipped"] = bool(np.array_equal(outputs[variant], outputs["shipped"]))
            row["dx_unwritten"] = int(np.count_nonzero(outputs[variant] == poison))
            row["kernel_over_shipped"] = row["kernel_us"] / case_rows["shipped"]["kernel_us"]
            rows.append(row)
            print(f"{row['tag']:26s} {row['entry'][24:]:30s} {variant:17s} " +
                  " ".join(f"{probe} {row[f'{probe}_us']:5.2f}" for probe in (*probes, "kernel")) +
                  f" /shipped {row['kernel_over_shipped']:.3f} same_dx {row['dx_matches_shipped']}"
                  f" unwritten {row['dx_unwritten']}", flush=True)
        # After every case, so that a variant that hangs (a call's timeout ends it) leaves the cases before it.
        write_atomically(args.out, json.dumps({"rows": rows, "unit": "us per launch, CUDA graph replays"},
                                              indent=1).encode())
    return 0


def sass_census(args) -> int:
    """Static opcode counts of every fatbin in a plan (cuobjdump -sass, on the GPU machine: none here): all
    instructions, those of the uniform datapath (U*, R2UR), the constant loads (LDC) and IMAD*, per fatbin."""
    import re
    instruction = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+([^;]*);")   # `  /*0020*/  @P0 IMAD.HI.U32 R2, ... ;`
    counts = {}
    for fatbin in sorted(args.plan.glob("*.fatbin")):
        result = subprocess.run(["cuobjdump", "-sass", str(fatbin)], capture_output=True, text=True)
        if result.returncode:
            print(f"error: cuobjdump failed on {fatbin.name}: {result.stderr.strip()[-200:]}", file=sys.stderr)
            return 1
        ops = [instruction_opcode(m.group(1)) for m in map(instruction.match, result.stdout.splitlines()) if m]
        counts[fatbin.name] = {"instructions": len(ops),
                               "uniform": sum(op.startswith("U") or op == "R2UR" for op in ops),
                               "ldc": ops.count("LDC"), "imad": sum(op.startswith("IMAD") for op in ops)}
        print(fatbin.name, counts[fatbin.name], flush=True)
    write_atomically(args.out, json.dumps(counts, indent=1).encode())
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build")
    p_build.add_argument("--out", type=pathlib.Path, required=True)
    p_build.add_argument("--tags", nargs="+", default=list(DEFAULT_TAGS),
                         help="ResNet-50 layer tags (the shipped kernel), or TAG=ENTRY for another candidate")
    p_build.add_argument("--variants", nargs="+", default=list(VARIANTS), help="VARIANTS keys (shipped always)")
    p_build.add_argument("--probes", action="store_true", help="append the prologue probes")
    p_build.add_argument("--jobs", type=int, default=2, help="nvcc processes at once")
    p_measure = sub.add_parser("measure")
    p_measure.add_argument("--plan", type=pathlib.Path, required=True)
    p_measure.add_argument("--out", type=pathlib.Path, required=True)
    p_sass = sub.add_parser("sass")
    p_sass.add_argument("--plan", type=pathlib.Path, required=True)
    p_sass.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    return {"build": build, "measure": measure, "sass": sass_census}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
