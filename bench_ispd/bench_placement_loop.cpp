// bench_placement_loop: the density side of a whole global placement, replayed. A placer's
// evaluates do not all look like the spread point bench_electrostatics times: the first ones see
// every movable cell piled at the centre (a 200,000-cell run went from max density 26,229 to 153
// only by iteration 200 of 676). Here iteration t of T moves each movable cell's centre from the
// region's centre toward its final (uniformly random) position: centre + e(t) (final - centre),
// e(t) = e0^(1 - sqrt(t / (T - 1))), e0 = 1 % (a pile of 1 % of the side, spreading fast at
// first, then slowly: max density falls by about two orders of magnitude in the first third);
// fillers stay at their random positions. Designs: the adaptec1-like and bigblue4-like stand-ins
// of bench_electrostatics (common/ispd_stand_ins.hpp), float, deterministic, CUDA.
//
// Each iteration's positions are computed before the loop and copied into the arrays a placer
// would pass (outside the timed region); the time is steady_clock around evaluate alone (which
// waits for its result), per iteration the median of --passes passes. Arrays: device memory (a
// GPU placer), pageable host memory (a CPU-side placer's std::vector), and the same host memory
// page-locked once with efield::PinnedHostRange. Also the time of moving x, y up and the gradient
// down at the measured page-locked rate (cudaMemcpy), the floor of any host-array evaluate above
// the device one. See --help.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/ispd_stand_ins.hpp"
#include "common/timing.hpp"
#include "efield/efield.hpp"
#include "electrostatics/host_copy_threads.hpp"
#include "support/device_array.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using efield::bench::StandInDesign;

enum class Arrays { Device, Pageable, Pinned };
std::string label(Arrays a, int copy_threads) {
  if (a == Arrays::Device) return "device";
  if (a == Arrays::Pinned) return "host, PinnedHostRange";
  return "host, pageable (" + std::to_string(copy_threads) + " copy threads)";
}

// The positions of every iteration (movable cells moved, fillers as they are).
struct Schedule {
  std::vector<std::vector<float>> x, y;
};

constexpr double kPileFraction = 0.01;

Schedule make_schedule(const StandInDesign& d, int iterations) {
  Schedule s;
  const size_t nm = d.movable.widths.size();
  const double cx = 0.5 * d.W, cy = 0.5 * d.H;
  for (int t = 0; t < iterations; ++t) {
    const double u = iterations > 1 ? static_cast<double>(t) / (iterations - 1) : 1.0;
    const double e = std::pow(kPileFraction, 1.0 - std::sqrt(u));
    std::vector<float> x = d.x, y = d.y;
    for (size_t c = 0; c < nm; ++c) {
      const double hw = 0.5 * d.movable.widths[c], hh = 0.5 * d.movable.heights[c];
      x[c] = static_cast<float>(cx + e * (d.x[c] + hw - cx) - hw);
      y[c] = static_cast<float>(cy + e * (d.y[c] + hh - cy) - hh);
    }
    s.x.push_back(std::move(x));
    s.y.push_back(std::move(y));
  }
  return s;
}

struct LoopRow {
  Arrays arrays = Arrays::Device;
  int copy_threads = 0;  // pageable: the host threads that copied
  double spread_ms = 0;  // median evaluate at the final (spread) positions
  double average_ms = 0, worst_ms = 0;
  int worst_iteration = 0;
  std::vector<double> per_iteration_ms;
  std::vector<double> max_density;  // per iteration
};

struct DesignRow {
  std::string name;
  long long movable = 0, fillers = 0;
  int bins = 0;
  double bus_ms = 0;  // x, y up and gx, gy down at the page-locked rate
  double bus_gbps = 0;
  std::vector<LoopRow> loops;
};

#if EFIELD_HAS_CUDA
void check(cudaError_t e) {
  if (e != cudaSuccess) throw efield::Error(std::string("bench_placement_loop: ") + cudaGetErrorString(e));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Moving x, y to the device and gx, gy back from page-locked memory (cudaMemcpy, median of 20).
double bus_time_ms(size_t nc) {
  const size_t bytes = nc * sizeof(float);
  const efield::test::DeviceArray<float> device(2 * nc);
  float *host = nullptr, *dev = device.get();
  check(cudaMallocHost(&host, 2 * bytes));
  std::fill(host, host + 2 * nc, 1.0f);
  std::vector<double> samples;
  for (int r = 0; r < 25; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaMemcpy(dev, host, 2 * bytes, cudaMemcpyHostToDevice));
    check(cudaMemcpy(host, dev, 2 * bytes, cudaMemcpyDeviceToHost));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r >= 5) samples.push_back(ms);
  }
  cudaFreeHost(host);
  return median(samples);
}

