// Validation of the 3D system's inputs, the fixed map (once, in double, on the host) and the
// pieces both pipelines derive from the design.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/cpu_threads.hpp"
#include "electrostatics3d/backend3d.hpp"

namespace efield::detail {
namespace {

constexpr const char* kWho = "ElectrostaticSystem3D";

std::string num(double v) { return std::to_string(v); }

// Lengths agree, every size finite and > 0; movable and filler cells no deeper than the region.
void check_sizes(const CellSizes3D& cells, const char* what, double depth) {
  const std::size_t n = cells.widths.size();
  if (cells.heights.size() != n || cells.depths.size() != n)
    throw Error(std::string(kWho) + ": " + what + " widths, heights and depths differ in count (" + std::to_string(n) +
                ", " + std::to_string(cells.heights.size()) + ", " + std::to_string(cells.depths.size()) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    const double w = cells.widths[i], h = cells.heights[i], d = cells.depths[i];
    if (!std::isfinite(w) || !std::isfinite(h) || !std::isfinite(d) || w <= 0 || h <= 0 || d <= 0)
      throw Error(std::string(kWho) + ": " + what + " cell " + std::to_string(i) + " has size " + num(w) + " x " +
                  num(h) + " x " + num(d) + " (width, height and depth must be finite and > 0)");
    if (d > depth)
      throw Error(std::string(kWho) + ": " + what + " cell " + std::to_string(i) + " has depth " + num(d) +
                  ", deeper than the region (" + num(depth) + ")");
  }
}

// The movable-macro mask: one entry per movable cell or none; fillers take none.
void check_macro_mask(const CellSizes3D& cells, const char* what, bool movable) {
  const std::size_t n = cells.movable_macro_mask.size();
  if (!movable && n != 0)
    throw Error(std::string(kWho) + ": " + what + " cells have a movable_macro_mask (" + std::to_string(n) +
                " entries); only movable cells take one");
  if (n != 0 && n != cells.widths.size())
    throw Error(std::string(kWho) + ": movable_macro_mask has " + std::to_string(n) + " entries for " +
                std::to_string(cells.widths.size()) + " movable cells (need one per cell, or none)");
}

double total_volume(const CellSizes3D& cells) {
  double v = 0;
  for (std::size_t i = 0; i < cells.widths.size(); ++i) v += cells.widths[i] * cells.heights[i] * cells.depths[i];
  return v;
}

}  // namespace

void validate_fixed_cells3d(const FixedCells3D& f) {
  const std::size_t n = f.widths.size();
  if (f.heights.size() != n || f.depths.size() != n || f.x.size() != n || f.y.size() != n || f.z.size() != n)
    throw Error(std::string(kWho) + ": fixed cells need widths, heights, depths, x, y and z of one count (got " +
                std::to_string(n) + ", " + std::to_string(f.heights.size()) + ", " + std::to_string(f.depths.size()) +
                ", " + std::to_string(f.x.size()) + ", " + std::to_string(f.y.size()) + ", " +
                std::to_string(f.z.size()) + ")");
  check_sizes(CellSizes3D{f.widths, f.heights, f.depths}, "fixed", std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(f.x[i]) || !std::isfinite(f.y[i]) || !std::isfinite(f.z[i]))
      throw Error(std::string(kWho) + ": fixed cell " + std::to_string(i) + " has a non-finite position (" +
                  num(f.x[i]) + ", " + num(f.y[i]) + ", " + num(f.z[i]) + ")");
}

Design3D make_design3d(const ElectrostaticOptions3D& o, const CellSizes3D& movable, const CellSizes3D& fillers,
                       const FixedCells3D& fixed) {
  const std::string who = kWho;
  if (o.precision != Precision::Float && o.precision != Precision::Double)
    throw Error(who + ": precision is not a Precision (Float or Double)");
  if (o.backend != Backend::Auto && o.backend != Backend::Cpu && o.backend != Backend::Cuda)
    throw Error(who + ": backend is not a Backend (Auto, Cpu or Cuda)");
  if (o.gradient_scale != GradientScale::DreamPlace && o.gradient_scale != GradientScale::Exact)
    throw Error(who + ": gradient_scale is not a GradientScale (DreamPlace or Exact)");
  const double lo[3] = {o.xl, o.yl, o.zl}, hi[3] = {o.xh, o.yh, o.zh};
  for (int a = 0; a < 3; ++a)
    if (!std::isfinite(lo[a]) || !std::isfinite(hi[a]) || !(hi[a] > lo[a]))
      throw Error(who + ": region [" + num(o.xl) + ", " + num(o.xh) + ") x [" + num(o.yl) + ", " + num(o.yh) +
                  ") x [" + num(o.zl) + ", " + num(o.zh) + ") is empty or not finite along " + "xyz"[a] +
                  " (need xh > xl, yh > yl and zh > zl)");
  if (o.num_bins_x < 1 || o.num_bins_y < 1 || o.num_bins_z < 1)
    throw Error(who + ": bin grid " + std::to_string(o.num_bins_x) + " x " + std::to_string(o.num_bins_y) + " x " +
                std::to_string(o.num_bins_z) + " (need num_bins_x, num_bins_y and num_bins_z >= 1)");
  if (static_cast<long long>(o.num_bins_x) * o.num_bins_y * o.num_bins_z > std::numeric_limits<int>::max())
    throw Error(who + ": bin grid " + std::to_string(o.num_bins_x) + " x " + std::to_string(o.num_bins_y) + " x " +
                std::to_string(o.num_bins_z) + " has more than 2^31-1 bins");
  if (!(o.target_density > 0 && o.target_density <= 1))
    throw Error(who + ": target_density " + num(o.target_density) + " is outside (0, 1]");
  check_cpu_threads(o.cpu_threads, who);
  const double depth = o.zh - o.zl;
  check_sizes(movable, "movable", depth);
  check_sizes(fillers, "filler", depth);
  check_macro_mask(movable, "movable", true);
  check_macro_mask(fillers, "filler", false);
  validate_fixed_cells3d(fixed);
  const auto nm = static_cast<std::int64_t>(movable.widths.size());
  const auto nf = static_cast<std::int64_t>(fillers.widths.size());
  if (nm + nf > (1LL << 31) - 1)
    throw Error(who + ": " + std::to_string(nm + nf) + " movable and filler cells (at most 2^31-1)");

  Design3D d;
  d.options = o;
  if (d.options.filler_offset < 0) {
    if (d.options.filler_offset != -1)
      throw Error(who + ": filler_offset " + std::to_string(o.filler_offset) +
                  " (need -1 for 'after the movable cells', or an index >= num_movable)");
    d.options.filler_offset = nm;
  }
  if (d.options.filler_offset < nm)
    throw Error(who + ": filler_offset " + std::to_string(d.options.filler_offset) + " overlaps the " +
                std::to_string(nm) + " movable cells (need filler_offset >= num_movable)");
  d.movable = movable;
  d.fillers = fillers;
  d.fixed = fixed;
  d.bx = (o.xh - o.xl) / o.num_bins_x;
  d.by = (o.yh - o.yl) / o.num_bins_y;
  d.bz = (o.zh - o.zl) / o.num_bins_z;
  // The fixed-point scale 2^bits / (bx by bz) and the field's frequencies must be finite in the
  // pipeline's precision.
  const double vol = d.bx * d.by * d.bz;
  const double largest = o.precision == Precision::Float ? std::numeric_limits<float>::max()
                                                         : std::numeric_limits<double>::max();
  if (!(vol > 0) || !(std::ldexp(1.0, 40) / vol < largest) || !(d.bx / d.by < largest) || !(d.bx / d.bz < largest))
    throw Error(who + ": bins of size " + num(d.bx) + " x " + num(d.by) + " x " + num(d.bz) +
                " are too small (or too flat) for the pipeline's precision");
  d.movable_volume = total_volume(movable);
  return d;
}

void replace_cell_sizes3d(Design3D& d, const CellSizes3D* movable, const CellSizes3D* fillers) {
  const double depth = d.options.zh - d.options.zl;
  const auto same_count = [](const CellSizes3D& now, const CellSizes3D& given, const char* what) {
    const std::size_t n = now.widths.size();
    if (given.widths.size() != n || given.heights.size() != n || given.depths.size() != n)
      throw Error(std::string(kWho) + "::update_" + what + "_sizes: " + std::to_string(given.widths.size()) +
                  " widths, " + std::to_string(given.heights.size()) + " heights and " +
                  std::to_string(given.depths.size()) + " depths given for " + std::to_string(n) + " " + what +
                  " cells (the count cannot change; build a new system for that)");
  };
  if (movable) {
    same_count(d.movable, *movable, "movable");
    check_sizes(*movable, "movable", depth);
    check_macro_mask(*movable, "movable", true);
  }
  if (fillers) {
    same_count(d.fillers, *fillers, "filler");
    check_sizes(*fillers, "filler", depth);
    check_macro_mask(*fillers, "filler", false);
  }
  if (movable) {
    d.movable = *movable;
    d.movable_volume = total_volume(d.movable);
  }
  if (fillers) d.fillers = *fillers;
}

template <typename T>
void validate_host_positions3d(const Design3D& d, const T* x, const T* y, const T* z) {
  const std::int64_t nm = d.num_movable(), nc = d.num_cells(), fo = d.options.filler_offset;
  for (std::int64_t c = 0; c < nc; ++c) {
    const std::int64_t i = c < nm ? c : fo + (c - nm);
    const double px = x[i], py = y[i], pz = z[i];
    if (!std::isfinite(px) || !std::isfinite(py) || !std::isfinite(pz))
      throw Error(std::string(kWho) + "::evaluate: " + (c < nm ? "movable" : "filler") + " cell " +
                  std::to_string(c < nm ? c : c - nm) + " (array index " + std::to_string(i) +
                  ") has a non-finite position (" + num(px) + ", " + num(py) + ", " + num(pz) + ")");
  }
}
template void validate_host_positions3d<float>(const Design3D&, const float*, const float*, const float*);
template void validate_host_positions3d<double>(const Design3D&, const double*, const double*, const double*);

std::vector<double> compute_fixed_map3d(const Design3D& d) {
  const int M = d.options.num_bins_x, N = d.options.num_bins_y, L = d.options.num_bins_z;
  std::vector<double> F(static_cast<std::size_t>(d.num_bins()), 0.0);
  const FixedCells3D& f = d.fixed;
  for (std::size_t i = 0; i < f.widths.size(); ++i) {
    // Unstretched, exact overlap (docs/math.md 4.2); the part outside the region is dropped.
    Grid3D<double> g;
    g.M = M, g.N = N, g.L = L, g.bx = d.bx, g.by = d.by, g.bz = d.bz;
    // Unstretched: the minimum size 0 leaves every side as it is.
    Footprint3D<double> fp;
    fp.x = axis_span(f.x[i] - d.options.xl, f.widths[i], 0.0, 1.0 / d.bx, M, split_bin_width(d.bx, M));
    fp.y = axis_span(f.y[i] - d.options.yl, f.heights[i], 0.0, 1.0 / d.by, N, split_bin_width(d.by, N));
    fp.z = axis_span(f.z[i] - d.options.zl, f.depths[i], 0.0, 1.0 / d.bz, L, split_bin_width(d.bz, L));
    fp.charge = 1.0;
    for_each_bin3d(fp, g, [&](std::int64_t b, double v) { F[b] += v; });
  }
  const double cap = d.bx * d.by * d.bz, td = d.options.target_density;
  for (double& v : F) v = std::min(v, cap) * td;
  return F;
}

template <typename T>
Grid3D<T> make_grid3d(const Design3D& d) {
  const ElectrostaticOptions3D& o = d.options;
  Grid3D<T> g;
  g.M = o.num_bins_x, g.N = o.num_bins_y, g.L = o.num_bins_z;
  g.bx = static_cast<T>(d.bx), g.by = static_cast<T>(d.by), g.bz = static_cast<T>(d.bz);
  g.wx = split_bin_width(g.bx, g.M), g.wy = split_bin_width(g.by, g.N), g.wz = split_bin_width(g.bz, g.L);
  g.inv_bx = static_cast<T>(1.0 / d.bx), g.inv_by = static_cast<T>(1.0 / d.by), g.inv_bz = static_cast<T>(1.0 / d.bz);
  // docs/math.md 4.1: sqrt(2) bins, capped by the region's extent (binds only with one bin).
  g.min_w = static_cast<T>(std::min(std::sqrt(2.0) * d.bx, o.xh - o.xl));
  g.min_h = static_cast<T>(std::min(std::sqrt(2.0) * d.by, o.yh - o.yl));
  g.min_d = static_cast<T>(std::min(std::sqrt(2.0) * d.bz, o.zh - o.zl));
  g.xl = static_cast<T>(o.xl), g.yl = static_cast<T>(o.yl), g.zl = static_cast<T>(o.zl);
  g.num_movable = d.num_movable();
  g.num_cells = d.num_cells();
  g.filler_offset = o.filler_offset;
  g.fixed_scale = static_cast<T>(std::ldexp(1.0, FixedPointBits<T>::value) / (d.bx * d.by * d.bz));
  g.movable_macro = d.has_movable_macros() ? d.movable.movable_macro_mask.data() : nullptr;  // host memory
  g.target_density = static_cast<T>(o.target_density);
  return g;
}
template Grid3D<float> make_grid3d<float>(const Design3D&);
template Grid3D<double> make_grid3d<double>(const Design3D&);

template <typename T>
SpectralGrid3D<T> make_spectral_grid3d(const Design3D& d) {
  const double pi = 3.14159265358979323846;
  const int M = d.options.num_bins_x, N = d.options.num_bins_y, L = d.options.num_bins_z;
  SpectralGrid3D<T> s;
  s.M = M, s.N = N, s.L = L;
  s.coef_scale = static_cast<T>(4.0 / (static_cast<double>(M) * N * L));
  s.wu_step = static_cast<T>(2 * pi / M);
  s.wv_step = static_cast<T>(2 * pi / N * (d.bx / d.by));
  s.wl_step = static_cast<T>(2 * pi / L * (d.bx / d.bz));
  return s;
}
template SpectralGrid3D<float> make_spectral_grid3d<float>(const Design3D&);
template SpectralGrid3D<double> make_spectral_grid3d<double>(const Design3D&);

template <typename T>
void cell_sizes3d(const Design3D& d, std::vector<T>* w, std::vector<T>* h, std::vector<T>* dep) {
  const std::int64_t nm = d.num_movable(), nc = d.num_cells();
  w->resize(nc), h->resize(nc), dep->resize(nc);
  for (std::int64_t c = 0; c < nc; ++c) {
    const CellSizes3D& s = c < nm ? d.movable : d.fillers;
    const std::int64_t i = c < nm ? c : c - nm;
    (*w)[c] = static_cast<T>(s.widths[i]);
    (*h)[c] = static_cast<T>(s.heights[i]);
    (*dep)[c] = static_cast<T>(s.depths[i]);
  }
}
template void cell_sizes3d<float>(const Design3D&, std::vector<float>*, std::vector<float>*, std::vector<float>*);
template void cell_sizes3d<double>(const Design3D&, std::vector<double>*, std::vector<double>*, std::vector<double>*);

EvaluateResult finish_result3d(const Design3D& d, double energy_sum, double overflow_sum, double max_rho,
                               std::int64_t movable_outside, std::int64_t filler_outside) {
  const double vol = d.bx * d.by * d.bz;
  EvaluateResult r;
  r.energy = energy_sum * (static_cast<double>(d.num_bins()) / 4.0);
  r.overflow = d.movable_volume > 0 ? overflow_sum * vol / d.movable_volume : 0.0;
  r.max_density = max_rho;
  const double outside_scale = std::ldexp(vol, -kOutsideFractionBits);
  r.movable_area_outside = static_cast<double>(movable_outside) * outside_scale;
  r.filler_area_outside = static_cast<double>(filler_outside) * outside_scale;
  return r;
}

}  // namespace efield::detail
