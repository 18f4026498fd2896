// Rasterization: every movable and filler cell's stretched footprint (docs/math.md 2.1-2.3) is added
// into float maps in 2 x 2-bin tiles (float: exact whole numbers, or plain float atomics in a
// non-deterministic evaluate_async) or as fixed-point integers (density.hpp) into 64-bit accumulators in the natural layout, where a
// footprint row is 2-3 adjacent words; the density pass writes rho into the permuted position the
// forward R2C reads while it reads the maps anyway. 64-bit bins on large grids share one map:
// movable cells first, then movable_stats reads the movable + fixed density for the overflow and
// max-density partials, then the fillers are added and density_finish converts to rho and clears
// the map for the next evaluate. On small grids fillers go to a second map, all cells are
// rasterized by one launch and density_combined does stats and rho in one pass.
#include <cub/block/block_reduce.cuh>

#include <climits>
#include <type_traits>

#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "electrostatics/block_window.cuh"
#include "electrostatics/density_pass.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/tile_atomics.cuh"

namespace efield::detail {
namespace {

// Float maps: the map of cell c.
template <typename T>
__device__ __forceinline__ T* charge_map_of(const RasterizeArgs<T>& a, std::int64_t c) {
  return c >= a.g.num_movable ? a.charge_filler : a.charge;
}

// Adds one bin's charge (kWideMovable: launch_rasterize_piled, movable cells into the 64-bit tiles).
template <typename T, bool kWideMovable = false>
__device__ __forceinline__ void add_charge(const RasterizeArgs<T>& a, EsAccum* acc, T weight, int m, int n,
                                           std::int64_t c) {
  if (kWideMovable && c < a.g.num_movable) {
    const T v = exact_float_weight(a, weight);
    if (v > T(0)) atomicAdd(a.wide_tiles + es_tile_index(m, n, a.g.N), static_cast<EsAccum>(v));
    return;
  }
  if (a.charge != nullptr) {  // float maps
    const T v = exact_float_weight(a, weight);
    if (v > T(0)) atomicAdd(charge_map_of(a, c) + es_tile_index(m, n, a.g.N), v);
    return;
  }
  const std::int64_t q = to_fixed_point(weight, a.to_fixed);
  if (q > 0) atomicAdd(acc + static_cast<std::int64_t>(m) * a.g.N + n, static_cast<EsAccum>(q));
}

// Two maps: fillers (cell indices from num_movable on) have their own map.
template <typename T>
__device__ __forceinline__ EsAccum* map_of(const RasterizeArgs<T>& a, std::int64_t c) {
  return a.acc_filler != nullptr && c >= a.g.num_movable ? a.acc_filler : a.acc;
}

// One thread per cell (large cells return at once). Footprints of up to 3 x 3 bins (almost every
// standard cell and filler: stretched cells span 2-3 bins per axis) take an unrolled path; larger
// ones loop.
template <typename T>
__device__ __forceinline__ void rasterize_small(const RasterizeArgs<T>& a, int block) {
  const std::int64_t c = a.cell_begin + static_cast<std::int64_t>(block) * blockDim.x + threadIdx.x;
  if (c >= a.cell_end) return;
  std::int64_t i;
  Footprint<T> f;
  if (!load_small_cell(a, c, &i, &f)) return;
  add_outside(a, f, c);
  EsAccum* acc = map_of(a, c);
  if (is_small_footprint(f)) {
    const SmallFootprint<T> s = small_footprint(f, a.g);
    if (a.charge != nullptr) {
      T w[3][3];
#pragma unroll
      for (int p = 0; p < 3; ++p)
#pragma unroll
        for (int q = 0; q < 3; ++q) w[p][q] = exact_float_weight(a, s.weight(p, q));
      add_tile_atomics(charge_map_of(a, c), f.m0, f.n0, es_tiles_n(a.g.N), 1, w);
      return;
    }
#pragma unroll
    for (int p = 0; p < 3; ++p) {
      if (f.m0 + p > f.m1) continue;
#pragma unroll
      for (int k = 0; k < 3; ++k)
        if (f.n0 + k <= f.n1) add_charge(a, acc, s.weight(p, k), f.m0 + p, f.n0 + k, c);
    }
    return;
  }
  for (int m = f.m0; m <= f.m1; ++m)
    for (int n = f.n0; n <= f.n1; ++n) add_charge(a, acc, footprint_weight(f, a.g, m, n), m, n, c);
}

// Large cell c's footprint, its bins split among `lanes` threads (this one is `lane`).
template <typename T, bool kWideMovable = false>
__device__ __forceinline__ void rasterize_large_cell(const RasterizeArgs<T>& a, int c, int lane, int lanes) {
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, c, a.x[i], a.y[i], a.w[c], a.h[c]);
  if (lane == 0) add_outside(a, f, static_cast<std::int64_t>(c));
  EsAccum* acc = map_of(a, c);
  const int cols = f.n1 - f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.m1 - f.m0 + 1) * cols;
  for (std::int64_t k = lane; k < count; k += lanes) {
    const int m = f.m0 + static_cast<int>(k / cols), n = f.n0 + static_cast<int>(k % cols);
    add_charge<T, kWideMovable>(a, acc, footprint_weight(f, a.g, m, n), m, n, c);
  }
}

