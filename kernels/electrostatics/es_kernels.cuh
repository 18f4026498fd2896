#pragma once
// Internal: the kernels of one CUDA evaluate, in order (each launcher checks its launch):
//   rasterize.cu  float maps (float: exact whole numbers; plain float atomics in evaluate_async
//                 with deterministic = false):
//                 launch_rasterize     all cells -> movable and filler float maps (2 x 2-bin tiles)
//                 launch_density_float maps + F -> rho (R2C input), partials, bins flagged; clears
//                 piled movable cells (float, exact, after a dense evaluate):
//                 launch_rasterize_piled movable cells -> 64-bit tiles (a block's bins summed in
//                                      shared memory first), fillers -> the filler float map
//                 launch_density_float the same pass, the movable map read as 64-bit tiles
//                 64-bit fixed-point bins (double, or float after a filler float bin overflowed),
//                 accumulators in the natural layout, two maps on small grids:
//                 launch_rasterize     all cells -> movable and filler maps
//                 launch_density_combined maps + F -> overflow/max partials, rho; clears both
//                 or one map on large grids:
//                 launch_rasterize     movable cells -> the map
//                 launch_movable_stats map + F -> overflow/max partials
//                 launch_rasterize     filler cells -> the same map
//                 launch_density_finish map + F -> rho (R2C input); clears the map
//   large_cells.cuh (before rasterize and before gather, when the cell table lists any): movable
//                 large cells in chunks of a block each, or by difference map and summed-area tables
//   (cuFFT 2D R2C)
//   spectral.cu   launch_spectral_fields  -> the C2C input (Ex + i Ey), energy partials
//   (cuFFT 2D C2C inverse, in place: Ex + i Ey, permuted)
//   gather.cu     launch_field_tiles   C2C output -> (Ex, Ey) map in 2 x 2-bin tiles
//                 launch_gather        Ex/Ey -> gradients
//   finalize.cu   launch_finalize      partials -> {energy, overflow, max density, wrapped}
// Every reduction is fixed-order (per-block CUB reductions into per-block partials, then one
// block over the partials), so a run is bitwise reproducible (except with plain float atomics).
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>

#include <cstdint>
#include <type_traits>

#include "electrostatics/cell_layout.hpp"
#include "electrostatics/pipeline_policy.cuh"
#include "math/complex.hpp"
#include "math/electrostatics.hpp"

