#pragma once
// Internal: the parts of rasterize.cu that sum a block's piled movable cells in a shared window:
// the exact float maps' whole-number contributions, the area outside the region, and the block's
// bounding box of footprints and the window placed on it.
#include <climits>
#include <cstdint>

#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// Exact float maps: a contribution as a whole number of 2^-kEsExactFloatBits bin areas (to_fixed
// scales to that unit), exact in float and in any sum up to 2^24.
template <typename T>
__device__ __forceinline__ T exact_float_weight(const RasterizeArgs<T>& a, T weight) {
  const T v = weight * a.to_fixed;
  return a.exact ? rint(v) : v;
}

// The area of cell c outside the region (finalize reports it), added only for the few cells not
// wholly inside, straight into one of kEsTotalSlots pairs of slots (integers: order-free), so the
// usual evaluate pays one comparison per cell and no reduction.
template <typename T>
__device__ __forceinline__ void add_outside(const RasterizeArgs<T>& a, const Footprint<T>& f, std::int64_t c) {
  const std::int64_t q = outside_fixed_point(f, a.g);
  if (q != 0)
    atomicAdd(a.outside + outside_slot(c, c >= a.g.num_movable), static_cast<EsAccum>(q));
}

// The bin range [m0, m1] x [n0, n1] of a block's footprints and the sums of their first bins
// (m_sum, n_sum over `cells` footprints): min, max and sums over its threads. Every thread calls
// it; cells = 0 when the block has none.
struct BinBox {
  int m0, m1, n0, n1;
  float m_sum, n_sum;  // only place the window: float sums do
  int cells;
};
__device__ __forceinline__ BinBox block_bin_box(BinBox b) {
  __shared__ BinBox warps[kEsWarpsPerBlock];
  for (int d = 16; d > 0; d /= 2) {
    b.m0 = min(b.m0, __shfl_xor_sync(0xffffffffu, b.m0, d));
    b.m1 = max(b.m1, __shfl_xor_sync(0xffffffffu, b.m1, d));
    b.n0 = min(b.n0, __shfl_xor_sync(0xffffffffu, b.n0, d));
    b.n1 = max(b.n1, __shfl_xor_sync(0xffffffffu, b.n1, d));
    b.m_sum += __shfl_xor_sync(0xffffffffu, b.m_sum, d);
    b.n_sum += __shfl_xor_sync(0xffffffffu, b.n_sum, d);
    b.cells += __shfl_xor_sync(0xffffffffu, b.cells, d);
  }
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = b;
  __syncthreads();
  BinBox out = warps[0];
  for (int w = 1; w < kEsWarpsPerBlock; ++w) {
    out.m0 = min(out.m0, warps[w].m0);
    out.m1 = max(out.m1, warps[w].m1);
    out.n0 = min(out.n0, warps[w].n0);
    out.n1 = max(out.n1, warps[w].n1);
    out.m_sum += warps[w].m_sum;
    out.n_sum += warps[w].n_sum;
    out.cells += warps[w].cells;
  }
  return out;
}

// The block's shared window: bins [m0, m0 + rows) x [n0, n0 + cols), its whole box where that
// fits kEsPiledWindowBins, else that many bins (as square as the box allows) around the mean of
// its footprints' first bins (a pile wider than the window: the bins nearest its centre).
struct BinWindow {
  int m0, n0, rows, cols;
  bool whole;  // the whole box
  __device__ __forceinline__ bool holds(int m, int n) const {
    return static_cast<unsigned>(m - m0) < static_cast<unsigned>(rows) &&
           static_cast<unsigned>(n - n0) < static_cast<unsigned>(cols);
  }
};
__device__ __forceinline__ int window_start(int mean, int length, int lo, int hi) {
  const int start = mean - length / 2;
  return start < lo ? lo : start + length - 1 > hi ? hi - length + 1 : start;
}
constexpr int square_side(int bins) {
  int side = 1;
  while ((side + 1) * (side + 1) <= bins) ++side;
  return side;
}
__device__ __forceinline__ BinWindow block_window(const BinBox& box) {
  constexpr int kSide = square_side(kEsPiledWindowBins);
  const int box_rows = box.m1 - box.m0 + 1, box_cols = box.n1 - box.n0 + 1;
  if (static_cast<std::int64_t>(box_rows) * box_cols <= kEsPiledWindowBins)
    return {box.m0, box.n0, box_rows, box_cols, true};
  const int rows = box_rows <= kSide ? box_rows : box_cols <= kSide ? kEsPiledWindowBins / box_cols : kSide;
  const int cols = kEsPiledWindowBins / rows < box_cols ? kEsPiledWindowBins / rows : box_cols;
  const int mean_m = static_cast<int>(box.m_sum / static_cast<float>(box.cells));
  const int mean_n = static_cast<int>(box.n_sum / static_cast<float>(box.cells));
  return {window_start(mean_m, rows, box.m0, box.m1), window_start(mean_n, cols, box.n0, box.n1), rows, cols, false};
}

}  // namespace efield::detail
