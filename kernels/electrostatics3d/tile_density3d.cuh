#pragma once
// Internal: the tile rasterize of the CUDA 3D pipeline (float; the layout hook selects it,
// src/electrostatics3d/pipeline3d_layout.hpp): cells -> movable and filler tile maps -> rho
// (natural layout, or the forward R2C's Makhoul order), the overflow and max-density partials,
// the volume outside and the check flag.
//
// The maps are 2 x 2-bin x-y tiles (es_kernels.cuh's 2D tiles), each tile a column of L z layers
// of four bins: bin (m, n, k) at tile3d_index. A cell's footprint in one z layer is the 2D
// footprint, so a standard cell (2-3 bins per x-y axis after stretching) takes one float4 atomic
// per touched tile and layer (add_tile_atomics, 2.9 tiles per layer on average) instead of one
// 64-bit atomic per bin, and cells sharing a bin contend on a quarter as many addresses per layer.
//
// Exactness: each contribution r ox oy oz (footprint3d.hpp's weights, in that order of
// multiplication, the gather's too) is rounded to a whole number of 2^-kTile3DBits bin volumes.
// Positive whole numbers whose sum stays below 2^24 add exactly in float in any order (every
// partial sum is at most the final one), so the float maps are bitwise deterministic. A movable
// or filler bin at or above 2^24 units (64 bin volumes of one kind) may have rounded: the density
// pass sets the check flag (kTile3DExactLimit), the gather writes nothing in that run, and
// evaluate runs again with 64-bit tiles (the same kernels, Acc = 64-bit integers) holding the
// same whole numbers, exact up to 2^63. The result is therefore a function of the input alone:
// both kinds of tiles give the same integers, hence the same rho, wherever the float tiles hold.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "electrostatics/es_kernels.cuh"  // es_tiles_n, kEsExactFloatBits
#include "electrostatics/tile_atomics.cuh"
#include "electrostatics3d/kernels3d.cuh"
#include "transforms/dct3d_kernels.cuh"  // reordered_index

