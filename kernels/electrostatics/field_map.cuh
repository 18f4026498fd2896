#pragma once
// Internal: the (Ex, Ey) field map in 2 x 2-bin tiles (es_tile_index) as device functions: how
// field_tiles writes it from the inverse C2C's output and how a gather reads a footprint's sum
// from it. gather.cu's kernels and the batched multi-field kernels (kernels/multi_field/) call
// these, so a cell's sum is the same code (the same bits for the same map) in both.
#include <cub/block/block_reduce.cuh>

#include <cstdint>
#include <type_traits>

#include "common/dependent_launch.cuh"
#include "electrostatics/es_kernels.cuh"
#include "math/dct2d.hpp"

namespace efield::detail {

// (Ex, Ey) at bin (m, n) from the C2C output's element v there: the sine axes' signs.
template <typename T>
__device__ __forceinline__ EsVec2<T> signed_field(EsVec2<T> v, int m, int n) {
  return {alternating_sign<T>(m) * v.x, alternating_sign<T>(n) * v.y};
}

// wgt(m, n) (Ex, Ey)(m, n) added to (sx, sy), the map's bin read by itself.
template <typename T>
__device__ __forceinline__ void accumulate_bin(const EsVec2<T>* map, const CellGeometry<T>& g, const Footprint<T>& f,
                                               int m, int n, T* sx, T* sy) {
  const T wgt = footprint_weight(f, g, m, n);
  const EsVec2<T> e = map[es_tile_index(m, n, g.N)];
  *sx += wgt * e.x;
  *sy += wgt * e.y;
}

// One row of a 2 x 2-bin tile: two adjacent (Ex, Ey) pairs, one 16-byte load in float.
template <typename T>
struct alignas(4 * sizeof(T)) EsTileRow {
  EsVec2<T> even, odd;  // columns 2j and 2j + 1
};

// Entries (p, q) of a footprint of up to 3 x 3 bins, 0 outside it. From the tiled map, footprint
// row p loads the one or two tile rows its columns fall in (one vector load each instead of one
// load per bin); column q is entry (n0 & 1) + q of those.
template <typename T>
__device__ __forceinline__ void load_small_field(const EsVec2<T>* map, int N, const Footprint<T>& f,
                                                 EsVec2<T> (&e)[3][3]) {
  const EsVec2<T> zero{T(0), T(0)};
  const int tiles_n = es_tiles_n(N);
  const bool odd_start = (f.n0 & 1) != 0;
  const bool second = 2 * ((f.n0 >> 1) + 1) <= f.n1;  // the footprint reaches the next tile column
  const EsTileRow<T> zero_row{zero, zero};
#pragma unroll
  for (int p = 0; p < 3; ++p) {
    const int m = f.m0 + p;
    const bool row_in = m <= f.m1;
    const EsTileRow<T>* r = reinterpret_cast<const EsTileRow<T>*>(
        map + 4 * (static_cast<std::int64_t>(m >> 1) * tiles_n + (f.n0 >> 1)) + 2 * (m & 1));
    const EsTileRow<T> t0 = row_in ? r[0] : zero_row;
    const EsTileRow<T> t1 = row_in && second ? r[2] : zero_row;  // the same row of the next tile
#pragma unroll
    for (int q = 0; q < 3; ++q) {
      EsVec2<T> v;
      if (q == 0) v = odd_start ? t0.odd : t0.even;
      else if (q == 1) v = odd_start ? t1.even : t0.odd;
      else v = odd_start ? t1.odd : t1.even;
      e[p][q] = f.n0 + q <= f.n1 ? v : zero;
    }
  }
}

// sum over the footprint's bins of wgt (Ex, Ey) added to (sx, sy), by one thread: a footprint of
// up to 3 x 3 bins issues all its loads before using any (the loads are latency bound), larger
// ones loop over their bins.
template <typename T>
__device__ __forceinline__ void footprint_field_sum(const EsVec2<T>* map, const CellGeometry<T>& g,
                                                    const Footprint<T>& f, T* sx, T* sy) {
  if (is_small_footprint(f)) {
    EsVec2<T> e[3][3];
    load_small_field(map, g.N, f, e);
    const SmallFootprint<T> s = small_footprint(f, g);
#pragma unroll
    for (int p = 0; p < 3; ++p)
#pragma unroll
      for (int q = 0; q < 3; ++q) {
        const T wgt = s.weight(p, q);
        *sx += wgt * e[p][q].x;
        *sy += wgt * e[p][q].y;
      }
  } else {
    for (int m = f.m0; m <= f.m1; ++m)
      for (int n = f.n0; n <= f.n1; ++n) accumulate_bin(map, g, f, m, n, sx, sy);
  }
}

// This thread's share of a footprint's sum (bins lane, lane + lanes, ... of the footprint): a
// large cell's bins split among a warp's or a block's threads.
template <typename T>
__device__ __forceinline__ void footprint_field_share(const EsVec2<T>* map, const CellGeometry<T>& g,
                                                      const Footprint<T>& f, int lane, int lanes, T* sx, T* sy) {
  const int cols = f.n1 - f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.m1 - f.m0 + 1) * cols;
  for (std::int64_t k = lane; k < count; k += lanes)
    accumulate_bin(map, g, f, f.m0 + static_cast<int>(k / cols), f.n0 + static_cast<int>(k % cols), sx, sy);
}

