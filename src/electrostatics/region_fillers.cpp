// Fillers per fence region (docs/math.md "Fillers per fence region"): DREAMPlace 3.0's rule,
// one field per fence plus the default field.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/placement_helpers.hpp"
#include "electrostatics/placement_checks.hpp"

namespace efield {
namespace {

std::string rect_text(const Rect& r) {
  return "[" + std::to_string(r.xl) + ", " + std::to_string(r.xh) + ") x [" + std::to_string(r.yl) + ", " +
         std::to_string(r.yh) + ")";
}

// Cover counts over the compressed y intervals; covered[node] = covered length below node.
struct CoverTree {
  const std::vector<double>& ys;
  std::vector<int> count;
  std::vector<double> covered;
  explicit CoverTree(const std::vector<double>& y) : ys(y), count(4 * y.size()), covered(4 * y.size()) {}
  void add(size_t node, size_t lo, size_t hi, size_t a, size_t b, int delta) {  // intervals [lo, hi)
    if (b <= lo || hi <= a) return;
    if (a <= lo && hi <= b) {
      count[node] += delta;
    } else {
      const size_t mid = (lo + hi) / 2;
      add(2 * node, lo, mid, a, b, delta);
      add(2 * node + 1, mid, hi, a, b, delta);
    }
    if (count[node] > 0) covered[node] = ys[hi] - ys[lo];
    else covered[node] = (hi - lo == 1) ? 0.0 : covered[2 * node] + covered[2 * node + 1];
  }
};

// NumPy's default percentile ('linear'): q in [0, 100] of ascending `v`, same rounding steps.
double percentile_linear(const std::vector<double>& v, double q) {
  const double index = (q / 100.0) * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(index));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double t = index - static_cast<double>(lo), a = v[lo], b = v[hi], diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

// The fence rule's filler width: the mean of the widths w with p5 <= w <= p95 (a value range,
// unlike make_fillers' index slice). The range can hold no width at all (two widths 1 and 10 give
// [1.45, 9.55]), where the reference's mean is undefined: then the mean of all widths.
double range_mean_width(std::vector<double> widths) {
  std::sort(widths.begin(), widths.end());
  const double p5 = percentile_linear(widths, 5), p95 = percentile_linear(widths, 95);
  double sum = 0, all = 0;
  size_t n = 0;
  for (double w : widths) {
    all += w;
    if (p5 <= w && w <= p95) sum += w, ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : all / static_cast<double>(widths.size());
}

}  // namespace

namespace detail {

void check_fences(const char* who, const std::vector<FenceRegion>& fences, double xl, double yl, double xh, double yh) {
  struct Tagged { Rect r; size_t fence, index; };
  std::vector<Tagged> all;
  for (size_t k = 0; k < fences.size(); ++k) {
    const std::string name = std::string(who) + ": fence " + std::to_string(k);
    if (fences[k].rects.empty()) throw Error(name + " has no rectangles");
    for (size_t j = 0; j < fences[k].rects.size(); ++j) {
      const Rect& r = fences[k].rects[j];
      const std::string which = name + " rectangle " + std::to_string(j) + " " + rect_text(r);
      if (!std::isfinite(r.xl) || !std::isfinite(r.yl) || !std::isfinite(r.xh) || !std::isfinite(r.yh) ||
          !(r.xh > r.xl) || !(r.yh > r.yl))
        throw Error(which + " is empty or not finite");
      if (r.xl < xl || r.yl < yl || r.xh > xh || r.yh > yh)
        throw Error(which + " is not inside the placement region " + rect_text(Rect{xl, yl, xh, yh}));
      all.push_back({r, k, j});
    }
  }
  // Sorted by xl, a rectangle can overlap only those that start before it ends.
  std::sort(all.begin(), all.end(), [](const Tagged& a, const Tagged& b) { return a.r.xl < b.r.xl; });
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size() && all[j].r.xl < all[i].r.xh; ++j)
      if (std::min(all[i].r.yh, all[j].r.yh) > std::max(all[i].r.yl, all[j].r.yl))
        throw Error(std::string(who) + ": fence " + std::to_string(all[i].fence) + " rectangle " +
                    std::to_string(all[i].index) + " " + rect_text(all[i].r) + " overlaps fence " +
                    std::to_string(all[j].fence) + " rectangle " + std::to_string(all[j].index) + " " +
                    rect_text(all[j].r) + " (fence rectangles must be disjoint)");
}

}  // namespace detail

double union_area(const std::vector<Rect>& rects) {
  struct Event { double x, y0, y1; int delta; };
  std::vector<Event> events;
  std::vector<double> ys;
  for (const Rect& r : rects) {
    if (!(r.xh > r.xl && r.yh > r.yl)) continue;
    events.push_back({r.xl, r.yl, r.yh, +1});
    events.push_back({r.xh, r.yl, r.yh, -1});
    ys.push_back(r.yl), ys.push_back(r.yh);
  }
  if (events.empty()) return 0.0;
  std::sort(ys.begin(), ys.end());
  ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.x < b.x; });
  CoverTree tree(ys);
  const size_t intervals = ys.size() - 1;
  const auto at = [&](double y) { return static_cast<size_t>(std::lower_bound(ys.begin(), ys.end(), y) - ys.begin()); };
  double area = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (i > 0) area += tree.covered[1] * (events[i].x - events[i - 1].x);
    tree.add(1, 0, intervals, at(events[i].y0), at(events[i].y1), events[i].delta);
  }
  return area;
}

