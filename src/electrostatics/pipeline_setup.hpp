#pragma once
// Construction-time setup shared by the CPU and CUDA pipelines: geometry constants, the spectral
// grid constants, the fixed density in each layout a density pass reads, and the host-side
// unpermute of maps.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "electrostatics/backend.hpp"
#include "electrostatics/cell_layout.hpp"
#include "math/density.hpp"
#include "math/electrostatics.hpp"

namespace efield::detail {

// Cells spanning more than this many bins on an axis are "large": on the GPU they get a warp each
// (up to kWarpCellSpan bins a side) or a thread block each (larger still). Smaller cells take a
// thread each. 4 timed best of 2, 3 and 4 (bench_ispd/results/electrostatics.md).
inline constexpr double kLargeCellSpan = 4.0;
// Footprints of up to 17 x 17 bins: at most 10 passes of a warp's 32 lanes.
inline constexpr double kWarpCellSpan = 16.0;

template <typename T>
CellGeometry<T> make_cell_geometry(const ElectrostaticDesign& d) {
  CellGeometry<T> g;
  g.M = d.options.num_bins_x;
  g.N = d.options.num_bins_y;
  g.bx = static_cast<T>(d.bx);
  g.by = static_cast<T>(d.by);
  g.wx = split_bin_width(g.bx, g.M);
  g.wy = split_bin_width(g.by, g.N);
  g.inv_bx = static_cast<T>(1.0 / d.bx);
  g.inv_by = static_cast<T>(1.0 / d.by);
  g.min_w = static_cast<T>(std::sqrt(2.0) * d.bx);
  g.min_h = static_cast<T>(std::sqrt(2.0) * d.by);
  g.xl = static_cast<T>(d.options.xl);
  g.yl = static_cast<T>(d.options.yl);
  g.num_movable = d.num_movable();
  g.num_cells = d.num_cells();
  g.filler_offset = d.options.filler_offset;
  g.large_span = static_cast<T>(kLargeCellSpan);
  g.target_density = static_cast<T>(d.options.target_density);
  return g;
}

// Spectral constants; the twiddle pointers are filled in by the pipeline (host or device tables).
template <typename T>
SpectralGrid<T> make_spectral_grid(const ElectrostaticDesign& d) {
  const double pi = 3.14159265358979323846;
  SpectralGrid<T> g;
  g.M = d.options.num_bins_x;
  g.N = d.options.num_bins_y;
  g.half = g.N / 2 + 1;
  g.coef_scale = static_cast<T>(4.0 / (static_cast<double>(g.M) * g.N));
  g.wu_step = static_cast<T>(2.0 * pi / g.M);
  g.wv_step = static_cast<T>(2.0 * pi / g.N * (d.bx / d.by));
  return g;
}

// Number of spectral work items: (u, v) with 0 <= u <= M/2, 0 <= v <= N/2.
inline std::int64_t spectral_items(int M, int N) {
  return static_cast<std::int64_t>(M / 2 + 1) * (N / 2 + 1);
}

// F / (bx by) as T at index(m, n) of an array of `size` elements (zeros elsewhere): the one place
// the fixed density is formed, for every layout a density pass reads (permuted, natural, tiles).
template <typename T, typename Index>
std::vector<T> fixed_density_at(const ElectrostaticDesign& d, const std::vector<double>& F, std::size_t size,
                                Index index) {
  const int M = d.options.num_bins_x, N = d.options.num_bins_y;
  const double inv_area = 1.0 / (d.bx * d.by);
  std::vector<T> out(size, T(0));
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n)
      out[static_cast<std::size_t>(index(m, n))] = static_cast<T>(F[static_cast<std::size_t>(m) * N + n] * inv_area);
  return out;
}

// F / (bx by) in the permuted layout, as T (the density pass adds it to the movable charge).
template <typename T>
std::vector<T> permuted_fixed_density(const ElectrostaticDesign& d, const std::vector<double>& F) {
  const int M = d.options.num_bins_x, N = d.options.num_bins_y;
  return fixed_density_at<T>(d, F, F.size(), [&](int m, int n) { return permuted_index(m, n, M, N); });
}

// Natural layout from a permuted map; sign_axis 0: (-1)^m (Ex), 1: (-1)^n (Ey), -1: none.
template <typename T>
std::vector<double> unpermute(const T* permuted, int M, int N, int sign_axis, double scale = 1.0) {
  std::vector<double> out(static_cast<size_t>(M) * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = scale;
      if (sign_axis == 0 && (m & 1)) s = -s;
      if (sign_axis == 1 && (n & 1)) s = -s;
      out[static_cast<size_t>(m) * N + n] = s * static_cast<double>(permuted[permuted_index(m, n, M, N)]);
    }
  return out;
}

}  // namespace efield::detail
