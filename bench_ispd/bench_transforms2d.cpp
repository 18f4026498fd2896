// Table V of the DCT paper, for efield: the fused 2D plans (one 2D real FFT + fused pre/post)
// against cuFFT's R2C / C2R alone of the same size and against RowColumnPlan2D, in float and
// double; every Cuda2DMethod next to Auto on the same data (the rows scripts/check_auto_policy.py
// checks Auto's choices with, from --json); with --measure, PlanEffort::Measure's plan beside Auto
// (its method, time and plan time); plus the CPU backend against FFTW's own 2D REDFT10 / REDFT01
// r2r plans on 2 threads. See --help.
// GPU times: CUDA events around each execute after warm-up, median of many runs. CPU times:
// steady_clock, median. Inputs are random (never zeros). Ratios compare numbers measured in
// this process.
#include <fftw3.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/timing.hpp"
#include "efield/efield.hpp"
#include "support/device_array.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#include <cufft.h>
#endif

namespace {

using efield::Backend;
using efield::PlanOptions;
using efield::Transform2D;
namespace bench = efield::bench;

using Size = bench::GridSize;

std::string size_name(Size s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

template <typename T>
const char* type_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

template <typename T>
std::vector<T> random_data(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) {
    x = static_cast<T>(d(gen));
    if (x == T(0)) x = T(0.5);
  }
  return v;
}

std::string us(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ms * 1e3);
  return buf;
}
std::string ratio(double a, double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", a / b);
  return buf;
}

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string markdown() const {
    std::ostringstream o;
    o << "|";
    for (auto& h : header) o << " " << h << " |";
    o << "\n|";
    for (size_t i = 0; i < header.size(); ++i) o << " --- |";
    o << "\n";
    for (auto& r : rows) {
      o << "|";
      for (auto& c : r) o << " " << c << " |";
      o << "\n";
    }
    return o.str();
  }
};

#if EFIELD_HAS_CUDA
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw efield::Error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw efield::Error(std::string(what) + ": cuFFT error " + std::to_string(r));
}

// The methods timed one by one next to Auto: every method of the registry.
const std::vector<efield::Cuda2DMethod> kTimedMethods = efield::cuda_2d_methods();

