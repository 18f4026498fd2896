// generate_synthetic_design: sizes -> region and rows -> fixed macros -> pads -> movable
// positions -> nets. Each step draws from its own random stream (see random_stream.hpp).
#include "efield/synthetic_design.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/log.hpp"
#include "efield/error.hpp"
#include "synthetic/generator_steps.hpp"

namespace efield {
namespace {

using synthetic::RandomStream;

void validate(const SyntheticDesignSpec& s) {
  const auto bad = [&](const std::string& what) { throw Error("synthetic design '" + s.name + "': " + what); };
  if (s.num_movable < 1 || s.num_movable > 200'000'000) bad("num_movable must be in [1, 2e8], got " + std::to_string(s.num_movable));
  if (s.num_movable_macros < 0 || s.num_movable_macros > s.num_movable)
    bad("num_movable_macros must be in [0, num_movable], got " + std::to_string(s.num_movable_macros));
  if (s.num_fixed_macros < 0 || s.num_fixed_macros > 10'000'000) bad("num_fixed_macros must be in [0, 1e7]");
  if (s.num_io_pads < 0 || s.num_io_pads > 10'000'000) bad("num_io_pads must be in [0, 1e7]");
  if (!(s.utilization > 0 && s.utilization <= 1)) bad("utilization must be in (0, 1], got " + std::to_string(s.utilization));
  if (!(s.macro_area_fraction >= 0 && s.macro_area_fraction <= 0.6))
    bad("macro_area_fraction must be in [0, 0.6], got " + std::to_string(s.macro_area_fraction));
  if (s.num_fixed_macros == 0 && s.macro_area_fraction > 0) bad("macro_area_fraction > 0 needs num_fixed_macros > 0");
  if (!(s.aspect_ratio >= 0.05 && s.aspect_ratio <= 20)) bad("aspect_ratio must be in [0.05, 20]");
  if (!(s.row_height > 0 && std::isfinite(s.row_height))) bad("row_height must be positive");
  if (!(s.site_width > 0 && std::isfinite(s.site_width))) bad("site_width must be positive");
  if (s.sample_widths.size() != s.sample_heights.size()) bad("sample_widths and sample_heights differ in length");
  for (std::size_t i = 0; i < s.sample_widths.size(); ++i)
    if (!(s.sample_widths[i] > 0 && s.sample_heights[i] > 0 && std::isfinite(s.sample_widths[i]) &&
          std::isfinite(s.sample_heights[i])))
      bad("sample size " + std::to_string(i) + " is not positive and finite");
  if (!(s.nets_per_cell >= 0 && s.nets_per_cell <= 10)) bad("nets_per_cell must be in [0, 10]");
  if (s.num_fences < 0 || s.num_fences > 10'000) bad("num_fences must be in [0, 1e4], got " + std::to_string(s.num_fences));
  if (s.num_fences > 0 && !(s.fence_area_fraction > 0 && s.fence_area_fraction <= 0.8))
    bad("fence_area_fraction must be in (0, 0.8], got " + std::to_string(s.fence_area_fraction));
  if (s.num_fences > 0 && !(s.fenced_cell_fraction > 0 && s.fenced_cell_fraction < 1))
    bad("fenced_cell_fraction must be in (0, 1), got " + std::to_string(s.fenced_cell_fraction));
}

}  // namespace

Design generate_synthetic_design(const SyntheticDesignSpec& spec) {
  validate(spec);
  const std::int64_t n = spec.num_movable;
  const std::int64_t total_nodes = n + spec.num_fixed_macros + spec.num_io_pads;
  if (total_nodes > 0x7fffffff) throw Error("synthetic design '" + spec.name + "': too many nodes for int indices");
  Design d;
  d.name = spec.name;
  const auto reserve = static_cast<std::size_t>(total_nodes);
  d.node_names.reserve(reserve), d.width.reserve(reserve), d.height.reserve(reserve);
  d.x.reserve(reserve), d.y.reserve(reserve), d.kind.reserve(reserve);

  // 1. Movable sizes: standard cells first, then movable macros of 2..8 rows.
  RandomStream size_rng(spec.seed, 1);
  const std::int64_t num_std = n - spec.num_movable_macros;
  double movable_area = 0, widest = 0;
  int tallest_rows = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    double w, h;
    if (i < num_std) {
      if (!spec.sample_widths.empty()) {
        const auto k = static_cast<std::size_t>(size_rng.below(static_cast<std::int64_t>(spec.sample_widths.size())));
        w = spec.sample_widths[k], h = spec.sample_heights[k];
      } else {
        w = synthetic::builtin_width_sites(size_rng) * spec.site_width, h = spec.row_height;
      }
    } else {
      const int rows = 2 + static_cast<int>(size_rng.below(7));
      tallest_rows = std::max(tallest_rows, rows);
      h = rows * spec.row_height;
      w = std::max(1.0, std::round(h * size_rng.uniform(0.5, 2.0) / spec.site_width)) * spec.site_width;
    }
    d.node_names.push_back("o" + std::to_string(i));
    d.width.push_back(w);
    d.height.push_back(h);
    d.kind.push_back(NodeKind::Movable);
    movable_area += w * h;
    widest = std::max(widest, w);
  }

