#pragma once
// Benchmark timing: warm up, then time many runs and report the median.
// GPU work is timed with CUDA events on the given stream; CPU work with steady_clock.
#include <functional>
#include <string>
#include <vector>

#include "efield/device.hpp"

namespace efield::bench {

struct TimingOptions {
  int warmup = 10;
  int repetitions = 100;
};

struct TimingResult {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int repetitions = 0;
};

TimingResult summarize(std::vector<double> samples_ms);

// Times `fn`, which enqueues GPU work on `stream`, with a pair of CUDA events around each run.
// Throws efield::Error in a build without CUDA.
TimingResult time_cuda(const std::function<void()>& fn, Stream stream, const TimingOptions& options = {});

// Times `fn`, which runs to completion on the host.
TimingResult time_host(const std::function<void()>& fn, const TimingOptions& options = {});

// "NVIDIA H200" / "cpu: <model>", for result tables.
std::string device_name();
// "<model name>, N hardware threads" from /proc/cpuinfo, for CPU result tables.
std::string cpu_description();
// Short git commit of the source tree the benchmark was built from ("unknown" when not a repo).
std::string source_commit();
// Today's date, YYYY-MM-DD (UTC).
std::string today();

}  // namespace efield::bench
