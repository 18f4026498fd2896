// bench_cpu_density: where the CPU backend's evaluate goes, per design, in one run:
//   (a) a plain serial scatter and gather (one thread, natural layout, the run's precision) over
//       the same stretched footprints as efield's rasterize and gather: the loop a placer would
//       write by hand, the floor efield's stages are held to;
//   (b) efield's CPU stages (ElectrostaticSystem::profile_stages) at each thread count;
//   (c) FFTW's own 2D r2r transforms (row-column inside FFTW), at the same thread counts: the
//       dct2 of the forward step and the two mixed inverses (sine x cosine) of the field step.
// Designs: the embedded default (bench_ispd's, movable cells around the centre) and each --aux
// (movable cells where the .pl file puts them; DREAMPlace's grid for ISPD2005 names). Times are
// the best of --reps runs (the minimum: the machine may be shared). Also checks that the
// gradients are bitwise the same at every thread count. Writes a markdown table.
// With --pin, each thread count t runs on t CPUs of distinct physical cores (the first CPU of each
// core, in CPU order; hyperthread siblings only past the number of cores), as `taskset` would.
//   bench_cpu_density [--aux FILE]... [--threads 1,2,16] [--reps 20] [--precision f32|f64]
//                     [--pin] [--no-default] [--markdown FILE]
#include <CLI/CLI.hpp>
#include <fftw3.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/density_run.hpp"
#include "common/design_source.hpp"
#include "common/initial_placement.hpp"
#include "common/timing.hpp"
#include "cpu/fftw.hpp"
#include "efield/efield.hpp"
#include "electrostatics/cell_layout.hpp"

namespace {

using namespace efield;
using namespace efield::bench;

double best_ms(const std::function<void()>& fn, int reps) {
  fn();  // warm-up
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// The CPUs this process may run on, the first CPU of each physical core first (CPU order), then
// the other hyperthreads; and how many physical cores they span.
struct CpuOrder {
  std::vector<int> cpus;
  int cores = 0;
};
CpuOrder cpu_order() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) throw Error("--pin: sched_getaffinity failed");
  CpuOrder order;
  std::vector<int> siblings;
  std::set<std::pair<int, int>> seen;  // (package, core)
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const std::string topo = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    int package = 0, core = cpu;
    std::ifstream(topo + "physical_package_id") >> package;
    std::ifstream(topo + "core_id") >> core;
    if (seen.insert({package, core}).second) order.cpus.push_back(cpu);
    else siblings.push_back(cpu);
  }
  order.cores = static_cast<int>(order.cpus.size());
  order.cpus.insert(order.cpus.end(), siblings.begin(), siblings.end());
  return order;
}
// Restricts this thread (and the threads it starts afterwards) to the first `count` CPUs of order.
std::string pin_to(const CpuOrder& order, int count) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string list;
  for (int k = 0; k < count && k < static_cast<int>(order.cpus.size()); ++k) {
    CPU_SET(order.cpus[k], &set);
    list += (list.empty() ? "" : ",") + std::to_string(order.cpus[k]);
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0) throw Error("--pin: sched_setaffinity failed");
  return list;
}

// A design made ready for the density system: sizes, options, positions.
struct Setup {
  std::string label;
  std::string placement;
  ElectrostaticOptions options;
  CellSizes movable, fillers;
  FixedCells fixed;
  std::vector<double> x, y;  // movable then fillers
};

Setup make_setup(const BenchDesign& bd, InitialPlacement placement) {
  Setup s;
  s.label = bd.label;
  s.placement = to_string(placement);
  const DensityProblem problem = placement_inputs(bd.design);
  if (problem.movable.widths.empty()) throw Error("design '" + bd.label + "' has no movable cells");
  const Region& r = problem.region;
  const FillerSpec fillers = make_fillers(problem.movable, problem.fixed, r.xl, r.yl, r.xh, r.yh, 1.0, problem.row_height);
  s.movable = problem.movable;
  s.fillers = fillers.sizes();
  s.fixed = problem.fixed;
  ElectrostaticOptions& o = s.options;
  o.xl = r.xl, o.yl = r.yl, o.xh = r.xh, o.yh = r.yh;
  o.target_density = 1.0;
  o.backend = Backend::Cpu;
  if (const int b = ispd2005_bins(bd.label); b > 0) {
    o.num_bins_x = o.num_bins_y = b;
  } else {
    const BinGrid g = default_bin_grid(problem.movable, r.xl, r.yl, r.xh, r.yh, 1.0);
    o.num_bins_x = g.num_bins_x, o.num_bins_y = g.num_bins_y;
  }
  initial_positions(problem, s.fillers, placement, 1, s.x, s.y);
  return s;
}

