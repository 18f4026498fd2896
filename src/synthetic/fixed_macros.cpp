// Fixed macros without overlaps: the region is cut into a grid of about twice as many slots as
// macros, each macro gets a slot of its own (chosen at random) and stays inside it. Sizes are
// log-normal with random aspect ratios, rescaled a few times so that the clamped sizes add up to
// the target area.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "synthetic/generator_steps.hpp"

namespace efield::synthetic {

void place_fixed_macros(Design& d, int count, double target_area, double width, double height, double row_height,
                        double site_width, RandomStream& rng) {
  if (count <= 0) return;
  const double slots_wanted = 2.0 * count;
  const auto kx = static_cast<std::int64_t>(std::max(1.0, std::ceil(std::sqrt(slots_wanted * width / height))));
  const auto ky = static_cast<std::int64_t>(std::max(1.0, std::ceil(slots_wanted / static_cast<double>(kx))));
  const double slot_w = width / static_cast<double>(kx), slot_h = height / static_cast<double>(ky);
  const double max_w = 0.9 * slot_w, max_h = 0.9 * slot_h;

  // Distinct slots: the first `count` entries of a partial Fisher-Yates shuffle.
  std::vector<std::int64_t> slots(static_cast<std::size_t>(kx * ky));
  std::iota(slots.begin(), slots.end(), 0);
  for (int i = 0; i < count; ++i) std::swap(slots[i], slots[i + rng.below(static_cast<std::int64_t>(slots.size()) - i)]);

  std::vector<double> weight(count), aspect(count), w(count), h(count);
  for (int i = 0; i < count; ++i) {
    weight[i] = std::exp(0.6 * rng.normal());
    aspect[i] = std::exp(rng.uniform(-0.7, 0.7));  // width / height
  }
  const double weight_sum = std::accumulate(weight.begin(), weight.end(), 0.0);
  // Snap to whole rows and sites when a slot holds at least one row / site; never exceed the slot.
  const auto snap = [](double v, double unit, double max) {
    if (max < unit) return std::min(v, max);
    return std::clamp(std::floor(v / unit) * unit, unit, std::floor(max / unit) * unit);
  };
  double scale = target_area / weight_sum;
  for (int pass = 0; pass < 6; ++pass) {
    double area = 0;
    for (int i = 0; i < count; ++i) {
      const double a = scale * weight[i];
      w[i] = snap(std::sqrt(a * aspect[i]), site_width, max_w);
      h[i] = snap(a / std::max(w[i], 1e-300), row_height, max_h);
      area += w[i] * h[i];
    }
    if (area <= 0 || std::abs(area - target_area) < 1e-3 * target_area) break;
    scale *= target_area / area;
  }

  for (int i = 0; i < count; ++i) {
    const double sx = static_cast<double>(slots[i] % kx) * slot_w;
    const double sy = static_cast<double>(slots[i] / kx) * slot_h;
    double x = sx + rng.uniform() * (slot_w - w[i]);
    double y = sy + rng.uniform() * (slot_h - h[i]);
    // On the site and row grid when that keeps the macro inside its slot.
    const double gx = std::ceil(sx / site_width) * site_width + std::floor((x - sx) / site_width) * site_width;
    if (gx >= sx && gx + w[i] <= sx + slot_w) x = gx;
    const double gy = std::ceil(sy / row_height) * row_height + std::floor((y - sy) / row_height) * row_height;
    if (gy >= sy && gy + h[i] <= sy + slot_h) y = gy;
    d.node_names.push_back("o" + std::to_string(d.node_names.size()));
    d.width.push_back(w[i]);
    d.height.push_back(h[i]);
    d.x.push_back(x);
    d.y.push_back(y);
    d.kind.push_back(NodeKind::Fixed);
  }
}

}  // namespace efield::synthetic
