// Bins::Windows: the exact float maps (float, deterministic, spread out) from the cells in bin
// order (cell_order.cuh). A block takes kEsThreads * kEsWindowCellsPerThread consecutive entries of
// the order (movable cells or fillers, never both), finds the bounding box of their footprints,
// sums their whole numbers of 2^-kEsExactFloatBits bin areas (the float maps' own contributions)
// in a shared window with 32-bit integer atomics, and adds the window to its float map with one
// float4 atomic per 2 x 2-bin tile: about one global atomic per bin and block instead of three
// tiles per cell. Contributions outside the window (a block whose box exceeds kEsWindowBins: an
// order grown stale, or a fixed macro between its cells) go to the map one by one. Large cells
// take launch_rasterize's warps and blocks. Every sum is of whole numbers: the bits are those of
// Bins::Float wherever those are exact, whatever the order.
#include <climits>
#include <type_traits>

#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "electrostatics/block_window.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {
namespace {

// A block's sum in one window bin fits 32 bits: at most kEsThreads * kEsWindowCellsPerThread
// contributions of at most 2^18 + 1 each.
static_assert(static_cast<double>(kEsThreads) * kEsWindowCellsPerThread * ((1 << kEsExactFloatBits) + 1) <
                  4294967296.0,
              "a block's sum in one window bin must fit 32 bits");

// Calls add(weight, m, n) for every bin of cell c's footprint f (the float maps' weights:
// small_footprint's for up to 3 x 3 bins, else footprint_weight).
template <typename T, typename Add>
__device__ __forceinline__ void for_each_bin(const RasterizeArgs<T>& a, const Footprint<T>& f, const Add& add) {
  if (is_small_footprint(f)) {
    const SmallFootprint<T> s = small_footprint(f, a.g);
#pragma unroll
    for (int p = 0; p < 3; ++p)
#pragma unroll
      for (int q = 0; q < 3; ++q)
        if (f.m0 + p <= f.m1 && f.n0 + q <= f.n1) add(s.weight(p, q), f.m0 + p, f.n0 + q);
    return;
  }
  for (int m = f.m0; m <= f.m1; ++m)
    for (int n = f.n0; n <= f.n1; ++n) add(footprint_weight(f, a.g, m, n), m, n);
}

// The window's bins added to `map` (2 x 2-bin tiles), one float4 atomic per tile with any charge.
// A window sum is converted rounding up, so a sum past 2^24 stays past it and is flagged.
__device__ __forceinline__ void add_window(float* map, int N, const BinWindow& win, const unsigned int* window) {
  const int ti0 = win.m0 >> 1, tj0 = win.n0 >> 1;
  const int tile_rows = ((win.m0 + win.rows - 1) >> 1) - ti0 + 1;
  const int tile_cols = ((win.n0 + win.cols - 1) >> 1) - tj0 + 1;
  const int tiles_n = es_tiles_n(N);
  for (int t = threadIdx.x; t < tile_rows * tile_cols; t += kEsThreads) {
    const int ti = ti0 + t / tile_cols, tj = tj0 + t % tile_cols;
    float v[4];
    bool any = false;
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const int m = 2 * ti + h / 2, n = 2 * tj + h % 2;
      const unsigned int u = win.holds(m, n) ? window[(m - win.m0) * win.cols + (n - win.n0)] : 0u;
      v[h] = __uint2float_ru(u);
      any = any || u != 0u;
    }
    if (!any) continue;
    float* tile = map + 4 * (static_cast<std::int64_t>(ti) * tiles_n + tj);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // float4 atomics exist from sm_90 on
    atomicAdd(reinterpret_cast<float4*>(tile), make_float4(v[0], v[1], v[2], v[3]));
#else
    for (int h = 0; h < 4; ++h)
      if (v[h] != 0.f) atomicAdd(tile + h, v[h]);
#endif
  }
}

