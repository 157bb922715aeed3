// The stock CUTLASS 3.x Hopper GEMM kernel type that gemm_bench.cu times (and launches as wrapped.h does): one
// configuration per build, chosen by the macros below (set by build.sh). dx[M = N*H*W, C] = dy[M, K] x w[C, K]^T:
// A row-major M x K, B "column-major" K x C (the filter's natural [C, K] rows), D row-major M x C.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/util/packed_stride.hpp"

using namespace cute;

#ifndef TILE_M
#define TILE_M 128
#endif
#ifndef TILE_N
#define TILE_N 256
#endif
#ifndef CLUSTER_M
#define CLUSTER_M 1
#endif
#ifndef CLUSTER_N
#define CLUSTER_N 1
#endif
#ifndef PINGPONG
#define PINGPONG 0
#endif
#ifndef STREAMK
#define STREAMK 0
#endif
#ifndef BF16
#define BF16 0
#endif

using Element = std::conditional_t<BF16, cutlass::bfloat16_t, cutlass::half_t>;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutD = cutlass::layout::RowMajor;
constexpr int kAlign = 8;
using TileShape = Shape<Int<TILE_M>, Int<TILE_N>, _64>;
using ClusterShape = Shape<Int<CLUSTER_M>, Int<CLUSTER_N>, _1>;
using MainloopSchedule = std::conditional_t<PINGPONG, cutlass::gemm::KernelTmaWarpSpecializedPingpong,
                                            cutlass::gemm::KernelTmaWarpSpecializedCooperative>;
using EpilogueSchedule = std::conditional_t<PINGPONG, cutlass::epilogue::TmaWarpSpecialized,
                                            cutlass::epilogue::TmaWarpSpecializedCooperative>;
using Scheduler = std::conditional_t<STREAMK, cutlass::gemm::StreamKScheduler, cutlass::gemm::PersistentScheduler>;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    Element, LayoutD, kAlign, Element, LayoutD, kAlign, EpilogueSchedule>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, LayoutA, kAlign, Element, LayoutB, kAlign, float,
    TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop,
                                                        CollectiveEpilogue, Scheduler>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
