// bench_electrostatics3d: ElectrostaticSystem3D::evaluate (docs/math.md section 4) at placement
// scale, against the 2D evaluate with the same cells, and the 3D transform against the FFT it is
// built on. Three tables:
//   1. adaptec1 scale: the 2D stand-in of bench_electrostatics (210,904 movable cells, fillers, 63
//      fixed macros, 512 x 512 bins) evaluated by ElectrostaticSystem, and the same cells in 3D
//      with 512 x 512 x L bins, L = 2, 4, 8: a region L deep (bz = 1), movable cells and fillers
//      one bin deep at uniformly random z, fixed macros through all L bins. Each row with its
//      stage split (profile_stages: the stages one by one, no graph).
//   2. General grids: 1M and 4M random cuboids (sides 0.5 to 2 units) in a 256-unit cube with
//      128^3 and 256^3 bins.
//   3. Plan3D Dct / Idct at 256^3 against cuFFT's 3D R2C / C2R of the same size (CPU: FFTW's
//      3D r2c / c2r with as many threads).
// On CUDA each 3D row runs once per --paths entry (the layout hook, src/electrostatics3d/
// pipeline3d_layout.hpp): the default (every option on: the tile rasterize, the batched field
// inverse, the spectral pass and the forward DCT folded in), plain (none: a 64-bit atomic per bin,
// three Plan3D inverses), tiles, batched, both, and fused (both with the spectral pass folded into
// the inverse); the design column names the path (the default's rows carry no tag). float, deterministic, device pointers on CUDA. GPU times: CUDA events around each call after
// warm-up, median of --reps runs; CPU: steady_clock, median. --backend cpu runs smaller sizes
// (adaptec1's cells / 4 at 256 x 256 x L, 250k cells at 64^3 and 128^3, transforms at 128^3) so
// that it finishes on a small machine. See --help.
#include <fftw3.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/cli.hpp"
#include "common/ispd_stand_ins.hpp"
#include "common/timing.hpp"
#include "efield/efield.hpp"
#include "electrostatics3d/pipeline3d_layout.hpp"
#include "support/device_array.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#include <cufft.h>
#endif

namespace {

namespace bench = efield::bench;
using efield::Backend;

#if EFIELD_HAS_CUDA
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw efield::Error(std::string("bench_electrostatics3d: ") + what + ": " + cudaGetErrorString(e));
}
void check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw efield::Error(std::string("bench_electrostatics3d: ") + what + ": cuFFT error " + std::to_string(r));
}
#endif

// Where the work runs and how it is timed.
struct Runner {
  Backend backend = Backend::Cpu;
  efield::Stream stream = nullptr;
  int cpu_threads = 0;
  bench::TimingOptions timing;

  bool cuda() const { return backend == Backend::Cuda; }
  bench::TimingResult time(const std::function<void()>& fn) const {
    return cuda() ? bench::time_cuda(fn, stream, timing) : bench::time_host(fn, timing);
  }
};

// Float arrays on the runner's side: host vectors, or device copies of them on CUDA.
class Arrays {
 public:
  Arrays(const Runner& run, std::vector<std::vector<float>> host) : host_(std::move(host)) {
    if (run.cuda())
      for (const auto& h : host_) device_.push_back(std::make_unique<efield::test::DeviceArray<float>>(h));
  }
  float* operator[](size_t i) { return device_.empty() ? host_[i].data() : device_[i]->get(); }

 private:
  std::vector<std::vector<float>> host_;
  std::vector<std::unique_ptr<efield::test::DeviceArray<float>>> device_;
};

struct Design3D {
  std::string name;
  efield::ElectrostaticOptions3D options;
  efield::CellSizes3D movable, fillers;
  efield::FixedCells3D fixed;
  std::vector<float> x, y, z;  // lower corners, movable then fillers
};

