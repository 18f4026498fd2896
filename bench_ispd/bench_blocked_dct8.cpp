// The blocked 8x8 DCT (efield::BlockedDct8, Loeffler network) on the GPU. It is memory bound, so
// it is reported as throughput (bytes read + written per second) against the device's copy
// bandwidth measured in the same process (cudaMemcpyAsync device-to-device of the same array,
// which also reads and writes every byte once), and next to the whole-image Plan2D dct2 of the
// same array (the transform the blocked one stands in for in JPEG-like compression).
//
// See --help.
//
// CUDA events after warm-up, median of many runs (common/timing.hpp), random data in [-1, 1).
// Needs the CUDA backend and a device; without them it says so and exits with status 2.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
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
#endif

namespace {

struct Args {
  std::vector<int> sizes{4096, 8192};
  int reps = 100;
  std::string markdown;
};

#if EFIELD_HAS_CUDA

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw efield::Error(std::string(what) + ": " + cudaGetErrorString(e));
}

// efield::Stream is spelled efield::CUstream_st* in a .cpp (include/efield/device.hpp), a type
// distinct from cudaStream_t, so the handle is cast explicitly.
efield::Stream as_stream(cudaStream_t s) { return reinterpret_cast<efield::Stream>(s); }

struct Row {
  std::string type, what;
  int n;
  double blocked_ms, copy_ms, plan2d_ms;  // plan2d_ms < 0: not timed
  double bytes;
};

template <typename T>
Row measure(const char* type, efield::Transform2D kind, int n, const efield::bench::TimingOptions& topt,
            bool with_plan2d, cudaStream_t cuda_stream) {
  const efield::Stream stream = as_stream(cuda_stream);
  const size_t count = static_cast<size_t>(n) * n;
  std::vector<T> host(count);
  std::mt19937_64 gen(12345 + n);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& v : host) v = static_cast<T>(dist(gen));
  const efield::test::DeviceArray<T> in(host), out(count);

  efield::BlockedDct8Options bo;
  bo.backend = efield::Backend::Cuda;
  bo.zero_below = kind == efield::Transform2D::Dct2 ? 1e-3 : 0.0;  // the fused threshold is on
  bo.inverse_scale = 1.0 / 64;
  efield::BlockedDct8<T> blocked(kind, n, n, bo);

  Row r{type, kind == efield::Transform2D::Dct2 ? "dct2 (threshold on)" : "idct2", n, 0, 0, -1, 2.0 * count * sizeof(T)};
  r.blocked_ms = efield::bench::time_cuda([&] { blocked.execute(in.get(), out.get(), stream); }, stream, topt).median_ms;
  r.copy_ms = efield::bench::time_cuda(
                  [&] {
                    check(cudaMemcpyAsync(out.get(), in.get(), count * sizeof(T), cudaMemcpyDeviceToDevice, cuda_stream),
                          "cudaMemcpyAsync");
                  },
                  stream, topt)
                  .median_ms;
  if (with_plan2d) {
    efield::PlanOptions po;
    po.backend = efield::Backend::Cuda;
    efield::Plan2D<T> whole(kind, n, n, po);
    r.plan2d_ms = efield::bench::time_cuda([&] { whole.execute(in.get(), out.get(), stream); }, stream, topt).median_ms;
  }
  return r;
}

std::string format_table(const std::vector<Row>& rows) {
  std::ostringstream os;
  os << "| type | transform | size | blocked 8x8 (ms) | blocked GB/s | D2D copy (ms) | copy GB/s "
        "| blocked / copy bandwidth | whole-image Plan2D (ms) | Plan2D / blocked time |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  char buf[512];
  for (const Row& r : rows) {
    const double bgbs = r.bytes / (r.blocked_ms * 1e-3) / 1e9, cgbs = r.bytes / (r.copy_ms * 1e-3) / 1e9;
    std::string p2 = "-", ratio = "-";
    if (r.plan2d_ms >= 0) {
      std::snprintf(buf, sizeof buf, "%.3f", r.plan2d_ms);
      p2 = buf;
      std::snprintf(buf, sizeof buf, "%.2fx", r.plan2d_ms / r.blocked_ms);
      ratio = buf;
    }
    std::snprintf(buf, sizeof buf, "| %s | %s | %dx%d | %.3f | %.0f | %.3f | %.0f | %.1f%% | %s | %s |\n",
                  r.type.c_str(), r.what.c_str(), r.n, r.n, r.blocked_ms, bgbs, r.copy_ms, cgbs,
                  100.0 * bgbs / cgbs, p2.c_str(), ratio.c_str());
    os << buf;
  }
  return os.str();
}

