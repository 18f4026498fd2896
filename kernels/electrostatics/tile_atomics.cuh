#pragma once
// Internal: a footprint of up to 3 x 3 bins added into a map of 2 x 2-bin tiles (es_kernels.cuh's
// layout) with one atomic per touched tile: a float4 atomic on sm_90 for float maps, else one
// atomic per non-zero bin. Shared by the 2D rasterize (rasterize.cu) and the 3D tile rasterize
// (kernels/electrostatics3d/tile_density3d.cuh), which keeps a column of z layers per tile.
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

namespace efield::detail {

// Entry (r, c) of a 3 x 3 footprint, 0 outside (r and c are constants once the callers' loops
// are unrolled, so the entries stay in registers).
template <typename T>
__device__ __forceinline__ T footprint_entry(const T (&w)[3][3], int r, int c) {
  return r >= 0 && r < 3 && c >= 0 && c < 3 ? w[r][c] : T(0);
}

// A footprint of up to 3 x 3 bins starting at bin (m0, n0) (w = 0 where it ends) on the up to
// 2 x 2 tiles it touches. Tile (i, j) starts at map + 4 (i tiles_n + j) tile_stride (2D: stride
// 1; 3D: the tile's z layers lie between, and map points at the layer). Tile (i0 + dt, j0 + du)
// holds footprint entries (2 dt + a - (m0 & 1), 2 du + b - (n0 & 1)); the parities pick between
// constant indices. Acc: the map's element (float for the float maps; 64-bit integers hold the
// same whole numbers).
template <typename Acc, typename T>
__device__ __forceinline__ void add_tile_atomics(Acc* map, int m0, int n0, int tiles_n, std::int64_t tile_stride,
                                                 const T (&w)[3][3]) {
  const bool om = (m0 & 1) != 0, on = (n0 & 1) != 0;
  const std::int64_t first = static_cast<std::int64_t>(m0 >> 1) * tiles_n + (n0 >> 1);
#pragma unroll
  for (int dt = 0; dt < 2; ++dt)
#pragma unroll
    for (int du = 0; du < 2; ++du) {
      T v[4];
#pragma unroll
      for (int a = 0; a < 2; ++a)
#pragma unroll
        for (int b = 0; b < 2; ++b) {
          const int r = 2 * dt + a, c = 2 * du + b;
          const T even_row = on ? footprint_entry(w, r, c - 1) : footprint_entry(w, r, c);
          const T odd_row = on ? footprint_entry(w, r - 1, c - 1) : footprint_entry(w, r - 1, c);
          v[2 * a + b] = om ? odd_row : even_row;
        }
      if (v[0] == T(0) && v[1] == T(0) && v[2] == T(0) && v[3] == T(0)) continue;  // also tiles past the grid
      Acc* tile = map + 4 * ((first + dt * tiles_n + du) * tile_stride);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // float4 atomics exist from sm_90 on
      constexpr bool vector = std::is_same_v<Acc, float> && std::is_same_v<T, float>;
#else
      constexpr bool vector = false;
#endif
      if constexpr (vector) {
        atomicAdd(reinterpret_cast<float4*>(tile), make_float4(v[0], v[1], v[2], v[3]));
      } else {  // double, 64-bit integers, or before sm_90: one atomic per bin
        for (int k = 0; k < 4; ++k)
          if (v[k] != T(0)) atomicAdd(tile + k, static_cast<Acc>(v[k]));
      }
    }
}

}  // namespace efield::detail