// The 2D stand-in's cells in a region L bins deep (bz = 1): cells one bin deep at random z,
// fixed macros through all L bins.
Design3D stacked(const bench::StandInDesign& d, int L, const Runner& run) {
  Design3D s;
  s.name = d.name;
  efield::ElectrostaticOptions3D& o = s.options;
  o.xh = d.W;
  o.yh = d.H;
  o.zh = L;
  o.num_bins_x = o.num_bins_y = d.bins;
  o.num_bins_z = L;
  o.backend = run.backend;
  o.stream = run.stream;
  o.cpu_threads = run.cpu_threads;
  s.movable = {d.movable.widths, d.movable.heights, std::vector<double>(d.movable.widths.size(), 1.0)};
  s.fillers = {d.fillers.widths, d.fillers.heights, std::vector<double>(d.fillers.widths.size(), 1.0)};
  const size_t nf = d.fixed.widths.size();
  s.fixed = {d.fixed.widths, d.fixed.heights, std::vector<double>(nf, L), d.fixed.x, d.fixed.y,
             std::vector<double>(nf, 0.0)};
  s.x = d.x;
  s.y = d.y;
  std::mt19937_64 gen(7 + L);
  std::uniform_real_distribution<double> z(0.0, L - 1.0);
  s.z.resize(d.x.size());
  for (float& v : s.z) v = static_cast<float>(z(gen));
  return s;
}

// `cells` random cuboids with sides in [0.5, 2) in a cube 256 units wide, bins^3 bins.
Design3D cube(long long cells, int bins, const Runner& run) {
  const double side = 256.0;
  Design3D s;
  s.name = std::to_string(cells / 1000000) + "M cells";
  if (cells < 1000000) s.name = std::to_string(cells / 1000) + "k cells";
  efield::ElectrostaticOptions3D& o = s.options;
  o.xh = o.yh = o.zh = side;
  o.num_bins_x = o.num_bins_y = o.num_bins_z = bins;
  o.backend = run.backend;
  o.stream = run.stream;
  o.cpu_threads = run.cpu_threads;
  std::mt19937_64 gen(11 + bins);
  std::uniform_real_distribution<double> size(0.5, 2.0), pos(0.0, side - 2.0);
  for (std::vector<double>* v : {&s.movable.widths, &s.movable.heights, &s.movable.depths}) {
    v->resize(cells);
    for (double& e : *v) e = size(gen);
  }
  for (std::vector<float>* v : {&s.x, &s.y, &s.z}) {
    v->resize(cells);
    for (float& e : *v) e = static_cast<float>(pos(gen));
  }
  return s;
}

struct Row {
  std::string design;
  long long cells = 0;
  int M = 0, N = 0, L = 0;  // L = 0: the 2D system
  bench::TimingResult evaluate;
  efield::StageTimes stages;
  efield::EvaluateResult result;
};

template <typename Plan>
double time_plan(Plan& plan, const Runner& run, size_t n) {
  std::vector<float> h(n, 0.5f);
  Arrays a(run, {h, h});
  if (run.cuda()) return run.time([&] { plan.execute(a[0], a[1], run.stream); }).median_ms;
  return run.time([&] { plan.execute(a[0], a[1]); }).median_ms;
}

double plan3d_ms(efield::Transform3D kind, int M, int N, int L, const Runner& run) {
  efield::PlanOptions po;
  po.backend = run.backend;
  po.cpu_threads = run.cpu_threads;
  efield::Plan3D<float> plan(kind, M, N, L, po);
  return time_plan(plan, run, static_cast<size_t>(M) * N * L);
}

// A stage choice of the CUDA 3D pipeline, by its --paths name.
struct Path3D {
  std::string name;  // "default" leaves the design's name as it is
  efield::detail::Es3DPipelineLayout layout;
};

std::vector<Path3D> parse_paths(const std::string& list) {
  std::vector<Path3D> out;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t end = std::min(list.find(',', at), list.size());
    const std::string name = list.substr(at, end - at);
    Path3D p{name, {}};  // the default layout
    if (name != "default") {
      const bool fused = name == "fused", both = name == "both" || fused;
      p.layout.tile_rasterize = name == "tiles" || both;
      p.layout.batched_field_inverse = name == "batched" || both;
      p.layout.fused_spectral_inverse = fused;
      p.layout.fused_forward = false;
      if (name != "plain" && name != "tiles" && name != "batched" && !both)
        throw efield::Error("bench_electrostatics3d: --paths: unknown path '" + name +
                            "' (default, plain, tiles, batched, both, fused)");
    }
    out.push_back(p);
    at = end + 1;
  }
  return out;
}

