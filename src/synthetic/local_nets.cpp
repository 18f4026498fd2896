// Random local nets. Movable cells are ordered along a snake through square tiles of about 32
// cells each, so that cells close in that order are close on the chip; a net takes a random
// cell of the order and pins from its neighbourhood in it (normal offsets, wider for bigger
// nets). Degrees follow the usual shape of real netlists: mostly 2- and 3-pin nets, a tail up
// to 40 pins. About 3% of nets also touch a random terminal (macro or pad).
#include <algorithm>
#include <cmath>
#include <string>

#include "synthetic/generator_steps.hpp"

namespace efield::synthetic {
namespace {

int draw_degree(RandomStream& rng, std::int64_t max_degree) {
  const double u = rng.uniform();
  int degree;
  if (u < 0.55) degree = 2;
  else if (u < 0.75) degree = 3;
  else if (u < 0.85) degree = 4;
  else degree = 5 + static_cast<int>(std::min(35.0, -4.0 * std::log(1.0 - rng.uniform())));
  return static_cast<int>(std::min<std::int64_t>(degree, max_degree));
}

// Half-unit offset from the centre, inside [-size/2, size/2].
double pin_offset(RandomStream& rng, double size) {
  return std::round((rng.uniform() - 0.5) * size * 2.0) / 2.0;
}

}  // namespace

void make_local_nets(Design& d, std::int64_t num_movable, std::int64_t num_nets, double region_width,
                     double region_height, RandomStream& rng) {
  d.has_nets = true;
  d.net_pin_start.assign(1, 0);
  if (num_movable < 2 || num_nets <= 0) {
    d.net_weight.clear();
    d.net_names.clear();
    return;
  }
  // Snake order through tiles.
  const double tiles = std::max(1.0, static_cast<double>(num_movable) / 32.0);
  const double tile = std::sqrt(region_width * region_height / tiles);
  const auto tiles_x = static_cast<std::int64_t>(std::max(1.0, std::ceil(region_width / tile)));
  const auto tiles_y = static_cast<std::int64_t>(std::max(1.0, std::ceil(region_height / tile)));
  std::vector<std::int64_t> key(static_cast<std::size_t>(num_movable));
  std::vector<std::int64_t> bucket_start(static_cast<std::size_t>(tiles_x * tiles_y + 1), 0);
  for (std::int64_t i = 0; i < num_movable; ++i) {
    const auto tx = std::clamp<std::int64_t>(static_cast<std::int64_t>((d.x[i] + 0.5 * d.width[i]) / tile), 0, tiles_x - 1);
    const auto ty = std::clamp<std::int64_t>(static_cast<std::int64_t>((d.y[i] + 0.5 * d.height[i]) / tile), 0, tiles_y - 1);
    key[i] = ty * tiles_x + (ty % 2 ? tiles_x - 1 - tx : tx);
    ++bucket_start[key[i] + 1];
  }
  for (std::size_t b = 1; b < bucket_start.size(); ++b) bucket_start[b] += bucket_start[b - 1];
  std::vector<int> order(static_cast<std::size_t>(num_movable));
  for (std::int64_t i = 0; i < num_movable; ++i) order[bucket_start[key[i]]++] = static_cast<int>(i);
  key.clear();
  key.shrink_to_fit();

  const int num_nodes = d.num_nodes();
  const std::int64_t num_terminals = num_nodes - num_movable;
  d.net_names.reserve(static_cast<std::size_t>(num_nets));
  d.net_pin_start.reserve(static_cast<std::size_t>(num_nets) + 1);
  d.pins.reserve(static_cast<std::size_t>(num_nets) * 3);
  std::vector<int> members;
  for (std::int64_t k = 0; k < num_nets; ++k) {
    const int degree = draw_degree(rng, num_movable);
    const std::int64_t seed = rng.below(num_movable);
    const double spread = 4.0 + 2.0 * degree;
    members.assign(1, order[seed]);
    for (int p = 1; p < degree; ++p) {
      int node = -1;
      for (int attempt = 0; attempt < 16 && node < 0; ++attempt) {
        const auto at = std::clamp<std::int64_t>(seed + std::llround(spread * rng.normal()), 0, num_movable - 1);
        const int candidate = order[at];
        if (std::find(members.begin(), members.end(), candidate) == members.end()) node = candidate;
      }
      if (node >= 0) members.push_back(node);
    }
    if (num_terminals > 0 && members.size() >= 2 && rng.uniform() < 0.03)
      members.back() = static_cast<int>(num_movable + rng.below(num_terminals));
    for (std::size_t p = 0; p < members.size(); ++p) {
      Pin pin;
      pin.node = members[p];
      pin.direction = p == 0 ? PinDirection::Output : PinDirection::Input;
      pin.offset_x = pin_offset(rng, d.width[pin.node]);
      pin.offset_y = pin_offset(rng, d.height[pin.node]);
      d.pins.push_back(pin);
    }
    d.net_names.push_back("n" + std::to_string(k));
    d.net_pin_start.push_back(static_cast<int>(d.pins.size()));
  }
  d.net_weight.assign(d.net_names.size(), 1.0);
}

}  // namespace efield::synthetic
