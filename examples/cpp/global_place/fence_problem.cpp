#include "fence_problem.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace global_place {
namespace {

double overlap(const efield::Rect& r, double xl, double yl, double xh, double yh) {
  const double w = std::min(r.xh, xh) - std::max(r.xl, xl), h = std::min(r.yh, yh) - std::max(r.yl, yl);
  return w > 0 && h > 0 ? w * h : 0.0;
}

// Area of cell [xl, xh) x [yl, yh) covered by the fence (its rectangles are disjoint).
double covered_area(const efield::FenceRegion& fence, double xl, double yl, double xh, double yh) {
  double a = 0;
  for (const efield::Rect& r : fence.rects) a += overlap(r, xl, yl, xh, yh);
  return a;
}

const efield::Rect& largest_rect(const efield::FenceRegion& fence) {
  return *std::max_element(fence.rects.begin(), fence.rects.end(),
                           [](const efield::Rect& a, const efield::Rect& b) { return a.area() < b.area(); });
}

// DREAMPlace's rule sizes field k's fillers from the whole fence area, fixed cells inside it
// included; where fixed cells cover part of a fence, the fence's cells and fillers then need more
// room than the fence has. This sizes them from the fence area left free by the fixed cells.
void fit_fillers_to_free_area(efield::RegionFillerSpec& f, const efield::FenceRegion& fence,
                              const efield::FixedCells& fixed) {
  std::vector<efield::Rect> covered;
  for (const efield::Rect& r : fence.rects)
    for (std::size_t j = 0; j < fixed.widths.size(); ++j) {
      const efield::Rect c{std::max(r.xl, fixed.x[j]), std::max(r.yl, fixed.y[j]),
                           std::min(r.xh, fixed.x[j] + fixed.widths[j]), std::min(r.yh, fixed.y[j] + fixed.heights[j])};
      if (c.xh > c.xl && c.yh > c.yl) covered.push_back(c);
    }
  const double free_area = f.placeable_area - efield::union_area(covered);
  f.fillers.total_area = std::max(free_area * f.target_density - f.movable_area, 0.0);
  f.fillers.count = f.fillers.width > 0 && f.fillers.height > 0
                        ? std::llround(f.fillers.total_area / (f.fillers.width * f.fillers.height))
                        : 0;
}

}  // namespace

FenceProblem make_fence_problem(const efield::Design& design, double target_density, bool free_area_fillers) {
  if (design.fences.empty()) throw efield::Error("design '" + design.name + "' has no fence regions");
  const efield::PlacementInputs in = efield::placement_inputs(design);
  const int num_fences = static_cast<int>(design.fences.size());
  FenceProblem fp;
  fp.fences = design.fences;
  fp.region_id.resize(in.movable_nodes.size());
  for (std::size_t i = 0; i < in.movable_nodes.size(); ++i)
    fp.region_id[i] = std::min(design.region_id[in.movable_nodes[i]], num_fences);
  const efield::Region& r = in.region;
  efield::RegionFillerOptions fo;
  fo.target_density = target_density;
  fo.row_height = in.row_height;
  fp.field_fillers =
      efield::make_region_fillers(in.movable, fp.region_id, fp.fences, in.fixed, r.xl, r.yl, r.xh, r.yh, fo);
  if (free_area_fillers)
    for (int k = 0; k < num_fences; ++k) fit_fillers_to_free_area(fp.field_fillers[k], fp.fences[k], in.fixed);
  // Fillers field by field, field 0's first: make_fence_fields' layout.
  efield::CellSizes fillers;
  for (const efield::RegionFillerSpec& f : fp.field_fillers) {
    const efield::CellSizes s = f.fillers.sizes();
    fillers.widths.insert(fillers.widths.end(), s.widths.begin(), s.widths.end());
    fillers.heights.insert(fillers.heights.end(), s.heights.begin(), s.heights.end());
  }
  fp.cells = make_problem(design, target_density, &fillers);
  fp.fields = efield::make_fence_fields(in.movable, fp.region_id, fp.fences, in.fixed, r.xl, r.yl, r.xh, r.yh,
                                        fp.field_fillers);
  fp.cell_field.assign(fp.cells.num_cells(), -1);
  for (int k = 0; k < fp.num_fields(); ++k) {
    for (std::int64_t e : fp.fields[k].movable_index) fp.cell_field[e] = k;
    for (std::int64_t e : fp.fields[k].filler_index) fp.cell_field[e] = k;
  }
  if (std::count(fp.cell_field.begin(), fp.cell_field.end(), -1) > 0)
    throw efield::Error("make_fence_fields left cells of '" + design.name + "' in no field");
  return fp;
}

