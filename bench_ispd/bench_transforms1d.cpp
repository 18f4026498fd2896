// The DCT paper's Table IV: the four 1D DCT algorithms (4N, mirrored 2N, padded 2N, N-point)
// on the GPU, against a cuFFT real FFT of length N timed in the same process, at N = 2^14..2^18,
// batch 1 (launch-bound) and a batched case (batch = 2^24 / N). For information it also times
// the row-column 2D baseline (RowColumnPlan2D Dct2) at 1024^2 and 4096^2 against a cuFFT 2D R2C
// of the same size.
//
// See --help.
//
// CUDA events after warm-up, median of many runs (common/timing.hpp), random data in [-1, 1].
// Needs the CUDA backend and a device; without them it says so and exits with status 2.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/timing.hpp"
#include "efield/efield.hpp"
#include "support/device_array.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#include <cufft.h>
#endif

namespace {

struct Args {
  bool quick = false;
  std::string markdown;
};

#if EFIELD_HAS_CUDA

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw efield::Error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw efield::Error(std::string(what) + ": cuFFT error " + std::to_string(int(r)));
}

// A device array filled with uniform random values (never zeros).
template <typename T>
efield::test::DeviceArray<T> random_device_array(size_t n, unsigned seed) {
  std::vector<T> host(n);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& v : host) v = static_cast<T>(dist(gen));
  return efield::test::DeviceArray<T>(host);
}

template <typename T> constexpr cufftType r2c_type() { return sizeof(T) == 4 ? CUFFT_R2C : CUFFT_D2Z; }

template <typename T>
void exec_r2c(cufftHandle p, T* in, void* out) {
  if constexpr (sizeof(T) == 4) check(cufftExecR2C(p, in, static_cast<cufftComplex*>(out)), "cufftExecR2C");
  else check(cufftExecD2Z(p, in, static_cast<cufftDoubleComplex*>(out)), "cufftExecD2Z");
}

// The reference: a batched cuFFT R2C with the given dimensions (1D: {n}, 2D: {rows, cols}).
template <typename T>
double time_cufft_r2c(std::vector<int> dims, int batch, efield::Stream stream, const efield::bench::TimingOptions& opt) {
  size_t count = 1;
  for (int d : dims) count *= d;
  const size_t half = count / dims.back() * (dims.back() / 2 + 1);
  const auto in = random_device_array<T>(count * batch, 7);
  const efield::test::DeviceArray<T> out(half * batch * 2);
  cufftHandle plan;
  check(cufftPlanMany(&plan, static_cast<int>(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0, r2c_type<T>(),
                      batch),
        "cufftPlanMany");
  check(cufftSetStream(plan, stream), "cufftSetStream");
  const auto r = efield::bench::time_cuda([&] { exec_r2c<T>(plan, in.get(), out.get()); }, stream, opt);
  cufftDestroy(plan);
  return r.median_ms;
}

template <typename T>
double time_dct1d(efield::DctAlgorithm algorithm, int n, int batch, efield::Stream stream,
                  const efield::bench::TimingOptions& opt) {
  efield::PlanOptions o;
  o.backend = efield::Backend::Cuda;
  efield::Plan1D<T> plan(efield::Transform1D::Dct, n, batch, algorithm, o);
  const auto in = random_device_array<T>(size_t(n) * batch, 11), out = random_device_array<T>(size_t(n) * batch, 13);
  return efield::bench::time_cuda([&] { plan.execute(in.get(), out.get(), stream); }, stream, opt).median_ms;
}

template <typename T>
double time_row_column(int rows, int cols, efield::Stream stream, const efield::bench::TimingOptions& opt) {
  efield::PlanOptions o;
  o.backend = efield::Backend::Cuda;
  efield::RowColumnPlan2D<T> plan(efield::Transform2D::Dct2, rows, cols, o);
  const auto in = random_device_array<T>(size_t(rows) * cols, 17), out = random_device_array<T>(size_t(rows) * cols, 19);
  return efield::bench::time_cuda([&] { plan.execute(in.get(), out.get(), stream); }, stream, opt).median_ms;
}

std::string fmt_ms(double ms) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4f", ms);
  return b;
}
std::string fmt_cell(double ms, double ref) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4f (%.2fx)", ms, ms / ref);
  return b;
}