Row time_3d(const Design3D& d, const Runner& run, const Path3D& path = {"default", {}}) {
  const efield::detail::Es3DPipelineLayout before = efield::detail::set_es3d_pipeline_layout(path.layout);
  struct Restore {
    efield::detail::Es3DPipelineLayout layout;
    ~Restore() { efield::detail::set_es3d_pipeline_layout(layout); }
  } restore{before};
  Row r;
  r.design = path.name == "default" ? d.name : d.name + " [" + path.name + "]";
  r.cells = static_cast<long long>(d.x.size());
  r.M = d.options.num_bins_x;
  r.N = d.options.num_bins_y;
  r.L = d.options.num_bins_z;
  const size_t n = d.x.size();
  Arrays a(run, {d.x, d.y, d.z, std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)});
  efield::ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  r.evaluate = run.time([&] { r.result = es.evaluate(a[0], a[1], a[2], a[3], a[4], a[5]); });
  r.stages = es.profile_stages(a[0], a[1], a[2], a[3], a[4], a[5], run.timing.repetitions);
  return r;
}

Row time_2d(const bench::StandInDesign& d, const Runner& run) {
  Row r;
  r.design = d.name + " (2D)";
  r.cells = static_cast<long long>(d.x.size());
  r.M = r.N = d.bins;
  efield::ElectrostaticOptions o = bench::stand_in_options(d);
  o.backend = run.backend;
  o.stream = run.stream;
  o.cpu_threads = run.cpu_threads;
  const size_t n = d.x.size();
  Arrays a(run, {d.x, d.y, std::vector<float>(n), std::vector<float>(n)});
  efield::ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  r.evaluate = run.time([&] { r.result = es.evaluate(a[0], a[1], a[2], a[3]); });
  r.stages = es.profile_stages(a[0], a[1], a[2], a[3], run.timing.repetitions);
  return r;
}