namespace efield::detail {

inline constexpr int kTile3DBits = kEsExactFloatBits;  // 2^-18 bin volumes: the 2D float maps' unit
// Float sums below 2^24 units are exact. A sum of exactly 2^24 is flagged too: a float sum that
// passed 2^24 may have rounded back down to it (2^24 + 1 rounds to 2^24), and a sum is >= 2^24
// in float exactly when the true sum is (rounding is monotone), so both kinds of tiles flag alike.
inline constexpr std::int64_t kTile3DExactLimit = std::int64_t{1} << 24;
// A thread takes a footprint of up to 3 x 3 x-y bins and this many z layers; larger ones go to its warp.
inline constexpr int kTile3DThreadLayers = 4;

__host__ __device__ __forceinline__ std::int64_t tile3d_map_size(int M, int N, int L) {
  return 4 * static_cast<std::int64_t>((M + 1) / 2) * es_tiles_n(N) * L;
}
// Bin (m, n, k) in a tile map: tile (m / 2, n / 2), layer k, entry 2 (m & 1) + (n & 1).
__host__ __device__ __forceinline__ std::int64_t tile3d_index(int m, int n, int k, int N, int L) {
  return 4 * ((static_cast<std::int64_t>(m >> 1) * es_tiles_n(N) + (n >> 1)) * L + k) + 2 * (m & 1) + (n & 1);
}

template <typename Acc>
struct TileRasterize3D {
  Grid3D<float> g;
  const float *x, *y, *z, *w, *h, *d;
  Acc* movable;                    // tile maps (tile3d_index)
  Acc* filler;
  unsigned long long* outside;     // outside volumes (fixed point) in outside_slot's pairs
  float to_units;                  // 2^kTile3DBits / (bx by bz): volume -> units
};

// A contribution (volume) as whole units; 0 for anything not positive (NaN included).
__device__ __forceinline__ float tile3d_units(float volume, float to_units) {
  const float v = rintf(volume * to_units);
  return v > 0.f ? v : 0.f;
}

// Cell c's footprint by this thread when it spans at most 3 x 3 x-y bins and kTile3DThreadLayers
// layers (returns false otherwise, the outside volume added either way).
template <typename Acc>
__device__ __forceinline__ bool rasterize3d_thread_cell(const TileRasterize3D<Acc>& a, std::int64_t c) {
  const Grid3D<float>& g = a.g;
  const std::int64_t i = position_index3d(g, c);
  const Footprint3D<float> f = cell_footprint3d(g, c, a.x[i], a.y[i], a.z[i], a.w[c], a.h[c], a.d[c]);
  const std::int64_t out = outside_fixed_point3d(f, g);
  const bool movable = c < g.num_movable;
  if (out != 0) atomicAdd(a.outside + outside_slot(c, !movable), static_cast<unsigned long long>(out));
  if (f.x.last - f.x.first > 2 || f.y.last - f.y.first > 2 || f.z.last - f.z.first >= kTile3DThreadLayers)
    return false;
  float cx[3], oy[3];
#pragma unroll
  for (int p = 0; p < 3; ++p) {
    cx[p] = f.x.first + p <= f.x.last ? f.charge * axis_overlap(f.x, f.x.first + p, g.bx) : 0.f;
    oy[p] = f.y.first + p <= f.y.last ? axis_overlap(f.y, f.y.first + p, g.by) : 0.f;
  }
  Acc* map = movable ? a.movable : a.filler;
  const int tiles_n = es_tiles_n(g.N);
  for (int k = f.z.first; k <= f.z.last; ++k) {
    const float oz = axis_overlap(f.z, k, g.bz);
    if (!(oz > 0.f)) continue;
    float v[3][3];
#pragma unroll
    for (int p = 0; p < 3; ++p)
#pragma unroll
      for (int q = 0; q < 3; ++q) v[p][q] = tile3d_units((cx[p] * oy[q]) * oz, a.to_units);
    add_tile_atomics(map + 4 * k, f.x.first, f.y.first, tiles_n, g.L, v);
  }
  return true;
}

// Cell c's footprint, its bins split among the `lanes` threads of a warp (this one is `lane`).
template <typename Acc>
__device__ __forceinline__ void rasterize3d_spread_cell(const TileRasterize3D<Acc>& a, std::int64_t c, int lane,
                                                        int lanes) {
  const Grid3D<float>& g = a.g;
  const std::int64_t i = position_index3d(g, c);
  const Footprint3D<float> f = cell_footprint3d(g, c, a.x[i], a.y[i], a.z[i], a.w[c], a.h[c], a.d[c]);
  Acc* map = c < g.num_movable ? a.movable : a.filler;
  const int ny = f.y.last - f.y.first + 1, nz = f.z.last - f.z.first + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.x.last - f.x.first + 1) * ny * nz;
  for (std::int64_t j = lane; j < count; j += lanes) {
    const int k = f.z.first + static_cast<int>(j % nz);
    const std::int64_t mn = j / nz;
    const int n = f.y.first + static_cast<int>(mn % ny), m = f.x.first + static_cast<int>(mn / ny);
    const float v = tile3d_units(
        ((f.charge * axis_overlap(f.x, m, g.bx)) * axis_overlap(f.y, n, g.by)) * axis_overlap(f.z, k, g.bz),
        a.to_units);
    if (v > 0.f) atomicAdd(map + tile3d_index(m, n, k, g.N, g.L), static_cast<Acc>(v));
  }
}

// One thread per cell; the cells whose footprint is too large for one thread are then taken one
// after another by the whole warp (every lane takes part, so no thread returns early).
template <typename Acc>
__global__ void __launch_bounds__(kThreads3D) rasterize3d_tiles_kernel(TileRasterize3D<Acc> a) {
  const std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const bool spread = c < a.g.num_cells && !rasterize3d_thread_cell(a, c);
  unsigned pending = __ballot_sync(0xffffffffu, spread);
  const int lane = static_cast<int>(threadIdx.x & 31u);
  while (pending != 0u) {
    const int from = __ffs(static_cast<int>(pending)) - 1;
    pending &= pending - 1u;
    rasterize3d_spread_cell(a, __shfl_sync(0xffffffffu, c, from), lane, 32);
  }
}

