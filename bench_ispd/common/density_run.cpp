#include "common/density_run.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "common/heatmap_png.hpp"
#include "efield/error.hpp"
#include "efield/placement_helpers.hpp"
#include "efield/synthetic_design.hpp"
#include "support/device_array.hpp"

namespace efield::bench {
namespace {

using test::DeviceArray;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <typename T>
std::vector<T> converted(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Evaluates and times with T positions, on the device (device pointers) or the host.
template <typename T>
void measure(ElectrostaticSystem& es, const std::vector<double>& x64, const std::vector<double>& y64,
             const RunOptions& o, RunResult& r, Progress& progress) {
  const std::size_t n = x64.size();
  std::vector<T> x = converted<T>(x64), y = converted<T>(y64), gx(n), gy(n);
  const bool cuda = es.backend() == Backend::Cuda;
  std::optional<DeviceArray<T>> dx, dy, dgx, dgy;  // CUDA only: a CPU run touches no device
  if (cuda) {
    dx.emplace(x);
    dy.emplace(y);
    dgx.emplace(n);
    dgy.emplace(n);
  }
  const T* px = cuda ? dx->get() : x.data();
  const T* py = cuda ? dy->get() : y.data();
  T* pgx = cuda ? dgx->get() : gx.data();
  T* pgy = cuda ? dgy->get() : gy.data();

  r.result = es.evaluate(px, py, pgx, pgy);
  int calls = 0;
  const int total = o.warmup + o.iterations;
  const auto fn = [&] {
    es.evaluate(px, py, pgx, pgy);
    progress.tick(++calls, total);
  };
  const TimingOptions timing{o.warmup, o.iterations};
  r.evaluate = cuda ? time_cuda(fn, es.options().stream, timing) : time_host(fn, timing);
  if (o.profile_stages) r.stages = es.profile_stages(px, py, pgx, pgy, o.iterations);
  // The reported result is that of the same positions again: evaluate is deterministic.
  r.result = es.evaluate(px, py, pgx, pgy);
}

}  // namespace

int ispd2005_bins(const std::string& label) {
  for (const auto& d : ispd2005_designs()) {
    const std::string name = d.name;
    if (label == name || label == name + "-synthetic") return d.bins;
  }
  return 0;
}

const char* to_string(Precision p) noexcept { return p == Precision::Float ? "f32" : "f64"; }

RunResult run_density(const BenchDesign& bd, const RunOptions& o, Progress& progress, const std::string& step) {
  if (o.iterations < 1) throw Error("--iters must be at least 1");
  RunResult r;
  r.label = bd.label;
  r.source = bd.source;
  r.synthetic = bd.synthetic;
  r.obtain_ms = bd.obtain_ms;
  r.target_density = o.target_density;
  r.precision = to_string(o.precision);
  r.placement = to_string(o.placement);
  r.terminals = bd.design.num_terminals();

  progress.step(step, "setting up");
  const auto t0 = std::chrono::steady_clock::now();
  const DensityProblem problem = placement_inputs(bd.design);
  if (problem.movable.widths.empty()) throw Error("design '" + bd.label + "' has no movable cells");
  const Region& region = problem.region;
  const FillerSpec fillers = make_fillers(problem.movable, problem.fixed, region.xl, region.yl, region.xh, region.yh,
                                          o.target_density, problem.row_height);
  const CellSizes filler_sizes = fillers.sizes();

  ElectrostaticOptions eo;
  eo.xl = region.xl, eo.yl = region.yl, eo.xh = region.xh, eo.yh = region.yh;
  eo.target_density = o.target_density;
  eo.precision = o.precision;
  eo.backend = o.backend;
  eo.cpu_threads = o.cpu_threads;
  if (o.bins_x > 0) {
    eo.num_bins_x = o.bins_x, eo.num_bins_y = o.bins_y;
  } else if (const int b = ispd2005_bins(bd.label); b > 0) {
    eo.num_bins_x = eo.num_bins_y = b;
  } else {
    const BinGrid g = default_bin_grid(problem.movable, region.xl, region.yl, region.xh, region.yh, o.target_density);
    eo.num_bins_x = g.num_bins_x, eo.num_bins_y = g.num_bins_y;
  }
  std::vector<double> x, y;
  initial_positions(problem, filler_sizes, o.placement, o.seed, x, y);
  ElectrostaticSystem es(eo, problem.movable, filler_sizes, problem.fixed);
  r.setup_ms = ms_since(t0);
  r.movable = es.num_movable();
  r.fixed = es.num_fixed();
  r.fillers = es.num_fillers();
  r.bins_x = eo.num_bins_x, r.bins_y = eo.num_bins_y;
  r.backend = to_string(es.backend());
  progress.done(std::to_string(r.movable) + " cells, " + std::to_string(r.fillers) + " fillers, " +
                std::to_string(r.bins_x) + "x" + std::to_string(r.bins_y) + " bins, " + r.backend + " " + r.precision);

  progress.step(step, "timing " + std::to_string(o.iterations) + " evaluates");
  if (o.precision == Precision::Float) measure<float>(es, x, y, o, r, progress);
  else measure<double>(es, x, y, o, r, progress);
  char note[96];
  std::snprintf(note, sizeof note, "median %.3f ms", r.evaluate.median_ms);
  progress.done(note);

  if (!o.png_prefix.empty()) {
    progress.step(step, "writing heat maps");
    const std::string base = o.png_prefix + "_" + r.label;
    const std::vector<double> ex = es.field_x_map(), ey = es.field_y_map();
    std::vector<double> magnitude(ex.size());
    for (std::size_t i = 0; i < ex.size(); ++i) magnitude[i] = std::hypot(ex[i], ey[i]);
    const std::pair<const char*, std::vector<double>> maps[] = {
        {"density", es.density_map()}, {"potential", es.potential_map()}, {"field", std::move(magnitude)}};
    for (const auto& [name, map] : maps) {
      const std::string path = base + "_" + name + ".png";
      write_heatmap_png(path, map, r.bins_x, r.bins_y);
      r.png_files.push_back(path);
    }
    progress.done(base + "_{density,potential,field}.png");
  }
  return r;
}

}  // namespace efield::bench