// One warp per large cell of up to kWarpCellSpan bins a side.
template <typename T, bool kWideMovable = false>
__device__ __forceinline__ void rasterize_warp_cell(const RasterizeArgs<T>& a, int block) {
  const int k = a.warp_begin + block * kEsWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
  if (k < a.warp_end)
    rasterize_large_cell<T, kWideMovable>(a, a.large_cells[k], static_cast<int>(threadIdx.x % 32), 32);
}

// One block per large cell beyond kWarpCellSpan bins a side.
template <typename T, bool kWideMovable = false>
__device__ __forceinline__ void rasterize_large(const RasterizeArgs<T>& a, int block) {
  rasterize_large_cell<T, kWideMovable>(a, a.large_cells[a.large_begin + block], static_cast<int>(threadIdx.x),
                                        static_cast<int>(blockDim.x));
}

// The charge of piled cells [first, last) (this thread's share) into the shared window, those
// outside it (kWhole: none) straight into the map. Contributions are those of the exact float
// maps (exact_float_weight of the same weights: small_footprint's for a 3 x 3 footprint, else
// footprint_weight), so the sums are the same integers.
template <bool kWhole, typename T>
__device__ __forceinline__ void add_piled_cells(const RasterizeArgs<T>& a, std::int64_t first, std::int64_t last,
                                                const BinWindow& win, unsigned int* window) {
  const auto add = [&](T weight, int m, int n) {
    const T v = exact_float_weight(a, weight);
    if (!(v > T(0))) return;
    if (kWhole || win.holds(m, n))
      atomicAdd(window + (m - win.m0) * win.cols + (n - win.n0), static_cast<unsigned int>(v));
    else atomicAdd(a.wide_tiles + es_tile_index(m, n, a.g.N), static_cast<EsAccum>(v));
  };
  for (std::int64_t c = first + threadIdx.x; c < last; c += kEsThreads) {
    std::int64_t i;
    Footprint<T> f;
    if (!load_small_cell<T, RasterizeArgs<T>, false>(a, c, &i, &f)) continue;
    add_outside(a, f, c);
    if (is_small_footprint(f)) {
      const SmallFootprint<T> s = small_footprint(f, a.g);
#pragma unroll
      for (int p = 0; p < 3; ++p)
#pragma unroll
        for (int q = 0; q < 3; ++q)
          if (f.m0 + p <= f.m1 && f.n0 + q <= f.n1) add(s.weight(p, q), f.m0 + p, f.n0 + q);
      continue;
    }
    for (int m = f.m0; m <= f.m1; ++m)
      for (int n = f.n0; n <= f.n1; ++n) add(footprint_weight(f, a.g, m, n), m, n);
  }
}

