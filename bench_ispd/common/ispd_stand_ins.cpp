#include "common/ispd_stand_ins.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <utility>

#include "efield/error.hpp"
#include "efield/placement_helpers.hpp"

namespace efield::bench {

StandInDesign make_stand_in(const std::string& name, int num_movable, int num_fixed, int bins, std::uint64_t seed,
                            StandInPlacement placement, double pile_side, double fixed_fraction,
                            double utilization) {
  std::mt19937_64 gen(seed);
  auto uni = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(gen); };
  std::lognormal_distribution<double> width_dist(std::log(6.0), 0.6);
  StandInDesign d;
  d.name = name;
  d.bins = bins;
  double area = 0;
  for (int i = 0; i < num_movable; ++i) {
    double w, h = 12;
    if (uni(0, 1) < 0.002) {
      w = std::round(uni(30, 120));
      h = 12 * std::round(uni(2, 8));
    } else {
      w = std::max(1.0, std::min(80.0, std::round(width_dist(gen))));
    }
    d.movable.widths.push_back(w);
    d.movable.heights.push_back(h);
    area += w * h;
  }
  const double side = std::round(std::sqrt(area / utilization / (1 - fixed_fraction)));
  d.W = d.H = side;
  const double macro_area = fixed_fraction * side * side / num_fixed;
  for (int i = 0; i < num_fixed; ++i) {
    const double aspect = uni(0.5, 2.0), a = macro_area * uni(0.5, 1.5);
    const double w = std::min(0.5 * side, std::sqrt(a * aspect)), h = std::min(0.5 * side, a / w);
    d.fixed.widths.push_back(w);
    d.fixed.heights.push_back(h);
    d.fixed.x.push_back(uni(0, side - w));
    d.fixed.y.push_back(uni(0, side - h));
  }
  const FillerSpec f = make_fillers(d.movable, d.fixed, 0, 0, side, side, 1.0, 12);
  d.fillers = f.sizes();
  const size_t nc = d.movable.widths.size() + d.fillers.widths.size();
  for (size_t c = 0; c < nc; ++c) {
    const double w = c < d.movable.widths.size() ? d.movable.widths[c] : f.width;
    d.x.push_back(static_cast<float>(uni(0, side - w)));
    d.y.push_back(static_cast<float>(uni(0, side - 12)));
  }
  if (placement == StandInPlacement::Piled) {
    for (size_t c = 0; c < d.movable.widths.size(); ++c) {
      d.x[c] = static_cast<float>(side * uni(0.5 - 0.5 * pile_side, 0.5 + 0.5 * pile_side));
      d.y[c] = static_cast<float>(side * uni(0.5 - 0.5 * pile_side, 0.5 + 0.5 * pile_side));
    }
  }
  if (placement == StandInPlacement::Sorted) {  // positions handed out in bin order (x column, then y), movable and fillers each
    const double bin = side / bins;
    const size_t nm = d.movable.widths.size();
    for (const auto& [begin, end] : {std::pair<size_t, size_t>{0, nm}, {nm, nc}}) {
      std::vector<std::tuple<double, float, float>> key;  // (bin column, y, x)
      for (size_t c = begin; c < end; ++c) key.emplace_back(std::floor(d.x[c] / bin), d.y[c], d.x[c]);
      std::sort(key.begin(), key.end());
      for (size_t k = 0; k < key.size(); ++k) {
        d.y[begin + k] = std::get<1>(key[k]);
        d.x[begin + k] = std::get<2>(key[k]);
      }
    }
  }
  return d;
}

StandInDesign make_ispd_stand_in(const std::string& short_name, StandInPlacement placement, double pile_side) {
  if (short_name == "adaptec1") return make_stand_in("adaptec1-like", 210904, 63, 512, 1, placement, pile_side);
  if (short_name == "bigblue4") return make_stand_in("bigblue4-like", 2200000, 400, 2048, 4, placement, pile_side);
  // The ICCAD04 IBM designs' scale (ibm01: 12,028 movable cells, 64 x 64 bins; ibm05: 28,146,
  // 128 x 128): small designs whose evaluate is bound by launches, not memory.
  if (short_name == "ibm01") return make_stand_in("ibm01-like", 12028, 16, 64, 11, placement, pile_side);
  if (short_name == "ibm05") return make_stand_in("ibm05-like", 28146, 32, 128, 15, placement, pile_side);
  throw Error("make_ispd_stand_in: no stand-in named '" + short_name + "' (adaptec1, bigblue4, ibm01, ibm05)");
}

void add_movable_macros(StandInDesign& d, double area_fraction, double min_bins, double max_bins,
                        std::uint64_t seed) {
  if (!(area_fraction > 0)) return;
  std::mt19937_64 gen(seed);
  auto uni = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(gen); };
  const double bin_area = (d.W / d.bins) * (d.H / d.bins), goal = area_fraction * d.W * d.H;
  std::vector<float> mx, my;
  for (double area = 0; area < goal;) {
    const double a = bin_area * std::exp(uni(std::log(min_bins), std::log(max_bins)));
    const double aspect = uni(0.5, 2.0);
    const double w = std::min(d.W, std::sqrt(a * aspect)), h = std::min(d.H, a / w);
    d.movable.widths.push_back(w);
    d.movable.heights.push_back(h);
    mx.push_back(static_cast<float>(uni(0, d.W - w)));
    my.push_back(static_cast<float>(uni(0, d.H - h)));
    area += w * h;
  }
  const auto at = static_cast<std::ptrdiff_t>(d.movable.widths.size() - mx.size());  // the fillers' first index
  d.x.insert(d.x.begin() + at, mx.begin(), mx.end());
  d.y.insert(d.y.begin() + at, my.begin(), my.end());
}

ElectrostaticOptions stand_in_options(const StandInDesign& d) {
  ElectrostaticOptions o;
  o.xl = 0;
  o.yl = 0;
  o.xh = d.W;
  o.yh = d.H;
  o.num_bins_x = o.num_bins_y = d.bins;
  o.target_density = 1.0;
  o.precision = Precision::Float;
  o.backend = Backend::Cuda;
  return o;
}

}  // namespace efield::bench