struct Row {
  int threads = 0;
  std::string cpus;           // --pin: the CPUs it ran on
  StageTimes stages;          // best of the repetitions, stage by stage
  double call_ms = 0;         // ElectrostaticSystem::evaluate, the whole call (input checks included)
  double fftw_dct2_ms = 0;    // FFTW r2r REDFT10 x REDFT10
  double fftw_inverse_ms = 0; // FFTW r2r (RODFT01, REDFT01) + (REDFT01, RODFT01)
};

struct DesignResult {
  std::string label, placement;
  std::int64_t cells = 0;
  int M = 0, N = 0;
  double plain_scatter_ms = 0, plain_gather_ms = 0;
  double plain_vs_efield_density = 0;  // max |plain - efield| movable+filler density, in bin areas
  bool bitwise_same = true;
  std::vector<Row> rows;
};

template <typename T>
detail::CellGeometry<T> geometry_of(const ElectrostaticSystem& es, const Setup& s) {
  detail::CellGeometry<T> g;
  g.M = s.options.num_bins_x;
  g.N = s.options.num_bins_y;
  g.bx = static_cast<T>(es.bin_width());
  g.by = static_cast<T>(es.bin_height());
  g.wx = detail::split_bin_width(g.bx, g.M);
  g.wy = detail::split_bin_width(g.by, g.N);
  g.inv_bx = static_cast<T>(1.0 / es.bin_width());
  g.inv_by = static_cast<T>(1.0 / es.bin_height());
  g.min_w = static_cast<T>(std::sqrt(2.0) * es.bin_width());
  g.min_h = static_cast<T>(std::sqrt(2.0) * es.bin_height());
  g.xl = static_cast<T>(s.options.xl);
  g.yl = static_cast<T>(s.options.yl);
  g.num_movable = static_cast<std::int64_t>(s.movable.widths.size());
  g.num_cells = g.num_movable + static_cast<std::int64_t>(s.fillers.widths.size());
  g.filler_offset = g.num_movable;
  return g;
}

// (a) The plain loops: natural layout [M][N], charge in area units, one thread, cells in index order.
template <typename T>
void plain_scatter(const detail::CellGeometry<T>& g, const T* x, const T* y, const T* w, const T* h, T* map) {
  std::fill(map, map + static_cast<std::size_t>(g.M) * g.N, T(0));
  for (std::int64_t c = 0; c < g.num_cells; ++c) {
    const detail::Footprint<T> f = detail::cell_footprint(g, c, x[c], y[c], w[c], h[c]);
    for (int m = f.m0; m <= f.m1; ++m) {
      const T cx = f.charge * detail::overlap_x(f, g, m);
      T* row = map + static_cast<std::size_t>(m) * g.N;
      for (int n = f.n0; n <= f.n1; ++n) row[n] += cx * detail::overlap_y(f, g, n);
    }
  }
}
template <typename T>
void plain_gather(const detail::CellGeometry<T>& g, const T* x, const T* y, const T* w, const T* h, const T* ex,
                  const T* ey, T* gx, T* gy) {
  for (std::int64_t c = 0; c < g.num_cells; ++c) {
    const detail::Footprint<T> f = detail::cell_footprint(g, c, x[c], y[c], w[c], h[c]);
    T sx = 0, sy = 0;
    for (int m = f.m0; m <= f.m1; ++m) {
      const T cx = f.charge * detail::overlap_x(f, g, m);
      const std::size_t row = static_cast<std::size_t>(m) * g.N;
      for (int n = f.n0; n <= f.n1; ++n) {
        const T wgt = cx * detail::overlap_y(f, g, n);
        sx += wgt * ex[row + n];
        sy += wgt * ey[row + n];
      }
    }
    gx[c] = -sx;
    gy[c] = -sy;
  }
}