// Piled movable cells: the block's run of cells (es_kernels.cuh, kEsPiledWindowBins), read twice
// (the bounding box and window, then the charge).
template <typename T>
__device__ __forceinline__ void rasterize_piled_block(const RasterizeArgs<T>& a, int block) {
  static_assert(kEsThreads % 32 == 0, "whole warps");
  __shared__ unsigned int window[kEsPiledWindowBins];
  const std::int64_t run = static_cast<std::int64_t>(kEsThreads) * a.cells_per_thread;
  const std::int64_t first = static_cast<std::int64_t>(block) * run;
  const std::int64_t last = first + run < a.piled_end ? first + run : a.piled_end;
  BinBox mine{INT_MAX, INT_MIN, INT_MAX, INT_MIN, 0.f, 0.f, 0};
  for (std::int64_t c = first + threadIdx.x; c < last; c += kEsThreads) {
    std::int64_t i;
    Footprint<T> f;
    if (!load_small_cell<T, RasterizeArgs<T>, false>(a, c, &i, &f)) continue;
    mine.m0 = min(mine.m0, f.m0);
    mine.m1 = max(mine.m1, f.m1);
    mine.n0 = min(mine.n0, f.n0);
    mine.n1 = max(mine.n1, f.n1);
    mine.m_sum += static_cast<float>(f.m0);
    mine.n_sum += static_cast<float>(f.n0);
    ++mine.cells;
  }
  const BinBox box = block_bin_box(mine);
  if (box.cells == 0) return;  // no small cells (uniform across the block)
  const BinWindow win = block_window(box);
  const int window_bins = win.rows * win.cols;
  for (int k = threadIdx.x; k < window_bins; k += kEsThreads) window[k] = 0u;
  __syncthreads();
  if (win.whole) add_piled_cells<true>(a, first, last, win, window);
  else add_piled_cells<false>(a, first, last, win, window);
  __syncthreads();
  for (int k = threadIdx.x; k < window_bins; k += kEsThreads) {
    const unsigned int v = window[k];
    if (v != 0u)
      atomicAdd(a.wide_tiles + es_tile_index(win.m0 + k / win.cols, win.n0 + k % win.cols, a.g.N), EsAccum{v});
  }
}

// One launch for all cells: the first blocks take one cell per thread, the next kEsWarpsPerBlock
// large cells each (a warp each), the rest one large cell each.
template <typename T>
__global__ void __launch_bounds__(kEsThreads, kEsCellKernelMinBlocks<T>) rasterize_cells(RasterizeArgs<T> a,
                                                                                         int small_blocks,
                                                                                         int warp_blocks) {
  let_next_kernel_start();  // the density pass waits for the whole grid anyway
  const int b = static_cast<int>(blockIdx.x);
  if (b == 0 && threadIdx.x == 0 && a.rerun_flag != nullptr) *a.rerun_flag = 0;
  if (b < small_blocks) rasterize_small(a, b);
  else if (b < small_blocks + warp_blocks) rasterize_warp_cell(a, b - small_blocks);
  else rasterize_large(a, b - small_blocks - warp_blocks);
}

// launch_rasterize_piled: piled movable blocks, then the fillers a thread each, then the large
// cells (movable ones into the 64-bit tiles) as in rasterize_cells.
template <typename T>
__global__ void __launch_bounds__(kEsThreads, kEsCellKernelMinBlocks<T>) rasterize_piled_cells(RasterizeArgs<T> a,
                                                                                                int piled_blocks,
                                                                                                int small_blocks,
                                                                                                int warp_blocks) {
  let_next_kernel_start();
  const int b = static_cast<int>(blockIdx.x);
  if (b == 0 && threadIdx.x == 0 && a.rerun_flag != nullptr) *a.rerun_flag = 0;
  if (b < piled_blocks) rasterize_piled_block(a, b);
  else if (b < piled_blocks + small_blocks) rasterize_small(a, b - piled_blocks);
  else if (b < piled_blocks + small_blocks + warp_blocks)
    rasterize_warp_cell<T, true>(a, b - piled_blocks - small_blocks);
  else rasterize_large<T, true>(a, b - piled_blocks - small_blocks - warp_blocks);
}

// Movable + fixed density per bin (docs/math.md 2.10): overflow and max-density partials per block.
template <typename T>
__global__ void movable_stats(DensityPassArgs<T> a) {
  double overflow = 0;
  T mx = T(0);
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bins;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const BinDensity<T> b = bin_density(static_cast<std::int64_t>(a.acc[k]), std::int64_t{0}, a.fixed_rho[k], a.inv_scale);
    overflow += static_cast<double>(bin_overflow(b.movable_rho, a.target_density));
    mx = b.movable_rho > mx ? b.movable_rho : mx;
  }
  write_partials(a, overflow, mx);
}

// rho = all charge + F / (bx by); the map is cleared for the next evaluate.
template <typename T>
__global__ void density_finish(DensityPassArgs<T> a, int N) {
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bins;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    a.rho[rho_index(a, k, N)] =
        bin_density(static_cast<std::int64_t>(a.acc[k]), std::int64_t{0}, a.fixed_rho[k], a.inv_scale).rho;
    a.acc[k] = 0;
  }
}

// Two maps: stats and rho in one pass over the movable and filler maps, both cleared.
template <typename T>
__global__ void density_combined(DensityPassArgs<T> a, int N) {
  density_combined_pass(a, N);
}