LoopRow run_loop(const StandInDesign& d, const Schedule& s, Arrays arrays, int copy_threads, int passes,
                 int spread_reps) {
  const int threads_before = efield::detail::set_host_copy_threads(copy_threads);
  const efield::ElectrostaticOptions o = efield::bench::stand_in_options(d);  // deterministic, own stream
  efield::ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  LoopRow row;
  row.copy_threads = efield::detail::host_copy_threads();
  efield::detail::set_host_copy_threads(threads_before);
  const size_t nc = d.x.size(), bytes = nc * sizeof(float);
  const int T = static_cast<int>(s.x.size());
  std::vector<float> hx(nc), hy(nc), hgx(nc), hgy(nc);
  std::vector<efield::PinnedHostRange> pins;
  if (arrays == Arrays::Pinned)
    for (std::vector<float>* v : {&hx, &hy, &hgx, &hgy}) pins.emplace_back(v->data(), bytes);
  const bool on_device = arrays == Arrays::Device;
  const std::size_t device_count = on_device ? nc : 0;
  const efield::test::DeviceArray<float> ddx(device_count), ddy(device_count), ddgx(device_count),
      ddgy(device_count);
  float *dx = ddx.get(), *dy = ddy.get(), *dgx = ddgx.get(), *dgy = ddgy.get();
  float* x = on_device ? dx : hx.data();
  float* y = on_device ? dy : hy.data();
  float* gx = on_device ? dgx : hgx.data();
  float* gy = on_device ? dgy : hgy.data();
  const auto place = [&](int t) {  // the placer's new positions, outside the timed region
    if (on_device) {
      check(cudaMemcpy(dx, s.x[t].data(), bytes, cudaMemcpyHostToDevice));
      check(cudaMemcpy(dy, s.y[t].data(), bytes, cudaMemcpyHostToDevice));
    } else {
      std::copy(s.x[t].begin(), s.x[t].end(), hx.begin());
      std::copy(s.y[t].begin(), s.y[t].end(), hy.begin());
    }
  };
  const auto timed = [&](efield::EvaluateResult* r) {
    const auto t0 = std::chrono::steady_clock::now();
    *r = es.evaluate(x, y, gx, gy);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  efield::EvaluateResult r;
  for (int t : {0, T - 1, 0, T - 1}) {  // warm-up: both accumulators' graphs captured
    place(t);
    timed(&r);
  }
  row.arrays = arrays;
  std::vector<std::vector<double>> samples(T);
  row.max_density.assign(T, 0.0);
  for (int p = 0; p < passes; ++p)
    for (int t = 0; t < T; ++t) {
      place(t);
      samples[t].push_back(timed(&r));
      row.max_density[t] = r.max_density;
    }
  double sum = 0;
  for (int t = 0; t < T; ++t) {
    const double ms = median(samples[t]);
    row.per_iteration_ms.push_back(ms);
    sum += ms;
    if (ms > row.worst_ms) row.worst_ms = ms, row.worst_iteration = t;
  }
  row.average_ms = sum / T;
  place(T - 1);
  std::vector<double> spread;
  for (int k = 0; k < spread_reps; ++k) spread.push_back(timed(&r));
  row.spread_ms = median(spread);
  return row;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The density side of a whole placement replayed: evaluate on positions that spread from a pile at "
               "the centre to uniformly random ones, on the adaptec1-like and bigblue4-like stand-ins (float, "
               "deterministic, CUDA), with device, pageable host and page-locked host arrays: per-iteration "
               "average, worst iteration, and the spread point.",
               "bench_placement_loop"};
  std::string markdown, only;
  int iterations = 40, passes = 3, spread_reps = 30;
  std::vector<int> copy_threads;
  app.add_option("--markdown", markdown, "also write the tables to FILE")->type_name("FILE");
  app.add_option("--iterations", iterations, "iterations of the schedule, pile to spread")
      ->check(efield::bench::at_least(10))
      ->capture_default_str();
  app.add_option("--passes", passes, "passes over the schedule (each iteration: the median)")
      ->check(efield::bench::at_least(1))
      ->capture_default_str();
  app.add_option("--spread-reps", spread_reps, "timed evaluates at the spread positions")
      ->check(efield::bench::at_least(5))
      ->capture_default_str();
  app.add_option("--copy-threads", copy_threads,
                 "pageable arrays: time each of these host-copy thread counts, comma-separated (default: the "
                 "library's)")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  app.add_option("--only", only, "run one design only")->check(CLI::IsMember({"adaptec1", "bigblue4"}));
  CLI11_PARSE(app, argc, argv);
#if !EFIELD_HAS_CUDA
  std::printf("bench_placement_loop: built without CUDA; nothing to measure\n");
  return 0;
#else
  if (efield::cuda_device_count() == 0) {
    std::printf("bench_placement_loop: no CUDA device\n");
    return 0;
  }
  std::vector<DesignRow> rows;
  try {
    for (const char* name : {"adaptec1", "bigblue4"}) {
      if (!only.empty() && only != name) continue;
      const StandInDesign d = efield::bench::make_ispd_stand_in(name, efield::bench::StandInPlacement::Random);
      const Schedule s = make_schedule(d, iterations);
      DesignRow row;
      row.name = d.name;
      row.movable = static_cast<long long>(d.movable.widths.size());
      row.fillers = static_cast<long long>(d.fillers.widths.size());
      row.bins = d.bins;
      row.bus_ms = bus_time_ms(d.x.size());
      row.bus_gbps = 4.0 * d.x.size() * sizeof(float) / (row.bus_ms * 1e6);
      row.loops.push_back(run_loop(d, s, Arrays::Device, 0, passes, spread_reps));
      for (int t : copy_threads.empty() ? std::vector<int>{0} : copy_threads)
        row.loops.push_back(run_loop(d, s, Arrays::Pageable, t, passes, spread_reps));
      row.loops.push_back(run_loop(d, s, Arrays::Pinned, 0, passes, spread_reps));
      rows.push_back(std::move(row));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_placement_loop: %s\n", e.what());
    return 1;
  }
  std::string md;
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "# The placement loop: evaluate from piled to spread\n\n%s, %s, commit %s. float, deterministic, "
                "%d iterations from a pile of 1 %% of the side at the centre to uniformly random positions "
                "(bench_placement_loop.cpp says how), each the median of %d passes (steady_clock around evaluate, "
                "positions written before); spread: median of %d evaluates at the last iteration's positions. "
                "bus: x, y up and the gradient down by cudaMemcpy from page-locked memory; ratio: the host-array "
                "time over (the device-array time + bus).\n\n",
                efield::bench::device_name().c_str(), efield::bench::today().c_str(),
                efield::bench::source_commit().c_str(), iterations, passes, spread_reps);
  md += buf;
  md += "| design | movable + fillers | bins | arrays | spread ms | loop average ms | worst ms (iteration, max "
        "density) | bus ms | ratio spread | ratio loop |\n"
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const DesignRow& r : rows) {
    const LoopRow& dev = r.loops.front();
    for (const LoopRow& l : r.loops) {
      const bool host = l.arrays != Arrays::Device;
      std::snprintf(buf, sizeof buf, "| %s | %lld + %lld | %dx%d | %s | %.3f | %.3f | %.3f (%d, %.0f) | %s | %s | %s |\n",
                    r.name.c_str(), r.movable, r.fillers, r.bins, r.bins, label(l.arrays, l.copy_threads).c_str(), l.spread_ms,
                    l.average_ms, l.worst_ms, l.worst_iteration, l.max_density[l.worst_iteration],
                    host ? (std::to_string(r.bus_ms).substr(0, 5) + " (" + std::to_string(r.bus_gbps).substr(0, 4) +
                            " GB/s)").c_str()
                         : "-",
                    host ? std::to_string(l.spread_ms / (dev.spread_ms + r.bus_ms)).substr(0, 4).c_str() : "-",
                    host ? std::to_string(l.average_ms / (dev.average_ms + r.bus_ms)).substr(0, 4).c_str() : "-");
      md += buf;
    }
  }
  md += "\nThe schedule (device arrays): max density and evaluate ms at a few iterations:\n\n"
        "| design | iteration | max density | ms |\n| --- | ---: | ---: | ---: |\n";
  for (const DesignRow& r : rows) {
    const LoopRow& dev = r.loops.front();
    const int T = static_cast<int>(dev.per_iteration_ms.size());
    for (int t : {0, T / 8, T / 4, T / 2, T - 1}) {
      std::snprintf(buf, sizeof buf, "| %s | %d | %.1f | %.3f |\n", r.name.c_str(), t, dev.max_density[t],
                    dev.per_iteration_ms[t]);
      md += buf;
    }
  }
  std::printf("%s", md.c_str());
  if (!markdown.empty()) {
    try {
      efield::bench::save_text(markdown, md);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_placement_loop: %s\n", e.what());
      return 1;
    }
  }
  return 0;
#endif
}