std::vector<RegionFillerSpec> make_region_fillers(const CellSizes& movable, const std::vector<int>& region_id,
                                                  const std::vector<FenceRegion>& fences, const FixedCells& fixed,
                                                  double xl, double yl, double xh, double yh,
                                                  const RegionFillerOptions& options) {
  const char* who = "make_region_fillers";
  detail::check_region(who, xl, yl, xh, yh);
  detail::check_movable(who, movable);
  detail::check_td(who, options.target_density);
  const size_t K = fences.size(), n = movable.widths.size();
  if (!region_id.empty() && region_id.size() != n)
    throw Error("make_region_fillers: region_id has " + std::to_string(region_id.size()) + " entries for " +
                std::to_string(n) + " movable cells (give one per cell, or none)");
  if (!options.field_target_density.empty() && options.field_target_density.size() != K + 1)
    throw Error("make_region_fillers: field_target_density has " + std::to_string(options.field_target_density.size()) +
                " entries for " + std::to_string(K + 1) + " fields (K fences + the default field)");
  for (size_t k = 0; k < options.field_target_density.size(); ++k) {
    const double t = options.field_target_density[k];
    if (!(t == 0 || (t > 0 && t <= 1)))
      throw Error("make_region_fillers: field_target_density[" + std::to_string(k) + "] = " + std::to_string(t) +
                  " is neither 0 (the rule) nor in (0, 1]");
  }
  // The field of each cell: [0, K) fenced, K default.
  std::vector<size_t> field(n, K);
  for (size_t i = 0; i < region_id.size(); ++i) {
    const int id = region_id[i];
    if (id == kDreamPlaceDefaultRegion || id == static_cast<int>(K)) continue;
    if (id < 0 || id > static_cast<int>(K))
      throw Error("make_region_fillers: region_id[" + std::to_string(i) + "] = " + std::to_string(id) +
                  " is out of range (fences 0.." + std::to_string(static_cast<long long>(K) - 1) + ", default region " +
                  std::to_string(K) + " or INT_MAX)");
    field[i] = static_cast<size_t>(id);
  }
  const auto given_td = [&](size_t k) {
    return options.field_target_density.empty() ? 0.0 : options.field_target_density[k];
  };

  if (K == 0) {  // no fences: DREAMPlace's single-field rule, make_fillers as it is
    const double td = given_td(0) > 0 ? given_td(0) : options.target_density;
    RegionFillerSpec out;
    out.fillers = make_fillers(movable, fixed, xl, yl, xh, yh, td, options.row_height);
    out.target_density = td;
    out.num_movable = static_cast<std::int64_t>(n);
    for (size_t i = 0; i < n; ++i) out.movable_area += movable.widths[i] * movable.heights[i];
    out.placeable_area = (xh - xl) * (yh - yl) - detail::fixed_area_inside(fixed, xl, yl, xh, yh);
    out.utilization = std::min(out.movable_area / out.placeable_area, 1.0);
    return {out};
  }

  if (!std::isfinite(options.row_height)) throw Error("make_region_fillers: row_height is not finite");
  const size_t nf = fixed.widths.size();
  if (fixed.heights.size() != nf || fixed.x.size() != nf || fixed.y.size() != nf)
    throw Error("make_region_fillers: fixed cells need widths, heights, x and y of one count");
  detail::check_fences(who, fences, xl, yl, xh, yh);

  // Placeable areas: fence k its rectangles' area; the default field S minus all fences, S being
  // the region less the union of the fixed cells clipped to it.
  std::vector<double> area(K + 1, 0.0);
  double fence_total = 0;
  for (size_t k = 0; k < K; ++k) {
    for (const Rect& r : fences[k].rects) area[k] += r.area();
    fence_total += area[k];
  }
  std::vector<Rect> clipped;
  for (size_t i = 0; i < nf; ++i) {
    const Rect c{std::max(fixed.x[i], xl), std::max(fixed.y[i], yl), std::min(fixed.x[i] + fixed.widths[i], xh),
                 std::min(fixed.y[i] + fixed.heights[i], yh)};
    if (std::isfinite(c.xl) && std::isfinite(c.yl) && std::isfinite(c.xh) && std::isfinite(c.yh)) clipped.push_back(c);
  }
  area[K] = (xh - xl) * (yh - yl) - union_area(clipped) - fence_total;

  // The fields' cells; a fenced cell must fit its fence's bounding box and area.
  std::vector<std::vector<double>> widths(K + 1);
  std::vector<RegionFillerSpec> out(K + 1);
  std::vector<double> height_sum(K + 1, 0.0);
  std::vector<Rect> boxes;
  for (const FenceRegion& f : fences) {
    Rect box = f.rects[0];
    for (const Rect& r : f.rects)
      box = Rect{std::min(box.xl, r.xl), std::min(box.yl, r.yl), std::max(box.xh, r.xh), std::max(box.yh, r.yh)};
    boxes.push_back(box);
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t k = field[i];
    const double w = movable.widths[i], h = movable.heights[i];
    if (k < K) {
      const Rect& box = boxes[k];
      if (w > box.xh - box.xl || h > box.yh - box.yl || w * h > area[k])
        throw Error("make_region_fillers: movable cell " + std::to_string(i) + " (" + std::to_string(w) + " x " +
                    std::to_string(h) + ") does not fit fence " + std::to_string(k) + " (bounding box " +
                    rect_text(box) + ", area " + std::to_string(area[k]) + ")");
    }
    widths[k].push_back(w);
    height_sum[k] += h;
    out[k].movable_area += w * h;
    out[k].num_movable += 1;
  }

  for (size_t k = 0; k <= K; ++k) {
    const std::string name = k < K ? "fence " + std::to_string(k) : std::string("the default region");
    RegionFillerSpec& f = out[k];
    if (f.num_movable == 0)
      throw Error("make_region_fillers: " + name + " has no movable cells (its filler width is undefined; "
                  "leave such a region out of the fences)");
    if (!(area[k] > 0))
      throw Error("make_region_fillers: " + name + " has no placeable area (" + std::to_string(area[k]) +
                  ") but " + std::to_string(f.num_movable) + " movable cells");
    f.placeable_area = area[k];
    f.utilization = std::min(f.movable_area / area[k], 1.0);
    if (given_td(k) > 0) {
      f.target_density = given_td(k);
    } else {
      const double td = options.target_density;
      f.target_density = std::max(0.35, td < f.utilization ? std::min(1.0, f.utilization + 0.01) : td);
    }
    f.fillers.width = range_mean_width(widths[k]);
    f.fillers.height = options.row_height > 0 ? options.row_height : height_sum[k] / static_cast<double>(f.num_movable);
    f.fillers.total_area = std::max(area[k] * f.target_density - f.movable_area, 0.0);
    const double wanted = f.fillers.total_area / (f.fillers.width * f.fillers.height);
    if (!(wanted <= 2147483647.0 - static_cast<double>(n)))
      throw Error("make_region_fillers: " + name + " needs " + std::to_string(wanted) +
                  " fillers, more than an ElectrostaticSystem takes (2^31 - 1 cells in all)");
    f.fillers.count = static_cast<std::int64_t>(std::nearbyint(wanted));  // ties to even, as Python's round
  }
  return out;
}

}  // namespace efield