std::vector<double> fence_initial_positions(const FenceProblem& fp, std::uint64_t seed) {
  const PlacementProblem& p = fp.cells;
  const int n = p.num_cells(), num_fences = static_cast<int>(fp.fences.size());
  const efield::Region& region = p.region;
  std::vector<double> pos(2 * static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> uniform(0, 1);
  const auto place_in = [&](int i, const efield::Rect& r, double x, double y) {
    pos[i] = std::clamp(x - 0.5 * p.width[i], r.xl, std::max(r.xl, r.xh - p.width[i]));
    pos[n + i] = std::clamp(y - 0.5 * p.height[i], r.yl, std::max(r.yl, r.yh - p.height[i]));
  };
  const efield::Rect whole{region.xl, region.yl, region.xh, region.yh};
  for (int i = 0; i < p.num_movable; ++i) {
    const int k = fp.region_id[i];
    const efield::Rect& r = k < num_fences ? largest_rect(fp.fences[k]) : whole;
    place_in(i, r, 0.5 * (r.xl + r.xh) + 1e-3 * region.width() * normal(rng),
             0.5 * (r.yl + r.yh) + 1e-3 * region.height() * normal(rng));
  }
  for (int i = p.num_movable; i < n; ++i) {
    const int k = fp.cell_field[i];
    const efield::Rect* r = &whole;
    if (k < num_fences) {  // a rectangle of the fence, chosen by area
      const std::vector<efield::Rect>& rects = fp.fences[k].rects;
      double total = 0;
      for (const efield::Rect& q : rects) total += q.area();
      double pick = uniform(rng) * total;
      r = &rects.back();
      for (const efield::Rect& q : rects)
        if ((pick -= q.area()) < 0) {
          r = &q;
          break;
        }
    }
    place_in(i, *r, r->xl + uniform(rng) * (r->xh - r->xl), r->yl + uniform(rng) * (r->yh - r->yl));
  }
  return pos;
}

FenceContainment fence_containment(const FenceProblem& fp, const std::vector<double>& pos) {
  const PlacementProblem& p = fp.cells;
  const int n = p.num_cells(), num_fences = static_cast<int>(fp.fences.size());
  FenceContainment c;
  c.outside.assign(num_fences, 0);
  for (int i = 0; i < p.num_movable; ++i) {
    const double xl = pos[i], yl = pos[n + i], xh = xl + p.width[i], yh = yl + p.height[i];
    const double area = p.width[i] * p.height[i];
    const int k = fp.region_id[i];
    if (k < num_fences) {
      // Inside when the fence covers the whole cell (up to 1e-6 of its area: float positions).
      if (covered_area(fp.fences[k], xl, yl, xh, yh) < area * (1 - 1e-6)) ++c.outside[k], ++c.total_outside;
    } else {
      for (const efield::FenceRegion& f : fp.fences)
        if (covered_area(f, xl, yl, xh, yh) > area * 1e-6) {
          ++c.default_intruding;
          break;
        }
    }
  }
  return c;
}

int snap_into_fences(const FenceProblem& fp, std::vector<double>& pos) {
  const PlacementProblem& p = fp.cells;
  const int n = p.num_cells(), num_fences = static_cast<int>(fp.fences.size());
  int moved = 0;
  for (int i = 0; i < p.num_movable; ++i) {
    const int k = fp.region_id[i];
    if (k >= num_fences) continue;
    const double w = p.width[i], h = p.height[i];
    if (covered_area(fp.fences[k], pos[i], pos[n + i], pos[i] + w, pos[n + i] + h) >= w * h * (1 - 1e-6)) continue;
    double best = -1, bx = pos[i], by = pos[n + i];
    for (const efield::Rect& r : fp.fences[k].rects) {
      if (r.xh - r.xl < w || r.yh - r.yl < h) continue;
      const double x = std::clamp(pos[i], r.xl, r.xh - w), y = std::clamp(pos[n + i], r.yl, r.yh - h);
      const double d = std::abs(x - pos[i]) + std::abs(y - pos[n + i]);
      if (best < 0 || d < best) best = d, bx = x, by = y;
    }
    if (best >= 0) pos[i] = bx, pos[n + i] = by, ++moved;
  }
  return moved;
}

}  // namespace global_place