  // 2. Region and rows: area from the utilization, shape from the aspect ratio.
  const double area = movable_area / (spec.utilization * (1.0 - spec.macro_area_fraction));
  const double rough_h = std::sqrt(area / spec.aspect_ratio);
  const auto num_rows = static_cast<long long>(std::max<double>(tallest_rows, std::round(rough_h / spec.row_height)));
  const double height = static_cast<double>(num_rows) * spec.row_height;
  const auto num_sites = static_cast<long long>(std::max(std::ceil(widest / spec.site_width), std::round(area / height / spec.site_width)));
  const double width = static_cast<double>(num_sites) * spec.site_width;
  d.rows.resize(static_cast<std::size_t>(num_rows));
  for (long long r = 0; r < num_rows; ++r) {
    Row& row = d.rows[static_cast<std::size_t>(r)];
    row.y = static_cast<double>(r) * spec.row_height;
    row.height = spec.row_height;
    row.site_width = row.site_spacing = spec.site_width;
    row.x_min = 0;
    row.num_sites = num_sites;
    row.x_max = width;
    row.site_orient = "N";
    row.site_symmetry = "Y";
  }

  // 3. Fixed macros inside the region.
  RandomStream macro_rng(spec.seed, 2);
  synthetic::place_fixed_macros(d, spec.num_fixed_macros, spec.macro_area_fraction * width * height, width, height,
                                spec.row_height, spec.site_width, macro_rng);

  // 4. I/O pads, evenly spaced along the boundary, just inside it.
  const double perimeter = 2 * (width + height);
  const double pad = std::min({spec.site_width, width, height});
  for (int p = 0; p < spec.num_io_pads; ++p) {
    double t = (p + 0.5) * perimeter / spec.num_io_pads, px, py;
    if (t < width) px = t, py = 0;
    else if ((t -= width) < height) px = width - pad, py = t;
    else if ((t -= height) < width) px = width - t, py = height - pad;
    else t -= width, px = 0, py = height - t;
    d.node_names.push_back("o" + std::to_string(d.node_names.size()));
    d.width.push_back(pad);
    d.height.push_back(pad);
    d.x.push_back(std::clamp(px, 0.0, width - pad));
    d.y.push_back(std::clamp(py, 0.0, height - pad));
    d.kind.push_back(NodeKind::FixedNI);
  }

