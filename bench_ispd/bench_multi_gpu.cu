// bench_multi_gpu: evaluates per second of one ElectrostaticSystem per GPU, on 1..all GPUs of the
// machine, for one large random design (default: 2.6 M movable cells + fillers on 1024 x 1024
// bins, float, deterministic, device arrays), in two ways:
//   threads: one host thread per GPU, each with its own system, calling evaluate in a loop;
//   async:   one host thread driving every GPU's system with evaluate_async, then wait_result.
// Each GPU evaluates the same design (as independent placements would, e.g. parameter sweeps);
// the figure is the total over the GPUs, after a warm-up, from the wall time of the whole loop.
//   bench_multi_gpu [--cells N] [--bins B] [--iterations K] [--markdown FILE]
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "efield/efield.hpp"
#include "support/device_array.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw efield::Error(std::string("bench_multi_gpu: ") + what + ": " + cudaGetErrorString(e));
}

struct Design {
  efield::ElectrostaticOptions options;
  efield::CellSizes movable, fillers;
  std::vector<float> x, y;  // movable, then fillers
};

// Standard cells of height 12 and lognormal widths at 60 % utilization of a square region, the
// rest filled by make_fillers' fillers; positions uniformly random.
Design make_design(long long cells, int bins) {
  std::mt19937_64 gen(7);
  std::lognormal_distribution<double> width(std::log(6.0), 0.6);
  Design d;
  const long long movable = cells * 6 / 10;
  double area = 0;
  for (long long i = 0; i < movable; ++i) {
    const double w = std::max(1.0, std::min(80.0, std::round(width(gen))));
    d.movable.widths.push_back(w);
    d.movable.heights.push_back(12);
    area += 12 * w;
  }
  const double side = std::round(std::sqrt(area / 0.6));
  const efield::FillerSpec f = efield::make_fillers(d.movable, {}, 0, 0, side, side, 1.0, 12);
  d.fillers = f.sizes();
  d.options.xh = d.options.yh = side;
  d.options.num_bins_x = d.options.num_bins_y = bins;
  d.options.backend = efield::Backend::Cuda;
  std::uniform_real_distribution<double> u(0, side - 80);
  const size_t n = d.movable.widths.size() + d.fillers.widths.size();
  for (size_t c = 0; c < n; ++c) {
    d.x.push_back(static_cast<float>(u(gen)));
    d.y.push_back(static_cast<float>(u(gen)));
  }
  return d;
}

// One GPU's system and device arrays, made on that GPU.
struct GpuRun {
  int device = 0;
  std::unique_ptr<efield::ElectrostaticSystem> system;
  std::optional<efield::test::DeviceArray<float>> x, y, gx, gy;  // made once `device` is current
  GpuRun(const Design& d, int dev) : device(dev) {
    check(cudaSetDevice(dev), "cudaSetDevice");
    system = std::make_unique<efield::ElectrostaticSystem>(d.options, d.movable, d.fillers);
    x.emplace(d.x);
    y.emplace(d.y);
    gx.emplace(d.x.size());
    gy.emplace(d.x.size());
  }
  ~GpuRun() { cudaSetDevice(device); }  // the members are freed after this, on their device
  void evaluate() { system->evaluate(x->get(), y->get(), gx->get(), gy->get()); }
  void evaluate_async() { system->evaluate_async(x->get(), y->get(), gx->get(), gy->get()); }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Evaluates per second (all GPUs together) with one thread per GPU.
double threads_rate(std::vector<std::unique_ptr<GpuRun>>& gpus, int iterations) {
  for (auto& g : gpus) for (int i = 0; i < 5; ++i) g->evaluate();  // warm-up (graph capture)
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (auto& g : gpus)
    threads.emplace_back([&g, iterations] {
      for (int i = 0; i < iterations; ++i) g->evaluate();
    });
  for (std::thread& t : threads) t.join();
  return static_cast<double>(iterations) * static_cast<double>(gpus.size()) / seconds_since(t0);
}

// The same from one thread: every GPU's evaluate_async, then every wait_result.
double async_rate(std::vector<std::unique_ptr<GpuRun>>& gpus, int iterations) {
  for (auto& g : gpus) for (int i = 0; i < 5; ++i) g->evaluate_async();
  for (auto& g : gpus) g->system->wait_result();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    for (auto& g : gpus) g->evaluate_async();
    for (auto& g : gpus) g->system->wait_result();
  }
  return static_cast<double>(iterations) * static_cast<double>(gpus.size()) / seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Evaluates per second of one ElectrostaticSystem per GPU, on 1..all GPUs", "bench_multi_gpu"};
  long long cells = 2600000;
  int bins = 1024, iterations = 200;
  std::string markdown;
  app.add_option("--cells", cells, "movable cells + fillers (about)")->check(CLI::PositiveNumber);
  app.add_option("--bins", bins, "bins per axis")->check(CLI::Range(1, 4096));
  app.add_option("--iterations", iterations, "evaluates per GPU after the warm-up")->check(CLI::PositiveNumber);
  app.add_option("--markdown", markdown, "append the table to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    const int devices = efield::cuda_device_count();
    if (devices == 0) {
      std::printf("bench_multi_gpu: no CUDA device\n");
      return 0;
    }
    const Design d = make_design(cells, bins);
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::string table = "### " + std::string(prop.name) + " x " + std::to_string(devices) + ", " + date + "\n\n";
    table += std::to_string(d.movable.widths.size()) + " movable cells + " + std::to_string(d.fillers.widths.size()) +
             " fillers, " + std::to_string(bins) + " x " + std::to_string(bins) +
             " bins, float, deterministic, device arrays; " + std::to_string(iterations) + " evaluates per GPU\n\n";
    table += "| GPUs | threads: evaluates/s | per GPU | async from one thread: evaluates/s | per GPU |\n";
    table += "| ---: | ---: | ---: | ---: | ---: |\n";
    for (int n = 1; n <= devices; ++n) {
      std::vector<std::unique_ptr<GpuRun>> gpus;
      for (int dev = 0; dev < n; ++dev) gpus.push_back(std::make_unique<GpuRun>(d, dev));
      const double t = threads_rate(gpus, iterations);
      const double a = async_rate(gpus, iterations);
      char line[256];
      std::snprintf(line, sizeof line, "| %d | %.0f | %.0f | %.0f | %.0f |\n", n, t, t / n, a, a / n);
      table += line;
      std::printf("%s", line);
      std::fflush(stdout);
    }
    if (!markdown.empty()) std::ofstream(markdown, std::ios::app) << table << "\n";
    std::printf("\n%s", table.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