// The block's sums of the threads' (sx, sy) (fixed-order CUB reductions), valid in thread 0.
// Every thread of the block calls it.
template <typename T>
__device__ __forceinline__ EsVec2<T> block_field_sum(T sx, T sy) {
  using Reduce = cub::BlockReduce<T, kEsThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const T bx = Reduce(storage).Sum(sx);
  __syncthreads();  // storage is reused
  const T by = Reduce(storage).Sum(sy);
  return {bx, by};
}

// Two adjacent pairs of a tile, one 16-byte store in float.
template <typename T>
__device__ __forceinline__ void store_tile_row(EsVec2<T>* p, EsVec2<T> even, EsVec2<T> odd) {
  if constexpr (std::is_same_v<T, float>) {
    *reinterpret_cast<float4*>(p) = make_float4(even.x, even.y, odd.x, odd.y);
  } else {
    p[0] = even;
    p[1] = odd;
  }
}

// z[k], read for the last time (the dead C2C output leaves L2 before the map that the gather
// reads; bench_ispd/results/electrostatics.md).
template <typename T>
__device__ __forceinline__ EsVec2<T> load_last_use(const EsVec2<T>* z) {
  const EsNativePair<T> v = es_load_pair_last_use(&z->x);
  return {v.x, v.y};
}

template <typename T>
__device__ __forceinline__ EsVec2<T> scaled(EsVec2<T> v, T w) {
  return {w * v.x, w * v.y};
}

// field_tiles: one pass over the C2C output, one thread per tile row (block row blockIdx.x
// strides over row pairs, blockIdx.y picks a run of tiles; no 64-bit divisions): thread 2j + h
// writes row h of tile (i, j), bins (2i+h, 2j) and (2i+h, 2j+1), from columns q(2j) = j and
// q(2j+1) = N-1-j of row p(2i+h), so a warp stores 512 contiguous bytes and reads runs forwards
// and backwards. Entries past an odd M or N stay as zeroed at construction.
template <typename T>
__device__ __forceinline__ void field_tiles_pass(const EsVec2<T>* z, EsVec2<T>* e, int M, int N, const T* weight) {
  wait_for_previous_kernel();  // launched with overlap after the C2C
  let_next_kernel_start();     // the gather reads its cells until it waits for this grid
  const T w = *weight;
  const int tiles_m = (M + 1) / 2, tiles_n = es_tiles_n(N);
  const int t = static_cast<int>(blockIdx.y * blockDim.x + threadIdx.x);
  const int j = t >> 1, h = t & 1;
  if (j >= tiles_n) return;
  const int n0 = 2 * j, n1 = 2 * j + 1;
  const bool has_n1 = n1 < N;
  const int c0 = makhoul_position(n0, N), c1 = has_n1 ? makhoul_position(n1, N) : 0;
  const EsVec2<T> zero{T(0), T(0)};
  for (int i = static_cast<int>(blockIdx.x); i < tiles_m; i += static_cast<int>(gridDim.x)) {
    const int m = 2 * i + h;
    if (m >= M) continue;  // an odd M's padding row
    const std::int64_t r = permuted_index(m, 0, M, N);
    store_tile_row(e + 4 * (static_cast<std::int64_t>(i) * tiles_n + j) + 2 * h,
                   scaled(signed_field(load_last_use(z + r + c0), m, n0), w),
                   has_n1 ? scaled(signed_field(load_last_use(z + r + c1), m, n1), w) : zero);
  }
}

}  // namespace efield::detail