__device__ __forceinline__ void load_tile(const float* p, float (&v)[4]) {
  const float4 t = __ldcs(reinterpret_cast<const float4*>(p));
  v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
}
__device__ __forceinline__ void clear_tile(float* p) {
  __stcs(reinterpret_cast<float4*>(p), make_float4(0.f, 0.f, 0.f, 0.f));
}
__device__ __forceinline__ void clear_tile(unsigned long long* p) {
  __stcs(reinterpret_cast<longlong2*>(p), make_longlong2(0, 0));
  __stcs(reinterpret_cast<longlong2*>(p) + 1, make_longlong2(0, 0));
}
// A tile's four sums as integers (float tiles hold whole numbers).
__device__ __forceinline__ void tile_counts(const float* p, std::int64_t (&u)[4]) {
  float v[4];
  load_tile(p, v);
  for (int h = 0; h < 4; ++h) u[h] = static_cast<std::int64_t>(v[h]);
}
__device__ __forceinline__ void tile_counts(const unsigned long long* p, std::int64_t (&u)[4]) {
  const longlong2* q = reinterpret_cast<const longlong2*>(p);
  const longlong2 a = __ldcs(q), b = __ldcs(q + 1);
  u[0] = a.x, u[1] = a.y, u[2] = b.x, u[3] = b.y;
}

struct TileDensityArgs3D {
  int M, N, L;
  const float* fixed_tiles;  // F / (bx by bz) in the tile layout
  float* rho;                // natural layout [M][N][L], or the Makhoul order (makhoul)
  bool makhoul;              // rho in the Makhoul order on every axis (the forward R2C's input)
  float inv_scale;           // 2^-kTile3DBits
  float target_density;
  double* partial_overflow;
  double* partial_max;
  unsigned long long* flag;  // set when a movable or filler bin passed 2^24 units
};

// One thread per tile layer (four bins): rho = (movable + filler) 2^-bits + F / (bx by bz) as
// bin_density makes it from the integer sums, the overflow and max-density partials as
// density3d_kernel; clears the maps for the next evaluate.
template <typename Acc>
__global__ void density3d_tiles_kernel(TileDensityArgs3D a, Acc* movable, Acc* filler) {
  __shared__ double shared[kThreads3D];
  const int tiles_n = es_tiles_n(a.N);
  const std::int64_t layers = static_cast<std::int64_t>((a.M + 1) / 2) * tiles_n * a.L;
  double overflow = 0, mx = 0;
  bool flagged = false;
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < layers;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(j % a.L);
    const std::int64_t t = j / a.L;
    const int tn = static_cast<int>(t % tiles_n), tm = static_cast<int>(t / tiles_n);
    std::int64_t mv[4], fl[4];
    float fx[4];
    tile_counts(movable + 4 * j, mv);
    tile_counts(filler + 4 * j, fl);
    load_tile(a.fixed_tiles + 4 * j, fx);
    clear_tile(movable + 4 * j);
    clear_tile(filler + 4 * j);
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      const int m = 2 * tm + h / 2, n = 2 * tn + h % 2;
      if (m >= a.M || n >= a.N) continue;
      flagged |= mv[h] >= kTile3DExactLimit || fl[h] >= kTile3DExactLimit;
      const BinDensity<float> b = bin_density(mv[h], fl[h], fx[h], a.inv_scale);
      a.rho[a.makhoul ? static_cast<std::int64_t>(reordered_index(m, n, k, Dims3{a.M, a.N, a.L}))
                      : index3d(m, n, k, a.N, a.L)] = b.rho;
      overflow += static_cast<double>(bin_overflow(b.movable_rho, a.target_density));
      mx = mx > static_cast<double>(b.movable_rho) ? mx : static_cast<double>(b.movable_rho);
    }
  }
  if (flagged) atomicOr(a.flag, 1ull);  // order-free
  const double o = block_reduce3d<false>(overflow, shared);
  __syncthreads();
  const double m = block_reduce3d<true>(mx, shared);
  if (threadIdx.x == 0) {
    a.partial_overflow[blockIdx.x] = o;
    a.partial_max[blockIdx.x] = m;
  }
}

