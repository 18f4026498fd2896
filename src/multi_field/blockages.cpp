// The virtual blockages of a fence-region field (docs/math.md 2.11): for fence k, the part of the
// region covered neither by fence k nor by any fixed cell, as disjoint rectangles; for the
// default field, the fence rectangles themselves.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/multi_field_system.hpp"
#include "electrostatics/placement_checks.hpp"

namespace efield {
namespace {

struct Interval {
  double lo, hi;
  bool operator==(const Interval& o) const { return lo == o.lo && hi == o.hi; }
};

// The part of [yl, yh) not covered by `covered` (sorted by lo), as sorted disjoint intervals.
std::vector<Interval> complement(std::vector<Interval>& covered, double yl, double yh) {
  std::sort(covered.begin(), covered.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  std::vector<Interval> free;
  double at = yl;
  for (const Interval& c : covered) {
    if (c.lo > at) free.push_back({at, c.lo});
    at = std::max(at, c.hi);
  }
  if (at < yh) free.push_back({at, yh});
  return free;
}

// Region minus the union of `holes` (each clipped to the region already): one slab per pair of
// consecutive distinct x coordinates, its free y intervals, slabs with the same intervals merged
// into one rectangle per interval. O(S * H log H) for S slabs and H holes.
std::vector<Rect> region_minus(const std::vector<Rect>& holes, double xl, double yl, double xh, double yh) {
  std::vector<double> xs = {xl, xh};
  for (const Rect& h : holes) xs.push_back(h.xl), xs.push_back(h.xh);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::vector<Rect> out;
  std::vector<Interval> open;  // the free intervals of the slabs merged so far
  double open_from = xl;
  std::vector<Interval> covered;
  const auto close = [&](double x_end) {
    for (const Interval& f : open) out.push_back(Rect{open_from, f.lo, x_end, f.hi});
  };
  for (size_t i = 0; i + 1 < xs.size(); ++i) {
    const double a = xs[i], b = xs[i + 1];
    covered.clear();
    for (const Rect& h : holes)
      if (h.xl <= a && h.xh >= b) covered.push_back({h.yl, h.yh});
    std::vector<Interval> free = complement(covered, yl, yh);
    if (i > 0 && free == open) continue;  // the same intervals: the open rectangles grow
    if (i > 0) close(a);
    open = std::move(free);
    open_from = a;
  }
  close(xh);
  return out;
}

}  // namespace

std::vector<Rect> fence_blockages(int k, const std::vector<FenceRegion>& fences, const FixedCells& fixed, double xl,
                                  double yl, double xh, double yh) {
  const char* who = "fence_blockages";
  detail::check_region(who, xl, yl, xh, yh);
  detail::check_fences(who, fences, xl, yl, xh, yh);
  const int K = static_cast<int>(fences.size());
  if (k < 0 || k > K)
    throw Error("fence_blockages: field " + std::to_string(k) + " is outside 0.." + std::to_string(K) + " (fences 0.." +
                std::to_string(K - 1) + ", the default field " + std::to_string(K) + ")");
  const size_t nf = fixed.widths.size();
  if (fixed.heights.size() != nf || fixed.x.size() != nf || fixed.y.size() != nf)
    throw Error("fence_blockages: fixed cells need widths, heights, x and y of one count");
  if (k == K) {  // the default field: every fence as it is
    std::vector<Rect> out;
    for (const FenceRegion& f : fences) out.insert(out.end(), f.rects.begin(), f.rects.end());
    return out;
  }
  std::vector<Rect> holes = fences[static_cast<size_t>(k)].rects;
  for (size_t i = 0; i < nf; ++i) {
    const Rect c{std::max(fixed.x[i], xl), std::max(fixed.y[i], yl), std::min(fixed.x[i] + fixed.widths[i], xh),
                 std::min(fixed.y[i] + fixed.heights[i], yh)};
    if (!std::isfinite(c.xl) || !std::isfinite(c.yl) || !std::isfinite(c.xh) || !std::isfinite(c.yh))
      throw Error("fence_blockages: fixed cell " + std::to_string(i) + " has a non-finite position or size");
    if (c.xh > c.xl && c.yh > c.yl) holes.push_back(c);
  }
  return region_minus(holes, xl, yl, xh, yh);
}

}  // namespace efield
