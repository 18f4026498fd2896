// bench_multi_field: many electrostatic fields in one MultiFieldSystem::evaluate against the same
// fields built and evaluated one by one (float, deterministic; median of --reps runs after a
// warm-up, the variants of a row in turns; CUDA events around each call on the CUDA backend,
// steady_clock on the CPU).
//   (a) fence regions: a synthetic design of adaptec1's scale (its cell count, terminals and
//       utilization, 512 x 512 bins) with K fences, for each K of --fences: the K + 1 fields in
//       one evaluate, the same K + 1 fields as separately built ElectrostaticSystems evaluated one
//       after the other (DREAMPlace 3.0's way: one op per field), and one field without fences
//       (all movable cells, make_fillers' fillers) for scale.
//   (b) a batch of --batch placements of one ibm01-sized design (12,752 movable cells, 64 x 64
//       bins), each at its own random positions: one evaluate of the batch (make_batch_fields)
//       against one ElectrostaticSystem per placement evaluated in a loop; evaluates (of one
//       placement) per second.
// "batched" is MultiFieldPipeline::PerField (each field's pipeline, the fields on forked streams);
// on CUDA both parts also time MultiFieldPipeline::Batched ("one pipeline" over all fields, what
// Auto picks there) in the same turns.
// Positions and gradients are device arrays on CUDA, host arrays on the CPU backend.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/timing.hpp"
#include "efield/efield.hpp"
#include "efield/multi_field_system.hpp"
#include "support/device_array.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using efield::bench::TimingResult;

// Position and gradient arrays of n entries, on the device (CUDA) or the host.
struct Arrays {
  std::vector<float> hx, hy, hgx, hgy;
#if EFIELD_HAS_CUDA
  std::unique_ptr<efield::test::DeviceArray<float>> dx, dy, dgx, dgy;
#endif
  float *x = nullptr, *y = nullptr, *gx = nullptr, *gy = nullptr;

  Arrays(const std::vector<float>& x0, const std::vector<float>& y0, bool device)
      : hx(x0), hy(y0), hgx(x0.size()), hgy(x0.size()) {
    x = hx.data(), y = hy.data(), gx = hgx.data(), gy = hgy.data();
#if EFIELD_HAS_CUDA
    if (device) {
      dx = std::make_unique<efield::test::DeviceArray<float>>(hx);
      dy = std::make_unique<efield::test::DeviceArray<float>>(hy);
      dgx = std::make_unique<efield::test::DeviceArray<float>>(hx.size());
      dgy = std::make_unique<efield::test::DeviceArray<float>>(hx.size());
      x = dx->get(), y = dy->get(), gx = dgx->get(), gy = dgy->get();
    }
#else
    (void)device;
#endif
  }
};

// The same fields in MultiFieldPipeline::Batched (CUDA only; nullptr on the CPU backend).
std::unique_ptr<efield::MultiFieldSystem> batched_pipeline(efield::MultiFieldOptions o,
                                                           const std::vector<efield::FieldSpec>& fields) {
  if (o.system.backend != efield::Backend::Cuda) return nullptr;
  o.pipeline = efield::MultiFieldPipeline::Batched;
  return std::make_unique<efield::MultiFieldSystem>(o, fields);
}

// The variants' timings, the batched pipeline's last when it exists.
void add_pipelined(std::vector<std::function<void()>>& variants, efield::MultiFieldSystem* one, const Arrays& a) {
  if (one) variants.push_back([one, &a] { one->evaluate(a.x, a.y, a.gx, a.gy); });
}

struct Context {
  efield::Backend backend = efield::Backend::Cpu;
  efield::Stream stream = nullptr;
  efield::bench::TimingOptions timing;
  int cpu_threads = 0;