// (c) FFTW's r2r transforms on an M x N array.
template <typename T>
struct R2r;
template <>
struct R2r<float> {
  using Plan = fftwf_plan;
  static Plan plan(int M, int N, float* in, float* out, fftwf_r2r_kind a, fftwf_r2r_kind b) {
    return fftwf_plan_r2r_2d(M, N, in, out, a, b, FFTW_ESTIMATE);
  }
  static void threads(int t) { fftwf_plan_with_nthreads(t); }
  static void execute(Plan p) { fftwf_execute(p); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
};
template <>
struct R2r<double> {
  using Plan = fftw_plan;
  static Plan plan(int M, int N, double* in, double* out, fftw_r2r_kind a, fftw_r2r_kind b) {
    return fftw_plan_r2r_2d(M, N, in, out, a, b, FFTW_ESTIMATE);
  }
  static void threads(int t) { fftw_plan_with_nthreads(t); }
  static void execute(Plan p) { fftw_execute(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};

template <typename T>
void time_fftw(int M, int N, int threads, int reps, Row& row) {
  using A = R2r<T>;
  const std::size_t n = static_cast<std::size_t>(M) * N;
  detail::FftwBuffer<T, T> in(n), out(n), out2(n);
  for (std::size_t i = 0; i < n; ++i) in.get()[i] = static_cast<T>((i * 7919) % 101) / T(101);
  typename A::Plan dct2, inv_x, inv_y;
  {
    auto lock = detail::fftw_planner_lock();
    A::threads(threads);
    dct2 = A::plan(M, N, in.get(), out.get(), FFTW_REDFT10, FFTW_REDFT10);
    inv_x = A::plan(M, N, in.get(), out.get(), FFTW_RODFT01, FFTW_REDFT01);
    inv_y = A::plan(M, N, in.get(), out2.get(), FFTW_REDFT01, FFTW_RODFT01);
  }
  if (!dct2 || !inv_x || !inv_y) throw Error("FFTW could not make an r2r plan");
  row.fftw_dct2_ms = best_ms([&] { A::execute(dct2); }, reps);
  row.fftw_inverse_ms = best_ms([&] { A::execute(inv_x), A::execute(inv_y); }, reps);
  auto lock = detail::fftw_planner_lock();
  A::destroy(dct2), A::destroy(inv_x), A::destroy(inv_y);
}

StageTimes best_stages(const std::function<StageTimes()>& profile_once, int reps) {
  StageTimes best;
  const double inf = std::numeric_limits<double>::infinity();
  best.rasterize_ms = best.forward_fft_ms = best.spectral_ms = best.inverse_fft_ms = best.gather_ms = best.total_ms = inf;
  for (int r = 0; r < reps; ++r) {
    const StageTimes s = profile_once();
    best.rasterize_ms = std::min(best.rasterize_ms, s.rasterize_ms);
    best.forward_fft_ms = std::min(best.forward_fft_ms, s.forward_fft_ms);
    best.spectral_ms = std::min(best.spectral_ms, s.spectral_ms);
    best.inverse_fft_ms = std::min(best.inverse_fft_ms, s.inverse_fft_ms);
    best.gather_ms = std::min(best.gather_ms, s.gather_ms);
    best.total_ms = std::min(best.total_ms, s.total_ms);
  }
  best.repetitions = reps;
  return best;
}

template <typename T>
DesignResult run_design(const Setup& s, const std::vector<int>& thread_counts, int reps, const CpuOrder* pin) {
  DesignResult d;
  d.label = s.label;
  d.placement = s.placement;
  d.M = s.options.num_bins_x;
  d.N = s.options.num_bins_y;
  const std::vector<T> x(s.x.begin(), s.x.end()), y(s.y.begin(), s.y.end());
  const std::size_t n = x.size();
  d.cells = static_cast<std::int64_t>(n);
  std::vector<T> reference_gx, reference_gy;
  for (const int t : thread_counts) {
    const std::string cpus = pin ? pin_to(*pin, t) : "";
    ElectrostaticOptions o = s.options;
    o.precision = sizeof(T) == 4 ? Precision::Float : Precision::Double;
    o.cpu_threads = t;
    ElectrostaticSystem es(o, s.movable, s.fillers, s.fixed);
    std::vector<T> gx(n), gy(n);
    Row row;
    row.threads = t;
    row.cpus = cpus;
    row.call_ms = std::numeric_limits<double>::infinity();
    const auto profile_once = [&] {
      row.call_ms = std::min(row.call_ms, best_ms([&] { es.evaluate(x.data(), y.data(), gx.data(), gy.data()); }, 1));
      return es.profile_stages(x.data(), y.data(), gx.data(), gy.data(), 1);
    };
    if (!reference_gx.empty()) {
      row.stages = best_stages(profile_once, reps);
    } else {
      // (a), at the first thread count: the plain loops over the same cells, timed in turn with
      // efield's stages (the same load on a shared machine), checked against this system's maps.
      const detail::CellGeometry<T> g = geometry_of<T>(es, s);
      std::vector<T> w(n), h(n);
      for (std::size_t c = 0; c < n; ++c) {
        const bool mov = c < s.movable.widths.size();
        const std::size_t k = mov ? c : c - s.movable.widths.size();
        w[c] = static_cast<T>(mov ? s.movable.widths[k] : s.fillers.widths[k]);
        h[c] = static_cast<T>(mov ? s.movable.heights[k] : s.fillers.heights[k]);
      }
      std::vector<T> map(static_cast<std::size_t>(d.M) * d.N), pgx(n), pgy(n);
      es.evaluate(x.data(), y.data(), gx.data(), gy.data());
      const std::vector<double> ex64 = es.field_x_map(), ey64 = es.field_y_map();
      const std::vector<T> ex(ex64.begin(), ex64.end()), ey(ey64.begin(), ey64.end());
      const auto scatter = [&] { plain_scatter(g, x.data(), y.data(), w.data(), h.data(), map.data()); };
      const auto gather = [&] {
        plain_gather(g, x.data(), y.data(), w.data(), h.data(), ex.data(), ey.data(), pgx.data(), pgy.data());
      };
      d.plain_scatter_ms = d.plain_gather_ms = std::numeric_limits<double>::infinity();
      row.stages = best_stages([&] {
        d.plain_scatter_ms = std::min(d.plain_scatter_ms, best_ms(scatter, 1));
        d.plain_gather_ms = std::min(d.plain_gather_ms, best_ms(gather, 1));
        return profile_once();
      }, reps);
      const std::vector<double> rho = es.density_map(), fixed = es.fixed_map();
      const double area = es.bin_width() * es.bin_height();
      for (std::size_t k = 0; k < map.size(); ++k)
        d.plain_vs_efield_density =
            std::max(d.plain_vs_efield_density, std::fabs(static_cast<double>(map[k]) / area - (rho[k] - fixed[k] / area)));
    }
    es.evaluate(x.data(), y.data(), gx.data(), gy.data());
    if (reference_gx.empty()) {
      reference_gx = gx, reference_gy = gy;
    } else if (std::memcmp(gx.data(), reference_gx.data(), n * sizeof(T)) != 0 ||
               std::memcmp(gy.data(), reference_gy.data(), n * sizeof(T)) != 0) {
      d.bitwise_same = false;
    }
    time_fftw<T>(d.M, d.N, t, reps, row);
    d.rows.push_back(row);
    std::fprintf(stderr, "  %s, %d thread(s): evaluate %.3f ms (rasterize %.3f, gather %.3f)\n", d.label.c_str(), t,
                 row.stages.total_ms, row.stages.rasterize_ms, row.stages.gather_ms);
  }
  return d;
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v < 10 ? "%.3f" : "%.2f", v);
  return b;
}
std::string with_speedup(double v, double one) {
  char b[32];
  std::snprintf(b, sizeof b, " (%.2fx)", one / v);
  return fmt(v) + b;
}

std::string markdown(const std::vector<DesignResult>& results, const std::string& precision, int reps,
                     const CpuOrder* pin) {
  std::ostringstream md;
  md << "Machine: " << cpu_description() << ". Commit " << source_commit() << ", " << today() << ". Precision " << precision
     << ". Best of " << reps << " runs, in ms (speed-up over one thread in parentheses).";
  if (pin) {
    md << " Pinned (--pin): " << pin->cores << " physical cores among " << pin->cpus.size() << " CPUs;";
    for (const Row& r : results.front().rows) md << " " << r.threads << " thread(s) on CPU " << r.cpus << ";";
  }
  md << "\n\n";
  md << "| design | cells | bins | threads | plain scatter | rasterize | plain gather | gather | forward FFT | "
        "FFTW dct2 | spectral | inverse FFT | FFTW inverse pair | stages | evaluate() |\n";
  md << "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const DesignResult& d : results) {
    const StageTimes& one = d.rows.front().stages;
    for (const Row& r : d.rows) {
      const bool first = &r == &d.rows.front();
      md << "| " << (first ? d.label + " (" + d.placement + ")" : "") << " | " << (first ? std::to_string(d.cells) : "")
         << " | " << (first ? std::to_string(d.M) + "x" + std::to_string(d.N) : "") << " | " << r.threads << " | "
         << (first ? fmt(d.plain_scatter_ms) : "") << " | " << with_speedup(r.stages.rasterize_ms, one.rasterize_ms)
         << " | " << (first ? fmt(d.plain_gather_ms) : "") << " | " << with_speedup(r.stages.gather_ms, one.gather_ms)
         << " | " << fmt(r.stages.forward_fft_ms) << " | " << fmt(r.fftw_dct2_ms) << " | " << fmt(r.stages.spectral_ms)
         << " | " << fmt(r.stages.inverse_fft_ms) << " | " << fmt(r.fftw_inverse_ms) << " | "
         << with_speedup(r.stages.total_ms, one.total_ms) << " | " << with_speedup(r.call_ms, d.rows.front().call_ms)
         << " |\n";
    }
  }
  md << "\n";
  for (const DesignResult& d : results)
    md << "- " << d.label << ": gradients bitwise the same at every thread count: " << (d.bitwise_same ? "yes" : "NO")
       << "; plain scatter vs efield's density: max difference " << d.plain_vs_efield_density << " bin areas.\n";
  md << "\nrasterize includes the density pass (rho, overflow, max density); plain scatter is the map alone. "
        "stages: one evaluate's stages back to back (profile_stages); evaluate(): the whole call, with its input "
        "checks (pointer kinds, NaN/Inf positions). "
        "FFTW's r2r columns run FFTW's own 2D DCT/DST plans (FFTW_ESTIMATE, as efield's plans) at the same "
        "thread count; inverse pair = the sine-cosine and cosine-sine inverses of Ex and Ey.\n";
  return md.str();
}

int run(int argc, char** argv) {
  CLI::App app{"bench_cpu_density: efield's CPU rasterize/gather against plain loops and FFTW row-column"};
  std::vector<std::string> aux;
  std::vector<int> threads{1, 2};
  int reps = 20;
  std::string precision = "f32", markdown_path;
  bool no_default = false, pin = false;
  app.add_option("--aux", aux, "Bookshelf .aux of a design to add (skipped with a message when absent)");
  app.add_option("--threads", threads, "thread counts, the first is the reference for speed-ups")->delimiter(',');
  app.add_option("--reps", reps, "timed runs per measurement (the best is reported)")->check(CLI::PositiveNumber);
  app.add_option("--precision", precision, "f32 or f64")->check(CLI::IsMember({"f32", "f64"}));
  app.add_flag("--pin", pin, "run each thread count on that many CPUs of distinct physical cores");
  app.add_flag("--no-default", no_default, "leave out the embedded default design");
  app.add_option("--markdown", markdown_path, "write the table to this file (default: stdout)");
  CLI11_PARSE(app, argc, argv);
  for (const int t : threads)
    if (t < 1) throw Error("--threads: every count must be >= 1");

  const CpuOrder order = pin ? cpu_order() : CpuOrder{};
  const CpuOrder* pin_order = pin ? &order : nullptr;
  if (pin)
    for (const int t : threads)
      if (t > static_cast<int>(order.cpus.size())) throw Error("--pin: " + std::to_string(t) + " threads, " +
                                                                std::to_string(order.cpus.size()) + " CPUs");
  std::vector<DesignResult> results;
  const auto measure = [&](const BenchDesign& bd, InitialPlacement placement) {
    std::fprintf(stderr, "%s: setting up\n", bd.label.c_str());
    const Setup s = make_setup(bd, placement);
    results.push_back(precision == "f32" ? run_design<float>(s, threads, reps, pin_order)
                                          : run_design<double>(s, threads, reps, pin_order));
  };
  if (!no_default) measure(generate_design(default_synthetic_spec()), InitialPlacement::Center);
  for (const std::string& path : aux) {
    if (!std::filesystem::exists(path)) {
      std::fprintf(stderr, "%s: not found, skipped\n", path.c_str());
      continue;
    }
    measure(load_design(path), InitialPlacement::File);
  }
  if (results.empty()) throw Error("no design to measure");
  if (pin) pin_to(order, static_cast<int>(order.cpus.size()));
  const std::string md = markdown(results, precision, reps, pin_order);
  if (markdown_path.empty()) {
    std::fputs(md.c_str(), stdout);
  } else {
    std::ofstream out(markdown_path);
    out << md;
    if (!out) throw Error(markdown_path + ": cannot write");
    std::fprintf(stderr, "wrote %s\n", markdown_path.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_density: %s\n", e.what());
    return 1;
  }
}