// The FFT the 3D transform is built on, same size: (forward R2C, inverse C2R) median ms.
std::pair<double, double> fft3d_ms(int n, const Runner& run) {
  const size_t real = static_cast<size_t>(n) * n * n, half = static_cast<size_t>(n) * n * (n / 2 + 1);
#if EFIELD_HAS_CUDA
  if (run.cuda()) {
    const efield::test::DeviceArray<float> in(std::vector<float>(real, 0.5f)), out(real), spec(2 * half);
    cufftHandle r2c, c2r;
    check(cufftPlan3d(&r2c, n, n, n, CUFFT_R2C), "plan R2C");
    check(cufftPlan3d(&c2r, n, n, n, CUFFT_C2R), "plan C2R");
    const auto s = reinterpret_cast<cudaStream_t>(run.stream);
    check(cufftSetStream(r2c, s), "set stream");
    check(cufftSetStream(c2r, s), "set stream");
    const double f = run.time([&] {
      check(cufftExecR2C(r2c, reinterpret_cast<cufftReal*>(in.get()), reinterpret_cast<cufftComplex*>(spec.get())),
            "R2C");
    }).median_ms;
    const double b = run.time([&] {
      check(cufftExecC2R(c2r, reinterpret_cast<cufftComplex*>(spec.get()), reinterpret_cast<cufftReal*>(out.get())),
            "C2R");
    }).median_ms;
    cufftDestroy(r2c);
    cufftDestroy(c2r);
    return {f, b};
  }
#endif
  std::vector<float> in(real, 0.5f), out(real);
  fftwf_complex* spec = fftwf_alloc_complex(half);
  const int threads = run.cpu_threads > 0 ? run.cpu_threads : static_cast<int>(std::thread::hardware_concurrency());
  fftwf_plan_with_nthreads(std::max(1, threads));
  fftwf_plan f = fftwf_plan_dft_r2c_3d(n, n, n, in.data(), spec, FFTW_MEASURE);
  fftwf_plan b = fftwf_plan_dft_c2r_3d(n, n, n, spec, out.data(), FFTW_MEASURE);
  std::fill(in.begin(), in.end(), 0.5f);  // FFTW_MEASURE may overwrite its arrays
  const double tf = run.time([&] { fftwf_execute(f); }).median_ms;
  const double tb = run.time([&] { fftwf_execute(b); }).median_ms;
  fftwf_destroy_plan(f);
  fftwf_destroy_plan(b);
  fftwf_free(spec);
  return {tf, tb};
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ElectrostaticSystem3D::evaluate at adaptec1 scale (512 x 512 x 2, 4, 8) against the 2D evaluate "
               "with the same cells, 1M / 4M cells at 128^3 and 256^3, and Plan3D at 256^3 against cuFFT's 3D "
               "R2C / C2R; float, deterministic, median of --reps runs (--backend cpu: smaller sizes).",
               "bench_electrostatics3d"};
  std::string markdown, backend = efield::cuda_device_count() > 0 ? "cuda" : "cpu", paths = "default,plain,batched,fused";
  int reps = 0, threads = 0;
  bool no_large = false;
  app.add_option("--backend", backend, "cuda or cpu (default: cuda when a device is present)")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  app.add_option("--reps", reps, "timed runs per case (default: 100 on CUDA, 5 on the CPU)")
      ->check(bench::at_least(1));
  app.add_option("--threads", threads, "CPU threads of the CPU backend and FFTW (0: all)")->check(bench::at_least(0));
  app.add_flag("--no-large", no_large, "skip the general grids (table 2)");
  app.add_option("--paths", paths,
                 "CUDA: the 3D stages to time, comma-separated: default (every option on), plain (none), tiles (the "
                 "tile rasterize alone), batched (the batched field inverse alone), both, fused (both, the spectral "
                 "pass inside the inverse)")
      ->capture_default_str();
  app.add_option("--markdown", markdown, "also write the tables to FILE")->type_name("FILE");
  CLI11_PARSE(app, argc, argv);

  Runner run;
  run.backend = backend == "cuda" ? Backend::Cuda : Backend::Cpu;
  run.cpu_threads = threads;
  run.timing.warmup = run.cuda() ? 10 : 1;
  run.timing.repetitions = reps > 0 ? reps : (run.cuda() ? 100 : 5);
  fftwf_init_threads();
#if EFIELD_HAS_CUDA
  cudaStream_t stream = nullptr;
  if (run.cuda()) {
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    run.stream = reinterpret_cast<efield::Stream>(stream);
  }
#else
  if (run.cuda()) {
    std::fprintf(stderr, "bench_electrostatics3d: built without CUDA; pass --backend cpu\n");
    return 1;
  }