// The tile maps (64-bit words: the float maps use the first half of each), the fixed map in the
// tile layout, and the launches.
class TileDensity3D {
 public:
  TileDensity3D() = default;
  // blocks: of the density pass (one partial each), for tile3d_map_size / 4 tile layers.
  TileDensity3D(int M, int N, int L, double bin_volume, int blocks)
      : M_(M), N_(N), L_(L), words_(tile3d_map_size(M, N, L)),
        movable_(static_cast<std::size_t>(words_)), filler_(static_cast<std::size_t>(words_)),
        fixed_tiles_(static_cast<std::size_t>(words_)),
        to_units_(static_cast<float>(std::ldexp(1.0, kTile3DBits) / bin_volume)), blocks_(blocks) {
    EFIELD_CUDA_CHECK(cudaMemset(movable_.get(), 0, movable_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(filler_.get(), 0, filler_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(fixed_tiles_.get(), 0, fixed_tiles_.bytes()));
  }

  // F / (bx by bz) per bin, natural layout [M][N][L] (the same floats as the pipeline's fixed_rho).
  void upload_fixed(const std::vector<float>& natural) {
    std::vector<float> tiles(static_cast<std::size_t>(words_), 0.f);
    for (int m = 0; m < M_; ++m)
      for (int n = 0; n < N_; ++n)
        for (int k = 0; k < L_; ++k)
          tiles[static_cast<std::size_t>(tile3d_index(m, n, k, N_, L_))] =
              natural[static_cast<std::size_t>(index3d(m, n, k, N_, L_))];
    fixed_tiles_.upload(tiles.data(), tiles.size());
  }

  // wide: the 64-bit tiles (the rerun's bins). flag: outside + kOutsideFlag3D (finalize3d reads and clears it).
  void enqueue(const Grid3D<float>& g, const float* x, const float* y, const float* z, const float* w,
               const float* h, const float* d, bool wide, TileDensityArgs3D pass, unsigned long long* outside,
               cudaStream_t s) const {
    if (wide) launch(g, x, y, z, w, h, d, movable_.get(), filler_.get(), pass, outside, s);
    else
      launch(g, x, y, z, w, h, d, reinterpret_cast<float*>(movable_.get()), reinterpret_cast<float*>(filler_.get()),
             pass, outside, s);
  }
  int blocks() const noexcept { return blocks_; }

 private:
  template <typename Acc>
  void launch(const Grid3D<float>& g, const float* x, const float* y, const float* z, const float* w, const float* h,
              const float* d, Acc* movable, Acc* filler, TileDensityArgs3D pass, unsigned long long* outside,
              cudaStream_t s) const {
    if (g.num_cells > 0) {
      const TileRasterize3D<Acc> r{g, x, y, z, w, h, d, movable, filler, outside, to_units_};
      const auto blocks = static_cast<unsigned>((g.num_cells + kThreads3D - 1) / kThreads3D);
      rasterize3d_tiles_kernel<Acc><<<blocks, kThreads3D, 0, s>>>(r);
      EFIELD_CUDA_CHECK_LAUNCH();
    }
    pass.M = M_, pass.N = N_, pass.L = L_;
    pass.fixed_tiles = fixed_tiles_.get();
    pass.inv_scale = static_cast<float>(std::ldexp(1.0, -kTile3DBits));
    density3d_tiles_kernel<Acc><<<blocks_, kThreads3D, 0, s>>>(pass, movable, filler);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  int M_ = 0, N_ = 0, L_ = 0;
  std::int64_t words_ = 0;
  DeviceBuffer<unsigned long long> movable_, filler_;
  DeviceBuffer<float> fixed_tiles_;
  float to_units_ = 0;
  int blocks_ = 1;
};

}  // namespace efield::detail