  // Times the variants in turns (each warmed up, then one run of each per round, `repetitions`
  // rounds), so that a machine's load changing over time weighs on all of them alike.
  std::vector<TimingResult> time_in_turns(const std::vector<std::function<void()>>& variants) const {
    efield::bench::TimingOptions warm{timing.warmup, 1}, once{0, 1};
    for (const auto& fn : variants) time_one(fn, warm);
    std::vector<std::vector<double>> samples(variants.size());
    for (int r = 0; r < timing.repetitions; ++r)
      for (std::size_t v = 0; v < variants.size(); ++v) samples[v].push_back(time_one(variants[v], once).median_ms);
    std::vector<TimingResult> out;
    for (auto& s : samples) out.push_back(efield::bench::summarize(std::move(s)));
    return out;
  }
  TimingResult time_one(const std::function<void()>& fn, const efield::bench::TimingOptions& t) const {
    return backend == efield::Backend::Cuda ? efield::bench::time_cuda(fn, stream, t) : efield::bench::time_host(fn, t);
  }
  efield::ElectrostaticOptions options(const efield::Region& r, int bins) const {
    efield::ElectrostaticOptions o;
    o.xl = r.xl, o.yl = r.yl, o.xh = r.xh, o.yh = r.yh;
    o.num_bins_x = o.num_bins_y = bins;
    o.precision = efield::Precision::Float;
    o.backend = backend;
    o.stream = stream;
    o.cpu_threads = cpu_threads;
    return o;
  }
};

float uniform_in(std::mt19937_64& rng, double lo, double hi) {
  return static_cast<float>(lo + std::uniform_real_distribution<double>(0, 1)(rng) * std::max(0.0, hi - lo));
}

// ---- (a) fence regions ----

struct FenceRow {
  int fences = 0;
  long long movable = 0, fillers = 0, blockages = 0;
  TimingResult batched, separate, single;
  TimingResult pipelined;  // MultiFieldPipeline::Batched (CUDA; else not timed: median_ms 0)
};

FenceRow run_fences(const Context& c, int num_fences, double scale, int bins) {
  efield::SyntheticDesignSpec spec = efield::ispd2005_standin_spec("adaptec1");
  spec.num_movable = std::max<std::int64_t>(1000, static_cast<std::int64_t>(scale * spec.num_movable));
  spec.num_fixed_macros = std::max(8, static_cast<int>(scale * spec.num_fixed_macros));
  spec.num_fences = num_fences;
  spec.with_nets = false;
  const efield::Design design = efield::generate_synthetic_design(spec);
  const efield::PlacementInputs in = efield::placement_inputs(design);
  const efield::Region& r = in.region;
  std::vector<int> region_id(in.movable_nodes.size());
  for (std::size_t i = 0; i < region_id.size(); ++i) region_id[i] = design.region_id[in.movable_nodes[i]];
  efield::RegionFillerOptions fo;
  fo.row_height = in.row_height;
  const std::vector<efield::RegionFillerSpec> fillers =
      efield::make_region_fillers(in.movable, region_id, design.fences, in.fixed, r.xl, r.yl, r.xh, r.yh, fo);
  const std::vector<efield::FieldSpec> fields =
      efield::make_fence_fields(in.movable, region_id, design.fences, in.fixed, r.xl, r.yl, r.xh, r.yh, fillers);
  const std::int64_t entries =
      efield::fence_fields_num_entries(static_cast<std::int64_t>(in.movable_nodes.size()), fillers);

  // Movable cells where the generator put them (fenced ones inside their fence), fillers
  // uniformly at random in the region.
  std::mt19937_64 rng(7);
  std::vector<float> x(entries), y(entries);
  for (std::size_t i = 0; i < in.movable_nodes.size(); ++i)
    x[i] = static_cast<float>(in.movable_x[i]), y[i] = static_cast<float>(in.movable_y[i]);
  FenceRow row;
  row.fences = num_fences;
  row.movable = static_cast<long long>(in.movable_nodes.size());
  for (const efield::FieldSpec& f : fields) {
    for (std::size_t j = 0; j < f.filler_index.size(); ++j) {
      x[f.filler_index[j]] = uniform_in(rng, r.xl, r.xh - f.fillers.widths[j]);
      y[f.filler_index[j]] = uniform_in(rng, r.yl, r.yh - f.fillers.heights[j]);
    }
    row.fillers += static_cast<long long>(f.filler_index.size());
    row.blockages += static_cast<long long>(f.fixed.widths.size() - in.fixed.widths.size());
  }
  Arrays a(x, y, c.backend == efield::Backend::Cuda);

  efield::MultiFieldOptions mo;
  mo.system = c.options(r, bins);
  mo.num_entries = entries;
  mo.pipeline = efield::MultiFieldPipeline::PerField;
  efield::MultiFieldSystem mf(mo, fields);
  const std::unique_ptr<efield::MultiFieldSystem> one = batched_pipeline(mo, fields);
  // DREAMPlace 3.0's way: one system per field over the field's own contiguous arrays.
  std::vector<efield::ElectrostaticSystem> systems;
  std::vector<std::unique_ptr<Arrays>> per_field;
  for (const efield::FieldSpec& f : fields) {
    efield::ElectrostaticOptions o = c.options(r, bins);
    o.target_density = f.target_density;
    systems.emplace_back(o, f.movable, f.fillers, f.fixed);
    std::vector<float> fx, fy;
    for (const auto* idx : {&f.movable_index, &f.filler_index})
      for (std::int64_t e : *idx) fx.push_back(x[e]), fy.push_back(y[e]);
    per_field.push_back(std::make_unique<Arrays>(fx, fy, c.backend == efield::Backend::Cuda));
  }
  // One field without fences: all movable cells, make_fillers' fillers.
  const efield::FillerSpec fs = efield::make_fillers(in.movable, in.fixed, r.xl, r.yl, r.xh, r.yh, 1.0, in.row_height);
  efield::ElectrostaticSystem single(c.options(r, bins), in.movable, fs.sizes(), in.fixed);
  std::vector<float> sx(x.begin(), x.begin() + row.movable), sy(y.begin(), y.begin() + row.movable);
  for (std::int64_t j = 0; j < fs.count; ++j)
    sx.push_back(uniform_in(rng, r.xl, r.xh - fs.width)), sy.push_back(uniform_in(rng, r.yl, r.yh - fs.height));
  Arrays s(sx, sy, c.backend == efield::Backend::Cuda);

  std::vector<std::function<void()>> variants = {
      [&] { mf.evaluate(a.x, a.y, a.gx, a.gy); },
      [&] {
        for (std::size_t k = 0; k < systems.size(); ++k) {
          Arrays& f = *per_field[k];
          systems[k].evaluate(f.x, f.y, f.gx, f.gy);
        }
      },
      [&] { single.evaluate(s.x, s.y, s.gx, s.gy); },
  };
  add_pipelined(variants, one.get(), a);
  const std::vector<TimingResult> t = c.time_in_turns(variants);
  row.batched = t[0], row.separate = t[1], row.single = t[2];
  if (one) row.pipelined = t[3];
  return row;
}