// Float maps (float only): one thread per 2 x 2-bin tile of both float maps and of F, kept in the
// same tiles (one float4 load each instead of four scalar loads). Every thread has several tiles
// (the grid is at most kEsMaxReduceBlocks blocks, one partial each), so it loads kBatch of them
// before storing anything: one at a time kept a single load in flight per thread (the stores in
// between may alias the next loads). The maps and F are read, and the maps cleared, with
// evict-first hints: none of it is read again in this evaluate, while rho is (by the R2C next;
// both choices: bench_ispd/results/electrostatics.md). Exact maps hold whole numbers, converted
// exactly to integers and scaled like fixed-point bins; a bin above 2^24 is counted (its sum may
// have rounded) and finalize reports it. Launched with overlap after rasterize, which it waits
// for before anything else. kWideMovable: the movable map is launch_rasterize_piled's 64-bit
// tiles (exact whole numbers, nothing to flag).
template <typename T, bool kWideMovable>
__global__ void density_float(DensityPassArgs<T> a, int N) {
  static_assert(std::is_same_v<T, float>, "float maps are float only");
  wait_for_previous_kernel();
  constexpr int kBatch = 4;
  const int M = static_cast<int>(a.bins / N), tiles_m = (M + 1) / 2, tiles_n = es_tiles_n(N);
  double overflow = 0;
  T mx = T(0);
  EsAccum flagged = 0;
  // Blocks stride over tile rows, threads over a row's tiles, kBatch at a time (no 64-bit divisions).
  for (int ti = static_cast<int>(blockIdx.x); ti < tiles_m; ti += static_cast<int>(gridDim.x)) {
    const int m0 = 2 * ti;
    const std::int64_t row_first = static_cast<std::int64_t>(ti) * tiles_n;
    for (int j0 = static_cast<int>(threadIdx.x); j0 < tiles_n; j0 += kBatch * static_cast<int>(blockDim.x)) {
      float4 movable[kBatch], filler[kBatch], fixed[kBatch];
      [[maybe_unused]] longlong2 wide[kBatch][2];  // kWideMovable: the movable tile's four counts
      int col[kBatch];  // the tile's first column
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int j = j0 + i * static_cast<int>(blockDim.x);
        if (j >= tiles_n) break;
        const std::int64_t k = row_first + j;
        col[i] = 2 * j;
        if constexpr (kWideMovable) {
          wide[i][0] = __ldcs(reinterpret_cast<const longlong2*>(a.wide_movable + 4 * k));
          wide[i][1] = __ldcs(reinterpret_cast<const longlong2*>(a.wide_movable + 4 * k + 2));
          movable[i] = make_float4(0.f, 0.f, 0.f, 0.f);  // unused
        } else {
          movable[i] = __ldcs(reinterpret_cast<const float4*>(a.charge + 4 * k));
        }
        filler[i] = __ldcs(reinterpret_cast<const float4*>(a.charge_filler + 4 * k));
        fixed[i] = __ldcs(reinterpret_cast<const float4*>(a.fixed_tiles + 4 * k));
      }
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int j = j0 + i * static_cast<int>(blockDim.x);
        if (j >= tiles_n) break;
        const std::int64_t k = row_first + j;
        if constexpr (kWideMovable) {
          __stcs(reinterpret_cast<longlong2*>(a.wide_movable + 4 * k), make_longlong2(0, 0));
          __stcs(reinterpret_cast<longlong2*>(a.wide_movable + 4 * k + 2), make_longlong2(0, 0));
        } else {
          __stcs(reinterpret_cast<float4*>(a.charge + 4 * k), make_float4(0.f, 0.f, 0.f, 0.f));
        }
        __stcs(reinterpret_cast<float4*>(a.charge_filler + 4 * k), make_float4(0.f, 0.f, 0.f, 0.f));
        const T mv[4] = {movable[i].x, movable[i].y, movable[i].z, movable[i].w};
        const T fl[4] = {filler[i].x, filler[i].y, filler[i].z, filler[i].w};
        const T fx[4] = {fixed[i].x, fixed[i].y, fixed[i].z, fixed[i].w};
#pragma unroll
        for (int h = 0; h < 4; ++h) {
          const int m = m0 + h / 2, n = col[i] + h % 2;
          if (m >= M || n >= N) continue;
          BinDensity<T> b;
          if constexpr (kWideMovable) {
            const long long counts[4] = {wide[i][0].x, wide[i][0].y, wide[i][1].x, wide[i][1].y};
            flagged += fl[h] >= kEsExactFloatLimit ? 1u : 0u;
            b = bin_density(static_cast<std::int64_t>(counts[h]), static_cast<std::int64_t>(fl[h]), fx[h],
                            a.inv_scale);
          } else if (a.exact) {
            flagged += (mv[h] >= kEsExactFloatLimit || fl[h] >= kEsExactFloatLimit) ? 1u : 0u;
            b = bin_density(static_cast<std::int64_t>(mv[h]), static_cast<std::int64_t>(fl[h]), fx[h],
                            a.inv_scale);
          } else {
            b = bin_density(mv[h], fl[h], fx[h]);
          }
          overflow += static_cast<double>(bin_overflow(b.movable_rho, a.target_density));
          mx = b.movable_rho > mx ? b.movable_rho : mx;
          a.rho[permuted_index(m, n, M, N)] = b.rho;
        }
      }
    }
  }
  write_partials(a, overflow, mx);
  if (a.exact) es_write_block_sum(flagged, a.part_held, a.rerun_flag);  // the bin check: bins flagged
}

}  // namespace