template <typename T>
void table_1d(std::ostringstream& md, const std::vector<int>& log_sizes, bool batched, efield::Stream stream,
              const efield::bench::TimingOptions& opt) {
  const char* precision = sizeof(T) == 4 ? "float" : "double";
  for (int lg : log_sizes) {
    const int n = 1 << lg;
    const int batch = batched ? (1 << 24) / n : 1;
    const double ref = time_cufft_r2c<T>({n}, batch, stream, opt);
    md << "| " << precision << " | 2^" << lg << " | " << batch << " | " << fmt_ms(ref);
    for (auto a : {efield::DctAlgorithm::NPoint, efield::DctAlgorithm::Mirrored2N, efield::DctAlgorithm::Padded2N,
                   efield::DctAlgorithm::FourN})
      md << " | " << fmt_cell(time_dct1d<T>(a, n, batch, stream, opt), ref);
    md << " |\n";
    std::fprintf(stderr, "  %s N=2^%d batch=%d done\n", precision, lg, batch);
  }
}

template <typename T>
void table_2d(std::ostringstream& md, const std::vector<int>& sizes, efield::Stream stream,
              const efield::bench::TimingOptions& opt) {
  const char* precision = sizeof(T) == 4 ? "float" : "double";
  for (int s : sizes) {
    const double ref = time_cufft_r2c<T>({s, s}, 1, stream, opt);
    md << "| " << precision << " | " << s << " x " << s << " | " << fmt_ms(ref) << " | "
       << fmt_cell(time_row_column<T>(s, s, stream, opt), ref) << " |\n";
  }
}

int run(const Args& args) {
  if (efield::cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_transforms1d: no CUDA device is present; nothing to measure\n");
    return 2;
  }
  efield::bench::TimingOptions opt;
  opt.warmup = 10;
  opt.repetitions = args.quick ? 20 : 100;
  const std::vector<int> log_sizes = args.quick ? std::vector<int>{14, 16} : std::vector<int>{14, 15, 16, 17, 18};
  const std::vector<int> sizes_2d = args.quick ? std::vector<int>{1024} : std::vector<int>{1024, 4096};
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");

  std::ostringstream md;
  md << "# 1D DCT algorithms (DCT paper, Table IV)\n\n"
     << "GPU: " << efield::bench::device_name() << "  \nDate: " << efield::bench::today()
     << "  \nCommit: " << efield::bench::source_commit() << "  \nCommand: `bench_transforms1d"
     << (args.quick ? " --quick" : "") << "`\n\n"
     << "Median of " << opt.repetitions << " runs after " << opt.warmup
     << " warm-up runs, CUDA events, milliseconds; random input in [-1, 1]. Each DCT cell is "
        "the whole Plan1D::execute (preprocess kernel + cuFFT + postprocess kernel) and, in "
        "parentheses, its ratio to a cuFFT R2C of length N with the same batch, timed in the "
        "same process.\n\n";
  for (bool batched : {false, true}) {
    md << (batched ? "## Batched: batch = 2^24 / N\n\n" : "## Batch 1 (launch-bound)\n\n")
       << "| precision | N | batch | cuFFT R2C (N) | N-point | mirrored 2N | padded 2N | 4N |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    table_1d<float>(md, log_sizes, batched, stream, opt);
    table_1d<double>(md, log_sizes, batched, stream, opt);
    md << "\n";
  }
  md << "## Row-column 2D baseline (RowColumnPlan2D, Dct2), for information\n\n"
     << "Two batched 1D N-point passes with two tiled transposes (8 kernels + 2 cuFFT calls); "
        "the ratio is to one cuFFT 2D R2C of the same size.\n\n"
     << "| precision | size | cuFFT 2D R2C | row-column Dct2 |\n| --- | --- | --- | --- |\n";
  table_2d<float>(md, sizes_2d, stream, opt);
  table_2d<double>(md, sizes_2d, stream, opt);
  cudaStreamDestroy(stream);

  std::printf("%s", md.str().c_str());
  if (!args.markdown.empty()) {
    std::ofstream f(args.markdown);
    if (!f) throw efield::Error("bench_transforms1d: cannot write --markdown file '" + args.markdown + "'");
    f << md.str();
  }
  return 0;
}

#else

int run(const Args&) {
  std::fprintf(stderr, "bench_transforms1d: efield was built without CUDA; nothing to measure\n");
  return 2;
}

#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The DCT paper's Table IV: the four 1D DCT algorithms on the GPU against a cuFFT real FFT of "
               "length N, N = 2^14..2^18, batch 1 and batched; and the row-column 2D baseline against cuFFT's 2D R2C.",
               "bench_transforms1d"};
  Args args;
  app.add_flag("--quick", args.quick, "fewer sizes and repetitions");
  app.add_option("--markdown", args.markdown, "also write the tables, with GPU, date and commit, to FILE")
      ->type_name("FILE");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_transforms1d: %s\n", e.what());
    return 1;
  }
}