// ---- (b) a batch of placements ----

struct BatchRow {
  int count = 0;
  long long movable = 0, fillers = 0;
  TimingResult batched, loop;
  TimingResult pipelined;  // MultiFieldPipeline::Batched (CUDA; else not timed: median_ms 0)
};

BatchRow run_batch(const Context& c, int count, int bins) {
  efield::SyntheticDesignSpec spec;
  spec.name = "ibm01-sized";
  spec.num_movable = 12752;
  spec.num_fixed_macros = 40;
  spec.num_io_pads = 200;
  spec.with_nets = false;
  const efield::Design design = efield::generate_synthetic_design(spec);
  const efield::PlacementInputs in = efield::placement_inputs(design);
  const efield::Region& r = in.region;
  const efield::CellSizes fillers =
      efield::make_fillers(in.movable, in.fixed, r.xl, r.yl, r.xh, r.yh, 1.0, in.row_height).sizes();
  const std::int64_t n = static_cast<std::int64_t>(in.movable.widths.size());
  const std::int64_t stride = n + static_cast<std::int64_t>(fillers.widths.size());
  std::vector<float> x(count * stride), y(count * stride);
  for (int k = 0; k < count; ++k) {  // member k: its own seed, cells uniformly at random
    std::mt19937_64 rng(1000 + k);
    for (std::int64_t i = 0; i < stride; ++i) {
      const double w = i < n ? in.movable.widths[i] : fillers.widths[i - n];
      const double h = i < n ? in.movable.heights[i] : fillers.heights[i - n];
      x[k * stride + i] = uniform_in(rng, r.xl, r.xh - w), y[k * stride + i] = uniform_in(rng, r.yl, r.yh - h);
    }
  }
  Arrays a(x, y, c.backend == efield::Backend::Cuda);
  BatchRow row;
  row.count = count;
  row.movable = n;
  row.fillers = static_cast<long long>(fillers.widths.size());
  efield::MultiFieldOptions mo;
  mo.system = c.options(r, bins);
  mo.num_entries = count * stride;
  mo.pipeline = efield::MultiFieldPipeline::PerField;
  const std::vector<efield::FieldSpec> fields = efield::make_batch_fields(count, in.movable, fillers, in.fixed, 1.0);
  efield::MultiFieldSystem mf(mo, fields);
  const std::unique_ptr<efield::MultiFieldSystem> one = batched_pipeline(mo, fields);
  std::vector<efield::ElectrostaticSystem> systems;
  for (int k = 0; k < count; ++k) systems.emplace_back(c.options(r, bins), in.movable, fillers, in.fixed);
  std::vector<std::function<void()>> variants = {
      [&] { mf.evaluate(a.x, a.y, a.gx, a.gy); },
      [&] {
        for (int k = 0; k < count; ++k) {
          const std::int64_t b = k * stride;
          systems[k].evaluate(a.x + b, a.y + b, a.gx + b, a.gy + b);
        }
      },
  };
  add_pipelined(variants, one.get(), a);
  const std::vector<TimingResult> t = c.time_in_turns(variants);
  row.batched = t[0], row.loop = t[1];
  if (one) row.pipelined = t[2];
  return row;
}