int run(const Args& args) {
  if (efield::cuda_device_count() == 0) {
    std::fprintf(stderr, "bench_blocked_dct8: no CUDA device is present\n");
    return 2;
  }
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  efield::bench::TimingOptions topt;
  topt.warmup = 10;
  topt.repetitions = args.reps;
  std::vector<Row> rows;
  for (int n : args.sizes) {
    rows.push_back(measure<float>("float", efield::Transform2D::Dct2, n, topt, true, stream));
    rows.push_back(measure<float>("float", efield::Transform2D::Idct2, n, topt, true, stream));
  }
  rows.push_back(measure<double>("double", efield::Transform2D::Dct2, args.sizes.front(), topt, true, stream));
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");

  std::ostringstream md;
  md << "# Blocked 8x8 DCT (Loeffler network) vs copy bandwidth and the whole-image dct2\n\n"
     << "GPU: " << efield::bench::device_name() << "; date " << efield::bench::today() << "; commit "
     << efield::bench::source_commit() << "; median of " << args.reps << " runs after 10 warm-up runs (CUDA events).\n\n"
     << "Bytes = one read and one write of the array (2 x size x sizeof(T)) for the blocked transform and for\n"
     << "the device-to-device cudaMemcpyAsync of the same array, timed in the same process. The whole-image\n"
     << "Plan2D column is the DCT paper's fused 2D DCT (one real 2D FFT) of the same array, for scale: it\n"
     << "computes a different (global) transform. Forward rows run with the fused threshold zero_below = 1e-3.\n"
     << "`blocked` is the library's kernel for the type: float loads each thread's block straight into\n"
     << "registers, double moves each warp's 32 blocks through shared memory with coalesced 16-byte\n"
     << "accesses (kernels/blocked_dct8/blocked_dct8.cu).\n\n"
     << format_table(rows) << "\n"
     << "Produced by `bench_blocked_dct8 --markdown FILE` (bench_ispd/bench_blocked_dct8.cpp).\n";
  std::printf("%s", md.str().c_str());
  if (!args.markdown.empty()) {
    std::ofstream f(args.markdown);
    if (!f) throw efield::Error("cannot write '" + args.markdown + "'");
    f << md.str();
  }
  return 0;
}

#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The blocked 8x8 DCT (efield::BlockedDct8) on the GPU as throughput against the device-to-device copy "
               "of the same array, and next to the whole-image Plan2D dct2 (needs a CUDA device).",
               "bench_blocked_dct8"};
  Args args;
  const CLI::Validator multiple_of_8(
      [](std::string& text) {
        int n = 0;
        return CLI::detail::lexical_cast(text, n) && n > 0 && n % 8 == 0 ? std::string()
                                                                          : text + " is not a positive multiple of 8";
      },
      "", "multiple of 8");
  app.add_option("--sizes", args.sizes, "square sizes to time, positive multiples of 8")
      ->delimiter(',')
      ->check(multiple_of_8)
      ->type_name("N,N,...")
      ->capture_default_str();
  app.add_option("--reps", args.reps, "timed runs per case")->check(efield::bench::at_least(1))->capture_default_str();
  app.add_option("--markdown", args.markdown, "also write the table to FILE")->type_name("FILE");
  CLI11_PARSE(app, argc, argv);
#if EFIELD_HAS_CUDA
  try {
    return run(args);
  } catch (const efield::Error& e) {
    std::fprintf(stderr, "bench_blocked_dct8: %s\n", e.what());
    return 1;
  }
#else
  (void)args;
  std::fprintf(stderr, "bench_blocked_dct8: efield was built without CUDA; this benchmark needs a GPU\n");
  return 2;
#endif
}