// One JSON object per (size, type, transform): Auto's method and time, and every method's time
// (null where it does not take the shape), in microseconds; with `measure`, PlanEffort::Measure's
// method, time and plan time (the wisdom is forgotten first, so the plan measures).
template <typename T>
void gpu_rows(Size s, const bench::TimingOptions& topt, bool measure, Table& table,
              nlohmann::ordered_json& json_rows) {
  const size_t n = static_cast<size_t>(s.rows) * s.cols;
  const size_t nh = static_cast<size_t>(s.rows) * (s.cols / 2 + 1);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  const auto st = reinterpret_cast<efield::Stream>(stream);
  const efield::test::DeviceArray<T> in(random_data<T>(n, 1234u + s.rows)), out(n), real(n), spec(2 * nh);

  // cuFFT alone: R2C and C2R of the same size, out of place.
  const bool dbl = sizeof(T) == 8;
  cufftHandle r2c, c2r;
  check(cufftPlan2d(&r2c, s.rows, s.cols, dbl ? CUFFT_D2Z : CUFFT_R2C), "plan R2C");
  check(cufftPlan2d(&c2r, s.rows, s.cols, dbl ? CUFFT_Z2D : CUFFT_C2R), "plan C2R");
  check(cufftSetStream(r2c, stream), "set stream");
  check(cufftSetStream(c2r, stream), "set stream");
  auto exec_r2c = [&] {
    if (dbl) check(cufftExecD2Z(r2c, (cufftDoubleReal*)in.get(), (cufftDoubleComplex*)spec.get()), "D2Z");
    else check(cufftExecR2C(r2c, (cufftReal*)in.get(), (cufftComplex*)spec.get()), "R2C");
  };
  auto exec_c2r = [&] {
    if (dbl) check(cufftExecZ2D(c2r, (cufftDoubleComplex*)spec.get(), (cufftDoubleReal*)real.get()), "Z2D");
    else check(cufftExecC2R(c2r, (cufftComplex*)spec.get(), (cufftReal*)real.get()), "C2R");
  };
  const double t_r2c = bench::time_cuda(exec_r2c, st, topt).median_ms;
  const double t_c2r = bench::time_cuda(exec_c2r, st, topt).median_ms;
  cufftDestroy(r2c);
  cufftDestroy(c2r);

  PlanOptions o;
  o.backend = Backend::Cuda;
  for (Transform2D kind : {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst, Transform2D::IdxstIdct}) {
    const bool fwd = kind == Transform2D::Dct2;
    const double t_fft = fwd ? t_r2c : t_c2r;
    // One Cuda2DMethod of Plan2D: its time, or a negative value where it does not apply.
    auto time_method = [&](efield::Cuda2DMethod method) {
      PlanOptions m = o;
      m.cuda_2d_method = method;
      try {
        efield::Plan2D<T> plan(kind, s.rows, s.cols, m);
        return bench::time_cuda([&] { plan.execute(in.get(), out.get(), st); }, st, topt).median_ms;
      } catch (const efield::Error&) {
        return -1.0;  // the method does not take this shape
      }
    };
    const double t_fused = time_method(efield::Cuda2DMethod::Auto);
    const std::string method = efield::to_string(efield::Plan2D<T>(kind, s.rows, s.cols, o).cuda_2d_method());
    nlohmann::ordered_json json_row = {{"rows", s.rows},
                               {"cols", s.cols},
                               {"type", type_name<T>()},
                               {"transform", efield::to_string(kind)},
                               {"auto_method", method},
                               {"auto_us", t_fused * 1e3},
                               {"cufft_us", t_fft * 1e3}};
    std::vector<std::string> measured;  // with --measure: method, time, ratio to cuFFT, plan time
    std::string measured_line;
    if (measure) {
      efield::forget_wisdom();
      PlanOptions m = o;
      m.effort = efield::PlanEffort::Measure;
      const auto t0 = std::chrono::steady_clock::now();
      efield::Plan2D<T> plan(kind, s.rows, s.cols, m);
      const double plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const double t = bench::time_cuda([&] { plan.execute(in.get(), out.get(), st); }, st, topt).median_ms;
      const std::string chosen = efield::to_string(plan.cuda_2d_method());
      char plan_text[32];
      std::snprintf(plan_text, sizeof plan_text, "%.1f", plan_ms);
      measured = {chosen, us(t), ratio(t, t_fft), plan_text};
      measured_line = "  measured (" + chosen + ") " + us(t) + " us " + ratio(t, t_fft) + ", planned in " + plan_text +
                      " ms";
      json_row["measure_method"] = chosen;
      json_row["measure_us"] = t * 1e3;
      json_row["measure_plan_ms"] = plan_ms;
    }
    // Every explicit method on the same data: "time (ratio to cuFFT)", or n/a where it does not apply.
    std::vector<std::string> per_method;
    std::string per_method_line;
    double fastest = -1;
    for (efield::Cuda2DMethod m : kTimedMethods) {
      const double t = time_method(m);
      if (t >= 0 && (fastest < 0 || t < fastest)) fastest = t;
      per_method.push_back(t < 0 ? std::string("n/a") : us(t) + " (" + ratio(t, t_fft) + ")");
      per_method_line += std::string("  ") + efield::to_string(m) + " " + per_method.back();
      json_row["methods"][efield::to_string(m)] = t < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(t * 1e3);
    }
    std::string rc_time = "n/a", rc_ratio = "n/a";
    if (kind == Transform2D::Dct2 || kind == Transform2D::Idct2) {
      try {
        efield::RowColumnPlan2D<T> rc(kind, s.rows, s.cols, o);
        const double t_rc = bench::time_cuda([&] { rc.execute(in.get(), out.get(), st); }, st, topt).median_ms;
        rc_time = us(t_rc);
        rc_ratio = ratio(t_rc, t_fused);
        json_row["row_column_us"] = t_rc * 1e3;
      } catch (const efield::Error& e) {
        std::fprintf(stderr, "row-column %s %s: %s\n", efield::to_string(kind), size_name(s).c_str(), e.what());
      }
    }
    std::vector<std::string> row{size_name(s), type_name<T>(), efield::to_string(kind), method, us(t_fused),
                                 std::string(fwd ? "R2C " : "C2R ") + us(t_fft), ratio(t_fused, t_fft)};
    row.insert(row.end(), measured.begin(), measured.end());
    row.push_back(ratio(fastest, t_fft));
    row.insert(row.end(), per_method.begin(), per_method.end());
    row.push_back(rc_time);
    row.push_back(rc_ratio);
    table.rows.push_back(row);
    json_rows.push_back(json_row);
    std::printf("%-11s %-6s %-11s fused (%s) %9s us  %s %9s us  ratio %6s%s %s  row-col %9s us  speedup %s\n",
                size_name(s).c_str(), type_name<T>(), efield::to_string(kind), method.c_str(), us(t_fused).c_str(),
                fwd ? "R2C" : "C2R", us(t_fft).c_str(), ratio(t_fused, t_fft).c_str(), measured_line.c_str(),
                per_method_line.c_str(), rc_time.c_str(), rc_ratio.c_str());
    std::fflush(stdout);
  }
  cudaStreamDestroy(stream);
}
#endif