std::string number(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    try {
      std::size_t used = 0;
      const int v = std::stoi(item, &used);
      if (used != item.size() || v < 1 || v > 64) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw CLI::ValidationError("--fences", "expected whole numbers in 1..64 separated by commas, got '" + text + "'");
    }
    start = end + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "MultiFieldSystem: fence-region fields and batches of placements in one evaluate, against the same "
      "fields evaluated one by one (float, deterministic, median times).",
      "bench_multi_field"};
  std::string backend_name = "cuda", fences_text = "2,4,8", markdown;
  int batch = 64, reps = 100, fence_bins = 512, batch_bins = 64, threads = 0;
  double scale = 1.0;
  app.add_option("--backend", backend_name, "cuda or cpu")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  app.add_option("--fences", fences_text, "fence counts K of part (a), comma-separated (0 items: skip (a))")
      ->capture_default_str();
  app.add_option("--scale", scale, "part (a)'s movable cells as a fraction of adaptec1's 210,904")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  app.add_option("--fence-bins", fence_bins, "bins per axis of part (a)")
      ->check(CLI::Range(4, 4096))
      ->capture_default_str();
  app.add_option("--batch", batch, "placements in part (b) (0: skip (b))")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  app.add_option("--batch-bins", batch_bins, "bins per axis of part (b)")
      ->check(CLI::Range(4, 4096))
      ->capture_default_str();
  app.add_option("--reps", reps, "timed runs per measurement")
      ->check(efield::bench::at_least(3))
      ->capture_default_str();
  app.add_option("--threads", threads, "CPU backend threads (0: all)")->capture_default_str();
  app.add_option("--markdown", markdown, "also write the tables to FILE")->type_name("FILE");
  CLI11_PARSE(app, argc, argv);

  Context c;
  c.backend = backend_name == "cuda" ? efield::Backend::Cuda : efield::Backend::Cpu;
  c.timing.warmup = c.backend == efield::Backend::Cuda ? 10 : 2;
  c.timing.repetitions = reps;
  c.cpu_threads = threads;
  try {
    const std::vector<int> fence_counts = fences_text.empty() ? std::vector<int>{} : parse_list(fences_text);
#if EFIELD_HAS_CUDA
    cudaStream_t stream = nullptr;
    if (c.backend == efield::Backend::Cuda) {
      if (efield::cuda_device_count() == 0) {
        std::printf("bench_multi_field: no CUDA device (try --backend cpu)\n");
        return 0;
      }
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
        throw efield::Error("bench_multi_field: cannot create a CUDA stream");
      c.stream = stream;
    }
#else
    if (c.backend == efield::Backend::Cuda) {
      std::printf("bench_multi_field: built without CUDA (try --backend cpu)\n");
      return 0;
    }
#endif
    std::vector<FenceRow> fence_rows;
    for (int k : fence_counts) fence_rows.push_back(run_fences(c, k, scale, fence_bins));
    std::vector<BatchRow> batch_rows;
    if (batch > 0) batch_rows.push_back(run_batch(c, batch, batch_bins));
#if EFIELD_HAS_CUDA
    if (stream) cudaStreamDestroy(stream);
#endif

    std::string md;
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "# MultiFieldSystem\n\n%s, %s, commit %s. %s backend, float, deterministic, %s arrays; median of %d "
                  "runs after %d warm-up runs (%s), the variants of a row timed in turns.\n\n",
                  c.backend == efield::Backend::Cuda ? efield::bench::device_name().c_str() : "CPU",
                  efield::bench::today().c_str(), efield::bench::source_commit().c_str(), backend_name.c_str(),
                  c.backend == efield::Backend::Cuda ? "device" : "host", reps, c.timing.warmup,
                  c.backend == efield::Backend::Cuda ? "CUDA events around each call" : "steady_clock");
    md += buf;
    if (!fence_rows.empty()) {
      std::snprintf(buf, sizeof buf,
                    "(a) Fence regions: synthetic design, %.3g x adaptec1's cells, %d x %d bins. batched: one "
                    "MultiFieldSystem::evaluate of the K + 1 fields (MultiFieldPipeline::PerField); separate: K + 1 "
                    "ElectrostaticSystems evaluated one after the other; single: one field, no fences; one pipeline: "
                    "the same evaluate with MultiFieldPipeline::Batched (CUDA only; what Auto, the default, picks there).\n\n"
                    "| K | movable | fillers | blockage rects | batched ms | separate ms | single field ms | "
                    "batched / single | separate / single | separate / batched | one pipeline ms | "
                    "one pipeline / single |\n"
                    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                    scale, fence_bins, fence_bins);
      md += buf;
      for (const FenceRow& r : fence_rows) {
        const bool one = r.pipelined.median_ms > 0;
        std::snprintf(buf, sizeof buf,
                      "| %d | %lld | %lld | %lld | %.4f | %.4f | %.4f | %.2f | %.2f | %.2f | %s | %s |\n", r.fences,
                      r.movable, r.fillers, r.blockages, r.batched.median_ms, r.separate.median_ms,
                      r.single.median_ms, r.batched.median_ms / r.single.median_ms,
                      r.separate.median_ms / r.single.median_ms, r.separate.median_ms / r.batched.median_ms,
                      one ? number(r.pipelined.median_ms, "%.4f").c_str() : "-",
                      one ? number(r.pipelined.median_ms / r.single.median_ms, "%.2f").c_str() : "-");
        md += buf;
      }
      md += "\n";
    }
    for (const BatchRow& r : batch_rows) {
      const double per_s_batched = 1000.0 * r.count / r.batched.median_ms;
      const double per_s_loop = 1000.0 * r.count / r.loop.median_ms;
      const bool one = r.pipelined.median_ms > 0;
      const double per_s_one = one ? 1000.0 * r.count / r.pipelined.median_ms : 0.0;
      std::snprintf(buf, sizeof buf,
                    "(b) A batch of %d placements of one synthetic design (%lld movable cells, ibm01's count; %lld "
                    "fillers; %d x %d bins), each at its own random positions. batched: MultiFieldPipeline::PerField; one "
                    "pipeline: MultiFieldPipeline::Batched (CUDA only; what Auto, the default, picks there).\n\n"
                    "| placements | batched ms | loop of systems ms | batched evaluates/s | loop evaluates/s | "
                    "speed-up | one pipeline ms | one pipeline evaluates/s | one pipeline speed-up |\n"
                    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
                    "| %d | %.4f | %.4f | %.0f | %.0f | %.2f | %s | %s | %s |\n\n",
                    r.count, r.movable, r.fillers, batch_bins, batch_bins, r.count, r.batched.median_ms,
                    r.loop.median_ms, per_s_batched, per_s_loop, per_s_batched / per_s_loop,
                    one ? number(r.pipelined.median_ms, "%.4f").c_str() : "-",
                    one ? number(per_s_one, "%.0f").c_str() : "-",
                    one ? number(per_s_one / per_s_loop, "%.2f").c_str() : "-");
      md += buf;
    }
    std::printf("%s", md.c_str());
    if (!markdown.empty()) efield::bench::save_text(markdown, md);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_multi_field: %s\n", e.what());
    return 1;
  }
  return 0;
}