  // 5. Movable positions: uniform over the rows, on the site grid, inside the region.
  RandomStream place_rng(spec.seed, 3);
  d.x.insert(d.x.begin(), static_cast<std::size_t>(n), 0.0);
  d.y.insert(d.y.begin(), static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto sites_free = static_cast<std::int64_t>(std::floor((width - d.width[i]) / spec.site_width));
    const auto rows_free = static_cast<std::int64_t>(std::floor((height - d.height[i]) / spec.row_height + 1e-9));
    d.x[i] = static_cast<double>(place_rng.below(std::max<std::int64_t>(sites_free, 0) + 1)) * spec.site_width;
    d.y[i] = static_cast<double>(place_rng.below(std::max<std::int64_t>(rows_free, 0) + 1)) * spec.row_height;
  }
  // 5b. Fences and the fenced cells inside them (own streams: the rest of the design is the same
  // with and without fences, up to the fenced cells' positions).
  if (spec.num_fences > 0) {
    RandomStream fence_rng(spec.seed, 5), fenced_rng(spec.seed, 6);
    d.fences = synthetic::make_fences(spec, width, height, fence_rng);
    d.region_id = synthetic::place_fenced_cells(d, spec, num_std, d.fences, fenced_rng);
  }
  d.orientation.assign(d.node_names.size(), Orientation::N);
  d.node_weight.assign(d.node_names.size(), 1.0);

  // 6. Nets.
  if (spec.with_nets) {
    RandomStream net_rng(spec.seed, 4);
    synthetic::make_local_nets(d, n, std::llround(spec.nets_per_cell * static_cast<double>(n)), width, height, net_rng);
  }
  detail::log().info("synthetic design '{}': {} movable, {} macros, {} pads, {} fences, {} rows x {} sites, {} nets, "
                     "utilization {:.3f}", d.name, n, spec.num_fixed_macros, spec.num_io_pads, spec.num_fences, num_rows,
                     num_sites, d.num_nets(),
                     d.movable_area() / (width * height - d.fixed_area_in_region()));
  return d;
}

void sample_sizes_from(const Design& design, SyntheticDesignSpec& spec) {
  spec.sample_widths.clear();
  spec.sample_heights.clear();
  for (int i = 0; i < design.num_nodes(); ++i) {
    if (design.kind[i] != NodeKind::Movable || !(design.width[i] > 0 && design.height[i] > 0)) continue;
    spec.sample_widths.push_back(design.width[i]);
    spec.sample_heights.push_back(design.height[i]);
  }
  if (spec.sample_widths.empty()) throw Error("design '" + design.name + "' has no movable cells to sample sizes from");
}

SyntheticDesignSpec default_synthetic_spec() {
  SyntheticDesignSpec s;
  s.name = "synthetic50k";
  return s;
}

const std::vector<Ispd2005Design>& ispd2005_designs() {
  // Published movable cell count, terminal count and utilization; DREAMPlace's bin grids.
  static const std::vector<Ispd2005Design> kDesigns = {
      {"adaptec1", 210904, 543, 0.757, 512},     {"adaptec2", 254457, 566, 0.786, 1024},
      {"adaptec3", 450927, 723, 0.745, 1024},    {"adaptec4", 494716, 1329, 0.627, 1024},
      {"bigblue1", 277604, 560, 0.542, 512},     {"bigblue2", 534782, 23084, 0.618, 1024},
      {"bigblue3", 1095519, 1293, 0.857, 2048},  {"bigblue4", 2169183, 8170, 0.653, 2048}};
  return kDesigns;
}

SyntheticDesignSpec ispd2005_standin_spec(const std::string& name, std::uint64_t seed) {
  for (const auto& design : ispd2005_designs()) {
    if (name != design.name) continue;
    SyntheticDesignSpec s;
    s.name = design.name + std::string("-synthetic");
    s.num_movable = design.num_movable;
    s.num_fixed_macros = design.num_terminals;
    s.num_io_pads = 0;
    s.utilization = design.utilization;
    s.macro_area_fraction = 0.25;
    s.with_nets = false;
    s.seed = seed;
    return s;
  }
  throw Error("'" + name + "' is not an ISPD2005 design (adaptec1-4, bigblue1-4)");
}

}  // namespace efield