template <typename T>
void launch_rasterize(const RasterizeArgs<T>& a, cudaStream_t stream) {
  const int small_blocks = a.cell_end > a.cell_begin ? es_blocks_for(a.cell_end - a.cell_begin) : 0;
  const int warp_blocks = es_blocks_for_warps(a.warp_end - a.warp_begin);
  const int blocks = small_blocks + warp_blocks + (a.large_end - a.large_begin);
  if (blocks == 0) return;
  rasterize_cells<T><<<blocks, kEsThreads, 0, stream>>>(a, small_blocks, warp_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_rasterize_piled(const RasterizeArgs<T>& a, cudaStream_t stream) {
  const std::int64_t run = static_cast<std::int64_t>(kEsThreads) * a.cells_per_thread;
  const int piled_blocks = static_cast<int>((a.piled_end + run - 1) / run);
  const int small_blocks = a.cell_end > a.cell_begin ? es_blocks_for(a.cell_end - a.cell_begin) : 0;
  const int warp_blocks = es_blocks_for_warps(a.warp_end - a.warp_begin);
  const int blocks = piled_blocks + small_blocks + warp_blocks + (a.large_end - a.large_begin);
  if (blocks == 0) return;
  rasterize_piled_cells<T><<<blocks, kEsThreads, 0, stream>>>(a, piled_blocks, small_blocks, warp_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_movable_stats(const DensityPassArgs<T>& a, cudaStream_t stream) {
  movable_stats<T><<<a.blocks, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_density_finish(const DensityPassArgs<T>& a, int N, cudaStream_t stream) {
  density_finish<T><<<es_blocks_for(a.bins), kEsThreads, 0, stream>>>(a, N);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_density_combined(const DensityPassArgs<T>& a, int N, cudaStream_t stream) {
  density_combined<T><<<a.blocks, kEsThreads, 0, stream>>>(a, N);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_density_float(const DensityPassArgs<T>& a, int N, cudaStream_t stream, bool overlap) {
  if (a.wide_movable != nullptr) launch_kernel(overlap, density_float<T, true>, a.blocks, kEsThreads, 0, stream, a, N);
  else launch_kernel(overlap, density_float<T, false>, a.blocks, kEsThreads, 0, stream, a, N);
}

template void launch_rasterize<float>(const RasterizeArgs<float>&, cudaStream_t);
template void launch_rasterize<double>(const RasterizeArgs<double>&, cudaStream_t);
template void launch_rasterize_piled<float>(const RasterizeArgs<float>&, cudaStream_t);
template void launch_movable_stats<float>(const DensityPassArgs<float>&, cudaStream_t);
template void launch_movable_stats<double>(const DensityPassArgs<double>&, cudaStream_t);
template void launch_density_finish<float>(const DensityPassArgs<float>&, int, cudaStream_t);
template void launch_density_finish<double>(const DensityPassArgs<double>&, int, cudaStream_t);
template void launch_density_combined<float>(const DensityPassArgs<float>&, int, cudaStream_t);
template void launch_density_combined<double>(const DensityPassArgs<double>&, int, cudaStream_t);
template void launch_density_float<float>(const DensityPassArgs<float>&, int, cudaStream_t, bool);

}  // namespace efield::detail
