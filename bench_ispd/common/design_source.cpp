#include "common/design_source.hpp"

#include <chrono>
#include <filesystem>

namespace efield::bench {
namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

BenchDesign load_design(const std::string& aux_path) {
  BenchDesign b;
  const auto t0 = std::chrono::steady_clock::now();
  BookshelfLoadOptions options;
  options.allow_missing_nets = true;
  b.design = load_bookshelf(aux_path, options);
  b.obtain_ms = ms_since(t0);
  b.label = b.design.name;
  b.source = aux_path;
  return b;
}

BenchDesign generate_design(const SyntheticDesignSpec& spec) {
  BenchDesign b;
  const auto t0 = std::chrono::steady_clock::now();
  b.design = generate_synthetic_design(spec);
  b.obtain_ms = ms_since(t0);
  b.label = spec.name;
  b.synthetic = true;
  b.source = "generated (seed " + std::to_string(spec.seed) + ")";
  return b;
}

std::string find_ispd2005_aux(const std::string& dir, const std::string& name) {
  for (const std::string& path : {dir + "/" + name + "/" + name + ".aux", dir + "/" + name + ".aux"})
    if (std::filesystem::exists(path)) return path;
  return {};
}

DensityProblem density_problem(const Design& d) {
  DensityProblem p;
  p.region = d.region();
  p.row_height = d.rows.empty() ? 0.0 : d.rows.front().height;
  for (int i = 0; i < d.num_nodes(); ++i) {
    const double w = d.footprint_width(i), h = d.footprint_height(i);
    if (d.kind[i] == NodeKind::Movable) {
      p.movable.widths.push_back(w);
      p.movable.heights.push_back(h);
      p.movable_x.push_back(d.x[i]);
      p.movable_y.push_back(d.y[i]);
    } else if (d.kind[i] == NodeKind::Fixed && w > 0 && h > 0) {
      p.fixed.widths.push_back(w);
      p.fixed.heights.push_back(h);
      p.fixed.x.push_back(d.x[i]);
      p.fixed.y.push_back(d.y[i]);
    }
  }
  return p;
}

}  // namespace efield::bench