// FFTW's own 2D DCT-II (REDFT10) / DCT-III (REDFT01) r2r plans, for the CPU comparison.
template <typename T>
struct FftwR2r;
template <>
struct FftwR2r<float> {
  fftwf_plan p;
  FftwR2r(int r, int c, float* in, float* out, bool fwd) {
    const fftw_r2r_kind k = fwd ? FFTW_REDFT10 : FFTW_REDFT01;
    p = fftwf_plan_r2r_2d(r, c, in, out, k, k, FFTW_MEASURE);
  }
  void run() { fftwf_execute(p); }
  ~FftwR2r() { fftwf_destroy_plan(p); }
};
template <>
struct FftwR2r<double> {
  fftw_plan p;
  FftwR2r(int r, int c, double* in, double* out, bool fwd) {
    const fftw_r2r_kind k = fwd ? FFTW_REDFT10 : FFTW_REDFT01;
    p = fftw_plan_r2r_2d(r, c, in, out, k, k, FFTW_MEASURE);
  }
  void run() { fftw_execute(p); }
  ~FftwR2r() { fftw_destroy_plan(p); }
};

template <typename T>
void cpu_rows(Size s, int threads, const bench::TimingOptions& topt, Table& table, nlohmann::ordered_json& json_rows) {
  const size_t n = static_cast<size_t>(s.rows) * s.cols;
  PlanOptions o;
  o.backend = Backend::Cpu;
  o.cpu_threads = threads;
  for (Transform2D kind : {Transform2D::Dct2, Transform2D::Idct2}) {
    const bool fwd = kind == Transform2D::Dct2;
    std::vector<T> in = random_data<T>(n, 99u + s.rows), out(n);
    efield::Plan2D<T> plan(kind, s.rows, s.cols, o);
    const double t_plan = bench::time_host([&] { plan.execute(in.data(), out.data()); }, topt).median_ms;
    double t_fftw;
    {
      std::vector<T> a(n), b(n);
      fftw_plan_with_nthreads(threads);
      fftwf_plan_with_nthreads(threads);
      FftwR2r<T> r2r(s.rows, s.cols, a.data(), b.data(), fwd);  // MEASURE overwrites a: fill after
      a = in;
      t_fftw = bench::time_host([&] { r2r.run(); }, topt).median_ms;
    }
    const char* ref = fwd ? "REDFT10" : "REDFT01";
    table.rows.push_back({size_name(s), type_name<T>(), efield::to_string(kind), std::to_string(threads),
                          us(t_plan), std::string(ref) + " " + us(t_fftw), ratio(t_fftw, t_plan)});
    json_rows.push_back({{"rows", s.rows},
                         {"cols", s.cols},
                         {"type", type_name<T>()},
                         {"transform", efield::to_string(kind)},
                         {"threads", threads},
                         {"efield_us", t_plan * 1e3},
                         {"fftw_r2r_us", t_fftw * 1e3}});
    std::printf("cpu %-11s %-6s %-6s %d threads: efield %10s us  FFTW %s %10s us  speedup %s\n",
                size_name(s).c_str(), type_name<T>(), efield::to_string(kind), threads, us(t_plan).c_str(), ref,
                us(t_fftw).c_str(), ratio(t_fftw, t_plan).c_str());
    std::fflush(stdout);
  }
}

