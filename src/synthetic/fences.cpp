// Fence regions of a synthetic design: one fence per cell of a grid over the region (so fences
// never overlap), a rectangle or an L of two disjoint rectangles on the row and site grid; then
// the fenced cells, chosen at random and placed inside their fence.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "efield/error.hpp"
#include "synthetic/generator_steps.hpp"

namespace efield::synthetic {

std::vector<FenceRegion> make_fences(const SyntheticDesignSpec& spec, double width, double height, RandomStream& rng) {
  const int K = spec.num_fences;
  const double row = spec.row_height, site = spec.site_width;
  const auto kx = static_cast<int>(std::max(1.0, std::ceil(std::sqrt(K * width / height))));
  const int ky = (K + kx - 1) / kx;
  const double gw = width / kx, gh = height / ky;
  const double fence_area = spec.fence_area_fraction * width * height / K;
  std::vector<FenceRegion> fences(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) {
    const bool l_shape = spec.l_shaped_fences && k % 2 == 1;
    // The L's bounding box holds about 3/4 of its area; the box keeps the grid cell's shape.
    const double scale = std::min(0.95, std::sqrt(fence_area / (l_shape ? 0.75 : 1.0) / (gw * gh)));
    const double gx = (k % kx) * gw, gy = (k / kx) * gh;
    const double ax = std::ceil(gx / site) * site, ay = std::ceil(gy / row) * row;  // first grid point inside
    const double bw = std::min(std::floor(scale * gw / site) * site, std::floor((gx + gw - ax) / site) * site);
    const double bh = std::min(std::floor(scale * gh / row) * row, std::floor((gy + gh - ay) / row + 1e-9) * row);
    if (bw < (l_shape ? 2 : 1) * site || bh < (l_shape ? 2 : 1) * row)
      throw Error("synthetic design '" + spec.name + "': fence " + std::to_string(k) + " would be " +
                  std::to_string(bw) + " x " + std::to_string(bh) +
                  ", too small for the rows and sites; lower num_fences or raise fence_area_fraction");
    const double x0 = ax + std::floor(rng.uniform() * (gx + gw - ax - bw) / site) * site;
    const double y0 = ay + std::floor(rng.uniform() * (gy + gh - ay - bh) / row) * row;
    if (!l_shape) {
      fences[k].rects.push_back(Rect{x0, y0, x0 + bw, y0 + bh});
    } else {  // the foot (full width, lower half of the rows) and the stem (left half, above it)
      const double foot_h = std::max(row, std::floor(bh / 2 / row) * row);
      const double stem_w = std::max(site, std::floor(bw / 2 / site) * site);
      fences[k].rects.push_back(Rect{x0, y0, x0 + bw, y0 + foot_h});
      fences[k].rects.push_back(Rect{x0, y0 + foot_h, x0 + stem_w, y0 + bh});
    }
  }
  return fences;
}

std::vector<int> place_fenced_cells(Design& d, const SyntheticDesignSpec& spec, std::int64_t num_std,
                                    const std::vector<FenceRegion>& fences, RandomStream& rng) {
  const auto K = static_cast<std::int64_t>(fences.size());
  const auto m = static_cast<std::int64_t>(std::llround(spec.fenced_cell_fraction * static_cast<double>(num_std)));
  if (m < K)
    throw Error("synthetic design '" + spec.name + "': " + std::to_string(m) + " fenced cells (fenced_cell_fraction " +
                std::to_string(spec.fenced_cell_fraction) + " of " + std::to_string(num_std) +
                " standard cells) for " + std::to_string(K) + " fences; each fence needs at least one");
  // Quotas: one cell each, the rest in proportion to the fences' areas (largest remainders).
  std::vector<double> area(static_cast<std::size_t>(K), 0.0);
  for (std::int64_t k = 0; k < K; ++k)
    for (const Rect& r : fences[k].rects) area[k] += r.area();
  const double total = std::accumulate(area.begin(), area.end(), 0.0);
  std::vector<std::int64_t> quota(static_cast<std::size_t>(K), 1);
  std::vector<std::pair<double, std::int64_t>> remainder;
  std::int64_t given = K;
  for (std::int64_t k = 0; k < K; ++k) {
    const double share = static_cast<double>(m - K) * area[k] / total;
    quota[k] += static_cast<std::int64_t>(std::floor(share));
    given += static_cast<std::int64_t>(std::floor(share));
    remainder.push_back({share - std::floor(share), k});
  }
  std::stable_sort(remainder.begin(), remainder.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::int64_t i = 0; given < m; ++i, ++given) quota[remainder[static_cast<std::size_t>(i % K)].second] += 1;

  // The fenced cells: the first m of a partial Fisher-Yates shuffle of the standard cells.
  std::vector<std::int64_t> order(static_cast<std::size_t>(num_std));
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t i = 0; i < m; ++i) std::swap(order[i], order[i + rng.below(num_std - i)]);
  std::vector<int> region(d.node_names.size(), static_cast<int>(K));
  std::int64_t next = 0;
  for (std::int64_t k = 0; k < K; ++k) {
    for (std::int64_t q = 0; q < quota[k]; ++q) {
      const std::int64_t i = order[next++];
      const double w = d.width[i], h = d.height[i];
      // A rectangle of the fence that holds the cell, chosen by area.
      double fit_area = 0;
      for (const Rect& r : fences[k].rects)
        if (w <= r.xh - r.xl && h <= r.yh - r.yl) fit_area += r.area();
      if (fit_area <= 0)
        throw Error("synthetic design '" + spec.name + "': cell " + std::to_string(i) + " (" + std::to_string(w) +
                    " x " + std::to_string(h) + ") fits no rectangle of fence " + std::to_string(k) +
                    "; lower num_fences or raise fence_area_fraction");
      double pick = rng.uniform() * fit_area;
      const Rect* chosen = nullptr;
      for (const Rect& r : fences[k].rects) {
        if (!(w <= r.xh - r.xl && h <= r.yh - r.yl)) continue;
        chosen = &r;
        if ((pick -= r.area()) < 0) break;
      }
      const auto sites_free = static_cast<std::int64_t>(std::floor((chosen->xh - chosen->xl - w) / spec.site_width + 1e-9));
      const auto rows_free = static_cast<std::int64_t>(std::floor((chosen->yh - chosen->yl - h) / spec.row_height + 1e-9));
      d.x[i] = chosen->xl + static_cast<double>(rng.below(sites_free + 1)) * spec.site_width;
      d.y[i] = chosen->yl + static_cast<double>(rng.below(rows_free + 1)) * spec.row_height;
      region[i] = static_cast<int>(k);
    }
  }
  return region;
}

}  // namespace efield::synthetic