namespace efield::detail {

// Large cells (is_large_cell: stretched beyond kLargeCellSpan bins on an axis) skip the paths
// with one thread per cell. The pipeline lists them once, at construction: first those of up to
// kWarpCellSpan bins a side, a warp each (kEsWarpsPerBlock cells a block), then the rest, a block
// each; both parts ascending, so movable cells come first in each. One block per cell of a few
// dozen bins left most of its threads idle, and thousands of such blocks cost the block scheduler
// more than their work (bench_ispd/results/electrostatics.md).
inline constexpr int kEsWarpsPerBlock = kEsThreads / 32;
inline int es_blocks_for_warps(int warps) { return (warps + kEsWarpsPerBlock - 1) / kEsWarpsPerBlock; }

// Rasterize adds its outside-area sums into this many slot pairs (few enough for finalize to read,
// enough that the atomics do not serialize on one address).
inline constexpr int kEsTotalSlots = 64;
// Exact float maps (float, deterministic): every contribution is rounded to a whole number of
// 2^-kEsExactFloatBits bin areas (resolution 3.8e-6 bin areas). Sums of whole numbers up to 2^24
// are exact in float, so the atomics' order cannot change a bit: as deterministic as integer
// atomics, with float4 atomics on 2 x 2-bin tiles. A bin holds 2^(24 - kEsExactFloatBits) = 64
// bin areas of movable or of filler charge exactly; the density pass flags any bin at or above 2^24 and
// evaluate then runs again on the same input with wider bins (pipeline_cuda.cu).
inline constexpr int kEsExactFloatBits = 18;
// 2^24: a sum at or above it may have rounded (2^24 + 1 rounds down to 2^24, so equality is flagged too).
inline constexpr float kEsExactFloatLimit = 16777216.0f;

// Piled movable cells (a placer's first iterations: thousands of bin areas in a few bins) take
// the same whole numbers of 2^-kEsExactFloatBits bin areas into 64-bit tiles (es_tile_index),
// so that no sum rounds and the bits are those of the exact float maps wherever those hold. A
// block takes kEsThreads * cells_per_thread consecutive movable cells and sums them in a window
// of at most kEsPiledWindowBins bins in shared memory (32-bit integer atomics, order-free): the
// bounding box of their footprints where it fits, else the bins around their mean. It adds each
// non-zero bin of the window to the map with one 64-bit atomic, so a hot bin takes one global
// atomic per block instead of one per cell, and each contribution outside the window to the map
// directly. A block's sum in one bin stays below 2^32: at most
// kEsThreads * kEsPiledMaxCellsPerThread = 8192 contributions of at most 2^18 + 1 each (the
// launch parameters: pipeline_policy.cuh).
static_assert(static_cast<double>(kEsThreads) * kEsPiledMaxCellsPerThread * ((1 << kEsExactFloatBits) + 1) <
                  4294967296.0,
              "a block's sum in one shared bin must fit 32 bits");
static_assert(kEsTotalSlots <= kEsThreads, "finalize reads one slot per thread");

// Maps in 2 x 2-bin tiles: tile (i, j) holds bins (2i, 2j), (2i, 2j+1), (2i+1, 2j), (2i+1, 2j+1),
// in that order, and sits at i * es_tiles_n(N) + j; entries past an odd M or N are padding (0).
// A stretched footprint (2-3 bins a side) touches 2.9 tiles on average. The float charge maps
// take one sm_90 float4 atomic per tile (3.3 atomics with 1 x 4-bin row segments;
// bench_ispd/results/electrostatics.md, "deterministic = false"); the (Ex, Ey) field map the
// gather reads has one 32-byte sector per tile in float (the permuted C2C output would scatter a
// footprint over sectors: bench_ispd/results/electrostatics.md).
__host__ __device__ __forceinline__ int es_tiles_n(int N) { return (N + 1) / 2; }
// Entries of a tiled map (bins plus padding).
__host__ __device__ __forceinline__ std::int64_t es_tile_map_size(int M, int N) {
  return 4 * static_cast<std::int64_t>((M + 1) / 2) * es_tiles_n(N);
}
__host__ __device__ __forceinline__ std::int64_t es_tile_index(int m, int n, int N) {
  return 4 * (static_cast<std::int64_t>(m >> 1) * es_tiles_n(N) + (n >> 1)) + 2 * (m & 1) + (n & 1);
}

// Two values of one bin, one aligned load (the tiled field map holds (Ex, Ey) pairs).
template <typename T>
struct alignas(2 * sizeof(T)) EsVec2 {
  T x, y;
};

// The two T at `pair` (a Complex<T> or an EsVec2<T>) read for the last time, evict-first, so that
// dead data leaves L2 before what the next kernels read (as float2 / double2).
template <typename T>
using EsNativePair = std::conditional_t<std::is_same_v<T, float>, float2, double2>;
template <typename T>
__device__ __forceinline__ EsNativePair<T> es_load_pair_last_use(const T* pair) {
  return __ldcs(reinterpret_cast<const EsNativePair<T>*>(pair));
}

using EsAccum = unsigned long long;

// The outside-area slot of cell c: one of kEsTotalSlots pairs [movable, filler] picked by the
// cell's index. Cells partly outside the region (along its edges; most of a shallow 3D region's
// cells stick out in z once stretched) spread their integer atomics over 2 kEsTotalSlots
// addresses instead of contending on one; finalize sums the pairs (integers: order-free).
__host__ __device__ __forceinline__ std::int64_t outside_slot(std::int64_t c, bool filler) {
  return 2 * (c & (kEsTotalSlots - 1)) + (filler ? 1 : 0);
}

// Maximum for CUB block reductions (no dependence on CUB's operator names across versions).
struct EsMax {
  template <typename U>
  __host__ __device__ __forceinline__ U operator()(const U& a, const U& b) const { return a > b ? a : b; }
};  // fixed-point accumulator (density.hpp); values are >= 0

// 64-bit bins: accumulators in the natural layout (a footprint row is 2-3 adjacent words; the
// density pass writes rho into the permuted position the R2C reads). One map (kept single so
// that it stays in L2 on large grids): movable cells, then movable_stats (overflow and max
// density of movable + fixed), then fillers, then density_finish (rho, clearing the map); two
// maps (small grids): all cells in one launch, then density_combined. Float maps: all cells into
// the movable and filler maps, then density_float.
template <typename T>
struct RasterizeArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;  // per cell (movable, then fillers)
  const T* h;
  EsAccum* acc;             // 64-bit bins, natural layout
  EsAccum* acc_filler;      // two maps: the fillers' map (else nullptr: fillers go to acc)
  T* charge;                // float maps: movable, then fillers at charge_filler, es_tile_index
  T* charge_filler;         //   layout; else nullptr
  bool exact;               // float maps: contributions rounded to whole numbers (kEsExactFloatBits)
  T to_fixed;               // 2^bits / (bx by) (deterministic = false: 1 / (bx by))
  std::int64_t cell_begin, cell_end;  // cells of this launch, one thread each (large ones return at once)
  const int* large_cells;   // the large cells (see kEsWarpsPerBlock)
  int warp_begin, warp_end;    // the ranges of large_cells this launch covers: a warp each,
  int large_begin, large_end;  //   a block each
  EsAccum* outside;            // [2 kEsTotalSlots]: (movable, filler) outside_fixed_point sums, slot pairs
  // launch_rasterize_piled: movable cells [0, piled_end) as whole numbers (exact) into these
  // 64-bit tiles, cells_per_thread each; fillers [cell_begin, cell_end) into charge_filler.
  EsAccum* wide_tiles;
  std::int64_t piled_end;
  int cells_per_thread;
  // Bins that check (exact float maps, piled): the run's "a bin may have rounded" flag, cleared
  // by the first thread of the launch (the density pass sets it after this grid has ended).
  EsAccum* rerun_flag = nullptr;
};
template <typename T>
void launch_rasterize(const RasterizeArgs<T>& a, cudaStream_t stream);
// Piled movable cells (float, deterministic; kEsPiledWindowBins); large cells as launch_rasterize.
template <typename T>
void launch_rasterize_piled(const RasterizeArgs<T>& a, cudaStream_t stream);

