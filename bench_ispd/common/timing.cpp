#include "common/timing.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "efield/error.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace efield::bench {

TimingResult summarize(std::vector<double> samples) {
  if (samples.empty()) throw Error("summarize: no timing samples");
  std::sort(samples.begin(), samples.end());
  TimingResult r;
  r.repetitions = static_cast<int>(samples.size());
  const size_t n = samples.size();
  r.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  r.min_ms = samples.front();
  r.max_ms = samples.back();
  return r;
}

TimingResult time_host(const std::function<void()>& fn, const TimingOptions& options) {
  for (int i = 0; i < options.warmup; ++i) fn();
  std::vector<double> samples;
  samples.reserve(options.repetitions);
  for (int i = 0; i < options.repetitions; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(std::move(samples));
}

#if EFIELD_HAS_CUDA
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("benchmark timing: ") + what + ": " + cudaGetErrorString(e));
}
}  // namespace

TimingResult time_cuda(const std::function<void()>& fn, Stream stream, const TimingOptions& options) {
  auto s = reinterpret_cast<cudaStream_t>(stream);
  for (int i = 0; i < options.warmup; ++i) fn();
  check(cudaStreamSynchronize(s), "warm-up");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> samples;
  samples.reserve(options.repetitions);
  for (int i = 0; i < options.repetitions; ++i) {
    check(cudaEventRecord(start, s), "cudaEventRecord");
    fn();
    check(cudaEventRecord(stop, s), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    samples.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(std::move(samples));
}

std::string device_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    return prop.name;
  cudaGetLastError();
  return "no CUDA device";
}
#else
TimingResult time_cuda(const std::function<void()>&, Stream, const TimingOptions&) {
  throw Error("time_cuda: efield was built without CUDA");
}
std::string device_name() { return "no CUDA device"; }
#endif

std::string cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

std::string source_commit() {
  // The device machine gets a copy of the tree without .git: scripts/device_check.sh passes the
  // commit in EFIELD_COMMIT.
  if (const char* env = std::getenv("EFIELD_COMMIT"); env && *env) return env;
  std::array<char, 64> buf{};
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen("git -C " EFIELD_BENCH_SOURCE_DIR " rev-parse --short HEAD 2>/dev/null", "r"), pclose);
  if (pipe && fgets(buf.data(), buf.size(), pipe.get())) out = buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace efield::bench