struct Args {
  bool quick = false;
  bool cpu = true;
  bool gpu = true;
  bool measure = false;            // --measure: PlanEffort::Measure's plan beside Auto
  std::vector<std::string> sizes;  // --size: just these GPU sizes
  std::string markdown;
  std::string json;
};

// The GPU sizes: the DCT paper's squares and the tall and wide arrays, and the niches the policy
// table gives RowFftColumnPass (power-of-two rows, columns that are not: 256 in float, 512..2048)
// and TransposedPackedFft (2000..10000 rows of 100..300 columns, not powers of two), so that a
// run shows whether each still wins where Auto runs it.
std::vector<Size> gpu_sizes(const Args& a) {
  if (!a.sizes.empty()) {
    std::vector<Size> sizes;
    for (const std::string& text : a.sizes) sizes.push_back(bench::parse_grid_size(text));
    return sizes;
  }
  if (a.quick) return {{512, 512}, {2048, 2048}, {100, 10000}, {512, 1000}, {3000, 300}};
  return {{512, 512},   {1024, 1024}, {2048, 2048}, {4096, 4096}, {8192, 8192}, {100, 10000},
          {10000, 100}, {256, 1000},  {512, 1000},  {1024, 3000}, {2048, 1500}, {2000, 100},
          {3000, 300},  {5000, 200},  {8000, 150}};
}