template <typename T>
struct DensityPassArgs {
  std::int64_t bins;
  const T* fixed_rho;   // F / (bx by), natural layout (the accumulator's)
  EsAccum* acc;         // movable_stats: movable charge; density_finish: all, cleared after reading
  EsAccum* acc_filler;  // density_combined (two maps): filler charge, cleared after reading
  T* rho;               // permuted: the R2C input
  T inv_scale;          // 2^-bits
  T target_density;
  double* part_overflow;  // [blocks]
  T* part_max;            // [blocks]
  EsAccum* part_held;     // density_float with exact maps: [blocks] bins at or above kEsExactFloatLimit
  T* charge;              // density_float: the float maps (RasterizeArgs), cleared after reading
  T* charge_filler;
  bool exact;             // density_float: exact float maps (whole numbers, inv_scale applies)
  int blocks;
  const T* fixed_tiles;   // density_float: F / (bx by) in 2 x 2-bin tiles (es_tile_index), else nullptr
  EsAccum* wide_movable;  // density_float after launch_rasterize_piled: the movable 64-bit tiles
                          //   (charge unused), cleared after reading; else nullptr
  EsAccum* rerun_flag = nullptr;  // with part_held: set to 1 by a block that flagged a bin
};
template <typename T>
void launch_movable_stats(const DensityPassArgs<T>& a, cudaStream_t stream);
template <typename T>
void launch_density_finish(const DensityPassArgs<T>& a, int N, cudaStream_t stream);
// Two maps: movable_stats and density_finish in one pass over both maps.
template <typename T>
void launch_density_combined(const DensityPassArgs<T>& a, int N, cudaStream_t stream);
// Float maps: the same over the float maps (exact maps: flags bins whose sum may have rounded).
template <typename T>
void launch_density_float(const DensityPassArgs<T>& a, int N, cudaStream_t stream, bool overlap);

template <typename T>
struct FinalizeArgs {
  const double* part_overflow;
  const T* part_max;
  int density_blocks;
  const double* part_energy;
  int spectral_blocks;
  double energy_scale;    // M N / 4
  double overflow_scale;  // bx by / movable area
  const EsAccum* part_held;  // exact float maps (else nullptr): [density_blocks] bins flagged
  EsAccum* outside;          // [2 kEsTotalSlots] rasterize's outside-area sums; zeroed here
  double outside_scale;      // bx by 2^-kOutsideFractionBits
  double* result;            // kEsResultSlots values, read by the host and device_result()
};
// result: {energy, overflow, max_density, movable_area_outside, filler_area_outside, rerun flag
// (an exact float bin may have rounded: 0 or 1)}.
inline constexpr int kEsResultSlots = 6;
inline constexpr int kEsRerunSlot = 5;

template <typename T>
struct SpectralArgs {
  SpectralGrid<T> g;  // twiddle pointers are device pointers
  const Complex<T>* spectrum;
  Complex<T>* z;      // spectral_fields: [M][N], the C2C input w_x + i w_y (Ex + i Ey out)
  Complex<T>* w_phi;  // spectral_potential: [M][half], the C2R input
  double* part_energy;
  int blocks;
};
template <typename T>
void launch_spectral_fields(const SpectralArgs<T>& a, cudaStream_t stream, bool overlap);
// phi on request: writes a.w_phi; no energy.
template <typename T>
void launch_spectral_potential(const SpectralArgs<T>& a, cudaStream_t stream);