#endif
  std::string md;
  try {
    const bool gpu = run.cuda();
    const std::vector<Path3D> path_list = gpu ? parse_paths(paths) : parse_paths("default");
    const bench::StandInDesign d2 =
        gpu ? bench::make_ispd_stand_in("adaptec1", bench::StandInPlacement::Random)
            : bench::make_stand_in("adaptec1-like / 4", 210904 / 4, 63 / 4, 256, 1, bench::StandInPlacement::Random);
    md += "# ElectrostaticSystem3D::evaluate\n\n" + (gpu ? bench::device_name() : bench::cpu_description()) + ", " +
          bench::today() + ", commit " +
          bench::source_commit() + ", backend " + backend +
          (gpu ? std::string() : ", " + std::to_string(threads) + " threads (0: all)") + ". float, deterministic, " +
          (gpu ? "device pointers, CUDA events around each call after 10 warm-up runs"
               : "host pointers, steady_clock around each call after 1 warm-up run") +
          ", median of " + std::to_string(run.timing.repetitions) + " runs.\n\n";

    const std::string columns =
        "| design | cells | bins | evaluate ms | vs 2D | rasterize | forward DCT | spectral | inverse (fields) | "
        "gather | energy | overflow |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
        "---: |\n";
    md += "## " + d2.name + ": 3D against 2D with the same cells\n\n"
          "The 2D row is ElectrostaticSystem on the stand-in; the 3D rows put the same cells (movable, fillers) one "
          "bin deep at random z in a region L bins deep, the fixed macros through all L. The stage columns are "
          "profile_stages' medians in ms (stages one by one";
    md += gpu ? ", no graph; the 2D forward and inverse are its one R2C and one C2C).\n\n"
              : "; the 2D forward and inverse are its transforms).\n\n";
    md += columns;
    std::printf("%s", md.c_str());
    std::fflush(stdout);
    auto row_md = [&](const Row& r, double base) {
      const efield::StageTimes& st = r.stages;
      std::string bins = std::to_string(r.M) + "x" + std::to_string(r.N);
      if (r.L > 0) bins += "x" + std::to_string(r.L);
      std::string s = "| " + r.design + " | " + std::to_string(r.cells) + " | " + bins + " | " +
                      fmt("%.4f", r.evaluate.median_ms) + " | " +
                      (base > 0 ? fmt("%.2fx", r.evaluate.median_ms / base) : std::string("-")) + " | " +
                      fmt("%.4f", st.rasterize_ms) + " | " + fmt("%.4f", st.forward_fft_ms) + " | " +
                      fmt("%.4f", st.spectral_ms) + " | " + fmt("%.4f", st.inverse_fft_ms) + " | " +
                      fmt("%.4f", st.gather_ms) + " | " + fmt("%.6g", r.result.energy) + " | " +
                      fmt("%.4f", r.result.overflow) + " |\n";
      std::printf("%s", s.c_str());
      std::fflush(stdout);
      return s;
    };
    const Row r2 = time_2d(d2, run);
    md += row_md(r2, r2.evaluate.median_ms);
    for (int L : {2, 4, 8})
      for (const Path3D& p : path_list) md += row_md(time_3d(stacked(d2, L, run), run, p), r2.evaluate.median_ms);

    if (!no_large) {
      const std::string head =
          "\n## General grids\n\nRandom cuboids (sides 0.5 to 2) in a cube 256 units wide, no fillers or fixed "
          "cells.\n\n" + columns;
      std::printf("%s", head.c_str());
      md += head;
      const std::vector<long long> counts = gpu ? std::vector<long long>{1000000, 4000000}
                                                : std::vector<long long>{250000};
      const std::vector<int> grids = gpu ? std::vector<int>{128, 256} : std::vector<int>{64, 128};
      for (long long c : counts)
        for (int g : grids)
          for (const Path3D& p : path_list) md += row_md(time_3d(cube(c, g, run), run, p), 0);
    }

    const int n = gpu ? 256 : 128;
    const auto [fwd, inv] = fft3d_ms(n, run);
    const double dct = plan3d_ms(efield::Transform3D::Dct, n, n, n, run);
    const double idct = plan3d_ms(efield::Transform3D::Idct, n, n, n, run);
    const char* ref = gpu ? "cuFFT" : "FFTW";
    std::string t = "\n## Plan3D against the real FFT of the same size (" + std::to_string(n) + "^3, float)\n\n"
                    "| transform | Plan3D ms | " + ref + " ms | ratio |\n| --- | ---: | ---: | ---: |\n";
    t += "| Dct (DCT-II) vs R2C | " + fmt("%.4f", dct) + " | " + fmt("%.4f", fwd) + " | " + fmt("%.2fx", dct / fwd) +
         " |\n";
    t += "| Idct (DCT-III) vs C2R | " + fmt("%.4f", idct) + " | " + fmt("%.4f", inv) + " | " +
         fmt("%.2fx", idct / inv) + " |\n";
    std::printf("%s", t.c_str());
    md += t;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_electrostatics3d: %s\n", e.what());
    return 1;
  }
#if EFIELD_HAS_CUDA
  if (stream) cudaStreamDestroy(stream);
#endif
  fftwf_cleanup_threads();
  if (!markdown.empty()) bench::save_text(markdown, md);
  return 0;
}