int run(const Args& args) {
  fftw_init_threads();
  fftwf_init_threads();
  std::ostringstream md;
  md << "# bench_transforms2d: fused 2D DCT plans (DCT paper, Table V)\n\n"
     << "- GPU: " << bench::device_name() << "\n- date: " << bench::today()
     << "\n- commit: " << bench::source_commit() << "\n- mode: " << (args.quick ? "--quick" : "full")
     << (args.measure ? ", --measure" : "") << "\n\n";
  nlohmann::ordered_json json = {{"program", "bench_transforms2d"},
                         {"device", bench::device_name()},
                         {"date", bench::today()},
                         {"commit", bench::source_commit()},
                         {"mode", args.quick ? "quick" : "full"},
                         {"measure", args.measure},
                         {"gpu", nlohmann::ordered_json::array()},
                         {"cpu", nlohmann::ordered_json::array()}};

  const bool have_gpu = args.gpu && efield::cuda_device_count() > 0;
  if (have_gpu) {
#if EFIELD_HAS_CUDA
    bench::TimingOptions topt;
    topt.warmup = 10;
    topt.repetitions = args.quick ? 50 : 200;
    Table t{{"size", "type", "transform", "Auto runs", "fused (us)", "cuFFT alone (us)", "fused / cuFFT"}};
    if (args.measure) {
      for (const char* h : {"Measure runs", "measured (us)", "measured / cuFFT", "Measure's plan time (ms)"})
        t.header.push_back(h);
    }
    t.header.push_back("fastest method / cuFFT");
    for (efield::Cuda2DMethod m : kTimedMethods) {
      t.header.push_back(std::string(efield::to_string(m)) + " (us, / cuFFT)");
    }
    t.header.push_back("row-column (us)");
    t.header.push_back("row-column / fused");
    for (Size s : gpu_sizes(args)) {
      gpu_rows<float>(s, topt, args.measure, t, json["gpu"]);
      gpu_rows<double>(s, topt, args.measure, t, json["gpu"]);
    }
    md << "## CUDA: fused plan vs cuFFT alone vs row-column\n\n"
       << "Median of " << topt.repetitions << " runs after " << topt.warmup
       << " warm-up runs, CUDA events; device pointers, out of place. `fused / cuFFT` compares dct2 "
          "with R2C and the inverses with C2R of the same size (target <= 1.10x at >= 2048^2); "
          "`row-column / fused` is the speedup over RowColumnPlan2D (target >= 2x; it supports only "
          "dct2 and idct2). `fused` is Plan2D's default, Cuda2DMethod::Auto, which runs the method in "
          "`Auto runs`, the policy table's choice for the shape and the GPU "
          "(src/transforms/cuda2d_policy.cpp; the methods are described at efield::Cuda2DMethod in "
          "include/efield/transforms.hpp). "
       << (args.measure ? "`Measure runs` is the method of a plan made with PlanEffort::Measure (the wisdom "
                          "forgotten first: it times every method that takes the shape), timed like the "
                          "others; its plan time includes that measurement. "
                        : "")
       << "`fastest method / cuFFT` is the best explicit method's ratio. The next columns time each "
          "explicit Cuda2DMethod on the same data, with its ratio to "
          "cuFFT (n/a where the method does not take the shape).\n\n"
       << t.markdown() << "\n";
#endif
  } else {
    md << "## CUDA\n\nno CUDA device: skipped\n\n";
  }
  if (args.cpu) {
    std::vector<Size> sizes = args.quick ? std::vector<Size>{{512, 512}, {1024, 1024}}
                                         : std::vector<Size>{{512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}};
    bench::TimingOptions topt;
    topt.warmup = 2;
    topt.repetitions = args.quick ? 5 : 15;
    Table t{{"size", "type", "transform", "threads", "efield CPU (us)", "FFTW r2r (us)", "FFTW / efield"}};
    for (Size s : sizes) {
      cpu_rows<float>(s, 2, topt, t, json["cpu"]);
      cpu_rows<double>(s, 2, topt, t, json["cpu"]);
    }
    md << "## CPU: Plan2D (FFTW r2c/c2r + fused pre/post) vs FFTW's 2D REDFT10 / REDFT01\n\n"
       << "Both on 2 threads, FFTW_MEASURE plans, median of " << topt.repetitions
       << " runs (steady_clock). `FFTW / efield` > 1 means efield is faster.\n\n"
       << t.markdown() << "\n";
  }
  std::printf("\n%s", md.str().c_str());
  if (!args.markdown.empty()) bench::save_text(args.markdown, md.str());
  if (!args.json.empty()) bench::save_text(args.json, json.dump(2) + "\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times the fused 2D DCT plans (Plan2D, every Cuda2DMethod next to Auto) against cuFFT's "
               "R2C/C2R alone and RowColumnPlan2D on the GPU, and the CPU backend against FFTW's 2D "
               "r2r plans (DCT paper, Table V).",
               "bench_transforms2d"};
  Args args;
  bool no_cpu = false, no_gpu = false;
  app.add_flag("--quick", args.quick, "fewer sizes and repetitions");
  app.add_option("--size", args.sizes, "time only this GPU size (repeatable)")
      ->check(bench::grid_size_check())
      ->type_name("ROWSxCOLS");
  app.add_option("--markdown", args.markdown, "also write the tables, with GPU, date and commit, to FILE")
      ->type_name("FILE");
  app.add_option("--json", args.json,
                 "also write every timed row to FILE as JSON (read by scripts/check_auto_policy.py)")
      ->type_name("FILE");
  app.add_flag("--measure", args.measure,
               "also time a PlanEffort::Measure plan of every GPU row (its method, time, ratio to cuFFT and plan "
               "time)");
  app.add_flag("--no-cpu", no_cpu, "skip the CPU table");
  app.add_flag("--no-gpu", no_gpu, "skip the CUDA table");
  CLI11_PARSE(app, argc, argv);
  args.cpu = !no_cpu;
  args.gpu = !no_gpu;
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_transforms2d: %s\n", e.what());
    return 1;
  }
}
