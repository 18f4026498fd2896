#include "common/initial_placement.hpp"

#include <algorithm>
#include <random>

#include "efield/error.hpp"

namespace efield::bench {

InitialPlacement parse_initial_placement(const std::string& name) {
  if (name == "uniform") return InitialPlacement::Uniform;
  if (name == "center") return InitialPlacement::Center;
  if (name == "file") return InitialPlacement::File;
  throw Error("--placement '" + name + "' is unknown (use uniform, center or file)");
}

const char* to_string(InitialPlacement p) noexcept {
  switch (p) {
    case InitialPlacement::Uniform: return "uniform";
    case InitialPlacement::Center: return "center";
    case InitialPlacement::File: return "file";
  }
  return "?";
}

void initial_positions(const DensityProblem& p, const CellSizes& fillers, InitialPlacement placement,
                       std::uint64_t seed, std::vector<double>& x, std::vector<double>& y) {
  const Region& r = p.region;
  const std::size_t n = p.movable.widths.size(), f = fillers.widths.size();
  x.resize(n + f);
  y.resize(n + f);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  const auto clamp_into = [&](double v, double lo, double hi, double size) {
    return std::max(lo, std::min(v, hi - size));
  };
  const auto uniform = [&](double size, double lo, double hi) { return lo + unit(gen) * std::max(0.0, hi - lo - size); };
  for (std::size_t i = 0; i < n; ++i) {
    const double w = p.movable.widths[i], h = p.movable.heights[i];
    switch (placement) {
      case InitialPlacement::Uniform:
        x[i] = uniform(w, r.xl, r.xh), y[i] = uniform(h, r.yl, r.yh);
        break;
      case InitialPlacement::Center: {
        const double cx = 0.5 * (r.xl + r.xh) + 0.05 * r.width() * normal(gen);
        const double cy = 0.5 * (r.yl + r.yh) + 0.05 * r.height() * normal(gen);
        x[i] = clamp_into(cx - 0.5 * w, r.xl, r.xh, w), y[i] = clamp_into(cy - 0.5 * h, r.yl, r.yh, h);
        break;
      }
      case InitialPlacement::File:
        x[i] = p.movable_x[i], y[i] = p.movable_y[i];
        break;
    }
  }
  for (std::size_t j = 0; j < f; ++j)
    x[n + j] = uniform(fillers.widths[j], r.xl, r.xh), y[n + j] = uniform(fillers.heights[j], r.yl, r.yh);
}

}  // namespace efield::bench