template <typename T>
struct GatherArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
  // (Ex, Ey)[es_tile_index(m, n, N)], the weight folded in (field_tiles); nullptr for the exact
  // gather, which reads phi and applies the weight itself.
  const EsVec2<T>* e;
  T* grad_x;
  T* grad_y;
  std::int64_t num_cells;  // one thread each (large ones return at once)
  const int* large_cells;  // the large cells (see kEsWarpsPerBlock):
  int num_warp_cells;      //   the first num_warp_cells a warp each, the rest a block each
  int num_large;
  const T* weight;   // device: EvaluateOptions::weight (field_tiles applies it to the tiled map)
  bool accumulate;   // EvaluateOptions::accumulate (part of the captured graph)
  // Bins that check: the density pass's rerun flag. When it is set the gather writes nothing: the
  // evaluate runs again with wider bins, and an accumulating caller's gradient must receive one
  // run's gradient, not two.
  const EsAccum* rerun_flag = nullptr;
};
template <typename T>
void launch_gather(const GatherArgs<T>& a, cudaStream_t stream, bool overlap);
// GradientScale::Exact: one thread per cell, the gradient from the potential phi (permuted layout).
template <typename T>
void launch_gather_exact(GatherArgs<T> a, const T* phi, cudaStream_t stream);
// *weight = value (a one-thread kernel, so that it is stream-ordered and capturable).
template <typename T>
void launch_set_weight(T* weight, T value, cudaStream_t stream);
// The set_weight kernel (arguments: T* weight, T value): a captured graph's weight node is found
// by it, and its value changed in place between replays (graph_cache.cuh).
template <typename T>
const void* set_weight_kernel();
// zero_gap_gradient: grad[begin, end) = 0 on both axes.
template <typename T>
void launch_zero_gap(T* grad_x, T* grad_y, std::int64_t begin, std::int64_t end, cudaStream_t stream);
// e[es_tile_index(m, n, N)] = *weight ((-1)^m Re z[p(m), q(n)], (-1)^n Im z[p(m), q(n)]) (the
// gradient's weight folded into the map the gather reads); padding untouched.
template <typename T>
void launch_field_tiles(const EsVec2<T>* z, EsVec2<T>* e, int M, int N, const T* weight, cudaStream_t stream,
                        bool overlap);

// Cell t's position index and stretched footprint for the kernels with one thread per cell; false
// for a large cell (those have a warp or a block each). Threads index cells directly, not through
// a list of the small ones: one dependent load less. Sizes
// and positions are read once per pass, with evict-first hints so that they do not displace the
// maps in L2 (the gradients are stored the same way). Fillers of one size (make_fillers' are) read
// no sizes (CellGeometry::uniform_fillers). Args: RasterizeArgs or
// GatherArgs.
// kStreaming = false: plain loads (the piled rasterize reads each cell twice, the second time
// from L1).
template <typename T, typename Args, bool kStreaming = true>
__device__ __forceinline__ bool load_small_cell(const Args& a, std::int64_t t, std::int64_t* i, Footprint<T>* f) {
  const auto load = [](const T* p) {
    if constexpr (kStreaming) return __ldcs(p);
    else return __ldg(p);
  };
  T w, h;
  if (a.g.uniform_fillers && t >= a.g.num_movable) {
    w = a.g.filler_w;
    h = a.g.filler_h;
  } else {
    w = load(a.w + t);
    h = load(a.h + t);
  }
  *i = position_index(a.g, t);
  const T x = load(a.x + *i), y = load(a.y + *i);
  if (is_large_cell(a.g, w, h)) return false;
  *f = cell_footprint(a.g, t, x, y, w, h);
  return true;
}

template <typename T>
void launch_finalize(const FinalizeArgs<T>& a, cudaStream_t stream);

// The block's sum of `value` (fixed-order CUB reduction) into partials[blockIdx.x], for finalize
// to sum in a fixed order. Every thread of the block calls it.
template <typename U>
__device__ __forceinline__ void es_write_block_sum(U value, U* partials, U* nonzero_flag = nullptr) {
  using Reduce = cub::BlockReduce<U, kEsThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const U block_value = Reduce(storage).Sum(value);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_value;
    if (nonzero_flag != nullptr && block_value != U(0)) *nonzero_flag = U(1);  // the same value from any block
  }
}

// Whether a gather must skip its writes (GatherArgs::rerun_flag).
template <typename Args>
__device__ __forceinline__ bool es_gather_skipped(const Args& a) {
  return a.rerun_flag != nullptr && *a.rerun_flag != 0;
}

inline int es_blocks_for(std::int64_t items) {
  const std::int64_t b = (items + kEsThreads - 1) / kEsThreads;
  return static_cast<int>(b < 1 ? 1 : b);
}
inline int es_reduce_blocks(std::int64_t items) {
  const int b = es_blocks_for(items);
  return b < kEsMaxReduceBlocks ? b : kEsMaxReduceBlocks;
}

}  // namespace efield::detail