// Blocks [0, movable_blocks) take the movable cells' entries of the order, the rest the fillers'.
__global__ void __launch_bounds__(kEsThreads) rasterize_windows(RasterizeArgs<float> a, const int* order,
                                                                int movable_blocks) {
  using T = float;
  let_next_kernel_start();  // the density pass waits for the whole grid anyway
  __shared__ unsigned int window[kEsWindowBins];
  const int b = static_cast<int>(blockIdx.x);
  if (b == 0 && threadIdx.x == 0 && a.rerun_flag != nullptr) *a.rerun_flag = 0;
  const bool fillers = b >= movable_blocks;
  const std::int64_t run = static_cast<std::int64_t>(kEsThreads) * kEsWindowCellsPerThread;
  const std::int64_t part_end = fillers ? a.g.num_cells : a.g.num_movable;
  const std::int64_t first = (fillers ? a.g.num_movable : 0) + static_cast<std::int64_t>(fillers ? b - movable_blocks : b) * run;
  const std::int64_t last = first + run < part_end ? first + run : part_end;
  T* map = fillers ? a.charge_filler : a.charge;
  BinBox mine{INT_MAX, INT_MIN, INT_MAX, INT_MIN, 0.f, 0.f, 0};
  for (std::int64_t k = first + threadIdx.x; k < last; k += kEsThreads) {
    std::int64_t i;
    Footprint<T> f;
    if (!load_small_cell<T, RasterizeArgs<T>, false>(a, order[k], &i, &f)) continue;
    mine.m0 = min(mine.m0, f.m0);
    mine.m1 = max(mine.m1, f.m1);
    mine.n0 = min(mine.n0, f.n0);
    mine.n1 = max(mine.n1, f.n1);
    mine.m_sum += static_cast<float>(f.m0);
    mine.n_sum += static_cast<float>(f.n0);
    ++mine.cells;
  }
  const BinBox box = block_bin_box(mine);
  if (box.cells == 0) return;  // only large cells (uniform across the block)
  const BinWindow win = block_window<kEsWindowBins>(box);
  const int window_bins = win.rows * win.cols;
  for (int k = threadIdx.x; k < window_bins; k += kEsThreads) window[k] = 0u;
  __syncthreads();
  const int N = a.g.N;
  for (std::int64_t k = first + threadIdx.x; k < last; k += kEsThreads) {
    const std::int64_t c = order[k];
    std::int64_t i;
    Footprint<T> f;
    if (!load_small_cell<T, RasterizeArgs<T>, false>(a, c, &i, &f)) continue;
    add_outside(a, f, c);
    for_each_bin(a, f, [&](T weight, int m, int n) {
      const T v = exact_float_weight(a, weight);
      if (!(v > T(0))) return;
      if (win.holds(m, n)) atomicAdd(window + (m - win.m0) * win.cols + (n - win.n0), static_cast<unsigned int>(v));
      else atomicAdd(map + es_tile_index(m, n, N), v);
    });
  }
  __syncthreads();
  add_window(map, N, win, window);
}

}  // namespace

template <typename T>
void launch_rasterize_windows(const RasterizeArgs<T>& a, const int* order, cudaStream_t stream) {
  static_assert(std::is_same_v<T, float>, "exact float maps are float only");
  RasterizeArgs<T> large = a;  // the large cells: launch_rasterize's warps and blocks
  large.cell_end = large.cell_begin;
  launch_rasterize(large, stream);
  const std::int64_t run = static_cast<std::int64_t>(kEsThreads) * kEsWindowCellsPerThread;
  const std::int64_t fillers = a.g.num_cells - a.g.num_movable;
  const int movable_blocks = static_cast<int>((a.g.num_movable + run - 1) / run);
  const int blocks = movable_blocks + static_cast<int>((fillers + run - 1) / run);
  if (blocks == 0) return;
  rasterize_windows<<<blocks, kEsThreads, 0, stream>>>(a, order, movable_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_rasterize_windows<float>(const RasterizeArgs<float>&, const int*, cudaStream_t);

}  // namespace efield::detail
