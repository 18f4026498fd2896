#include "placement_problem.hpp"

#include <algorithm>
#include <random>

namespace global_place {

PlacementProblem make_problem(const efield::Design& design, double target_density, const efield::CellSizes* fillers) {
  const efield::PlacementInputs in = efield::placement_inputs(design);
  if (in.movable_nodes.empty()) throw efield::Error("design '" + design.name + "' has no movable cells");
  if (!design.has_nets || design.num_nets() == 0)
    throw efield::Error("design '" + design.name + "' has no nets: nothing for a placer to optimise");
  PlacementProblem p;
  p.region = in.region;
  p.target_density = target_density;
  const efield::Region& r = p.region;
  p.bins = efield::default_bin_grid(in.movable, r.xl, r.yl, r.xh, r.yh, target_density);
  p.bin_width = r.width() / p.bins.num_bins_x;
  p.bin_height = r.height() / p.bins.num_bins_y;
  p.row_height = in.row_height;
  if (p.row_height <= 0) {
    for (double h : in.movable.heights) p.row_height += h;
    p.row_height /= static_cast<double>(in.movable.heights.size());
  }
  p.fillers = fillers ? *fillers
                      : efield::make_fillers(in.movable, in.fixed, r.xl, r.yl, r.xh, r.yh, target_density,
                                             in.row_height)
                            .sizes();
  p.movable = in.movable;
  p.fixed = in.fixed;
  p.movable_nodes = in.movable_nodes;
  p.num_movable = static_cast<int>(in.movable_nodes.size());
  p.num_fillers = static_cast<int>(p.fillers.widths.size());
  p.width = p.movable.widths;
  p.width.insert(p.width.end(), p.fillers.widths.begin(), p.fillers.widths.end());
  p.height = p.movable.heights;
  p.height.insert(p.height.end(), p.fillers.heights.begin(), p.fillers.heights.end());

  // Pins: the netlist view gives offsets from the node centre with the orientation applied.
  const efield::PlacementNetlist nl = efield::placement_netlist(design);
  std::vector<int> cell_of_node(design.num_nodes(), -1);
  for (int i = 0; i < p.num_movable; ++i) cell_of_node[p.movable_nodes[i]] = i;
  p.net_pin_start = nl.net_pin_start;
  p.net_weight = nl.net_weight;
  p.pin_cell.resize(nl.num_pins());
  p.pin_dx.resize(nl.num_pins());
  p.pin_dy.resize(nl.num_pins());
  for (int pin = 0; pin < nl.num_pins(); ++pin) {
    const int node = nl.pin_node[pin];
    const int cell = cell_of_node[node];
    const double cx = 0.5 * design.footprint_width(node) + nl.pin_offset_x[pin];
    const double cy = 0.5 * design.footprint_height(node) + nl.pin_offset_y[pin];
    p.pin_cell[pin] = cell;
    p.pin_dx[pin] = cell >= 0 ? cx : design.x[node] + cx;
    p.pin_dy[pin] = cell >= 0 ? cy : design.y[node] + cy;
  }
  p.cell_pin_start.assign(p.num_cells() + 1, 0);
  for (int i = 0; i < p.num_movable; ++i) {
    const int node = p.movable_nodes[i];
    const int first = nl.node_pin_start[node], last = nl.node_pin_start[node + 1];
    p.cell_pin_start[i + 1] = p.cell_pin_start[i] + (last - first);
    p.cell_pins.insert(p.cell_pins.end(), nl.node_pins.begin() + first, nl.node_pins.begin() + last);
  }
  for (int i = p.num_movable; i < p.num_cells(); ++i) p.cell_pin_start[i + 1] = p.cell_pin_start[i];
  return p;
}

int mark_movable_macros(PlacementProblem& p) {
  const efield::CellSizes& m = p.movable;
  double mean_area = 0;
  for (std::size_t i = 0; i < m.widths.size(); ++i) mean_area += m.widths[i] * m.heights[i];
  mean_area /= static_cast<double>(std::max<std::size_t>(m.widths.size(), 1));
  std::vector<std::uint8_t> mask(m.widths.size(), 0);
  int count = 0;
  for (std::size_t i = 0; i < mask.size(); ++i) {
    mask[i] = m.widths[i] * m.heights[i] > 10 * mean_area && m.heights[i] > 2 * p.row_height;
    count += mask[i];
  }
  p.movable.movable_macro_mask = std::move(mask);
  return count;
}

efield::ElectrostaticOptions density_options(const PlacementProblem& p, efield::Precision precision,
                                             efield::Backend backend) {
  efield::ElectrostaticOptions o;
  o.xl = p.region.xl, o.yl = p.region.yl, o.xh = p.region.xh, o.yh = p.region.yh;
  o.num_bins_x = p.bins.num_bins_x, o.num_bins_y = p.bins.num_bins_y;
  o.target_density = p.target_density;
  o.precision = precision;
  o.backend = backend;
  return o;
}

namespace {

// Cells [first, n) uniformly at random in the region, wholly inside where they fit.
void spread_uniformly(const PlacementProblem& p, int first, std::mt19937_64& rng, std::vector<double>& pos) {
  const int n = p.num_cells();
  const efield::Region& r = p.region;
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = first; i < n; ++i) {
    pos[i] = r.xl + u(rng) * std::max(0.0, r.width() - p.width[i]);
    pos[n + i] = r.yl + u(rng) * std::max(0.0, r.height() - p.height[i]);
  }
}

}  // namespace

std::vector<double> initial_positions(const PlacementProblem& p, std::uint64_t seed) {
  const int n = p.num_cells();
  const efield::Region& r = p.region;
  std::vector<double> pos(2 * static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nx(0.5 * (r.xl + r.xh), 1e-3 * r.width());
  std::normal_distribution<double> ny(0.5 * (r.yl + r.yh), 1e-3 * r.height());
  for (int i = 0; i < p.num_movable; ++i) {
    pos[i] = nx(rng) - 0.5 * p.width[i];
    pos[n + i] = ny(rng) - 0.5 * p.height[i];
  }
  spread_uniformly(p, p.num_movable, rng, pos);
  return pos;
}

std::vector<double> uniform_spread(const PlacementProblem& p, std::uint64_t seed) {
  std::vector<double> pos(2 * static_cast<std::size_t>(p.num_cells()));
  std::mt19937_64 rng(seed);
  spread_uniformly(p, 0, rng, pos);
  return pos;
}

double hpwl(const PlacementProblem& p, const std::vector<double>& pos) {
  const int n = p.num_cells();
  double total = 0;
  for (int e = 0; e < p.num_nets(); ++e) {
    const int begin = p.net_pin_start[e], end = p.net_pin_start[e + 1];
    if (end <= begin) continue;
    double xl = 0, xh = 0, yl = 0, yh = 0;
    for (int q = begin; q < end; ++q) {
      const int c = p.pin_cell[q];
      const double x = (c >= 0 ? pos[c] : 0.0) + p.pin_dx[q];
      const double y = (c >= 0 ? pos[n + c] : 0.0) + p.pin_dy[q];
      xl = q == begin ? x : std::min(xl, x), xh = q == begin ? x : std::max(xh, x);
      yl = q == begin ? y : std::min(yl, y), yh = q == begin ? y : std::max(yh, y);
    }
    total += p.net_weight[e] * ((xh - xl) + (yh - yl));
  }
  return total;
}

}  // namespace global_place
