// bench_electrostatics: one ElectrostaticSystem::evaluate on random ISPD-scale designs.
//   adaptec1-like: 210,904 movable cells + fillers, 63 fixed macros, 512 x 512 bins
//   bigblue4-like: 2,200,000 movable cells + fillers, 400 fixed macros, 2048 x 2048 bins
//   --only ibm01 / ibm05: the ICCAD04-scale stand-ins (64 x 64 and 128 x 128 bins, 0.015 ms target)
// float, deterministic, CUDA, device pointers (as a GPU placer calls it). Reports the median
// evaluate time (CUDA events around the call, after warm-up), the host wall time of the call,
// the per-stage split (profile_stages), and in-process references: the same pipeline without
// the CUDA graph, and the CPU backend.
// --sorted hands the positions out in spatial order (cells adjacent in index order are adjacent
// on the chip: cache locality for rasterize and gather); --piled puts every movable cell within
// 1 % of the region's side around its centre (a placer's first iterations: float's exact float
// bins overflow and evaluate runs again with 64-bit bins); --pile-side sets that fraction (a pile
// spreading out over a placer's iterations); default: uniformly random.
// --nondeterministic sets deterministic = false.
// --macros FRACTION also times each design with movable macros covering that fraction of the
// region (each of --macro-bins MIN MAX bins, log-uniform; the fillers unchanged) and reports the
// ratio to the design without them; --large-cells picks how movable large cells are handled
// (pipeline_policy.cuh's choice, one block or warp each, chunks of a block each, or the
// difference map: large_cells.cuh).
// --layouts also times the CUDA pipeline's accumulation layouts (64-bit bins in one map or in two,
// and the default) side by side in the same process, through the test and benchmark hook of
// src/electrostatics/pipeline_layout.hpp, and 64-bit bins as ElectrostaticOptions::plan_effort =
// Measure lays them out (its choice, and its construction time against the default's). --loop
// also times the evaluate in a placer's loop form (common/loop_timing.hpp). See --help.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/device_properties.hpp"
#include "common/ispd_stand_ins.hpp"
#include "common/loop_timing.hpp"
#include "common/timing.hpp"
#include "efield/efield.hpp"
#include "electrostatics/pipeline_layout.hpp"
#include "support/device_array.hpp"
#include "transforms/wisdom.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using efield::bench::StandInDesign;
using efield::bench::StandInPlacement;

// The layouts --layouts times (src/electrostatics/pipeline_layout.hpp).
struct NamedLayout {
  const char* name;
  efield::detail::EsPipelineLayout layout;
};
const NamedLayout kLayouts[] = {
    {"default", {}},
    {"64-bit bins, one map", {efield::detail::EsPipelineLayout::Maps::One, true}},
    {"64-bit bins, two maps", {efield::detail::EsPipelineLayout::Maps::Two, true}},
};

struct LayoutRow {
  const char* layout = "";
  std::string measured;        // plan_effort = Measure's row: its choice, construction times
  efield::bench::TimingResult graph;
  efield::StageTimes stages;
  efield::EvaluateResult result;
};

struct Row {
  std::string design;
  long long movable = 0, fillers = 0;
  int bins = 0;
  double side = 0;
  efield::bench::TimingResult graph, nograph, host_wall, cpu;
  bool have_cpu = false;
  efield::StageTimes stages;
  efield::EvaluateResult result;
  std::vector<LayoutRow> layouts;
  efield::bench::LoopTiming loop;  // --loop
  double macro_ratio = 0;  // --macros: evaluate time over the same design's without macros
};

#if EFIELD_HAS_CUDA
void check(cudaError_t e) {
  if (e != cudaSuccess) throw efield::Error(std::string("bench_electrostatics: ") + cudaGetErrorString(e));
}

double construction_ms(const efield::ElectrostaticOptions& o, const StandInDesign& d) {
  const auto t0 = std::chrono::steady_clock::now();
  { efield::ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed); }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// 64-bit bins (float's exact float maps off) laid out by plan_effort = Measure, the wisdom
// forgotten first so that it measures: its evaluate, the choice it kept, and the construction
// time against the default effort's.
LayoutRow run_measured(const efield::ElectrostaticOptions& o, const StandInDesign& d, float* x, float* y, float* gx,
                       float* gy, cudaStream_t stream, const efield::bench::TimingOptions& t, int reps) {
  const efield::detail::EsPipelineLayout before =
      efield::detail::set_es_pipeline_layout({efield::detail::EsPipelineLayout::Maps::BySize, true});
  LayoutRow lr;
  lr.layout = "64-bit bins, plan_effort = Measure";
  efield::ElectrostaticOptions om = o;
  om.plan_effort = efield::PlanEffort::Measure;
  const double estimate_ms = construction_ms(o, d);
  efield::forget_wisdom();
  const double measure_ms = construction_ms(om, d);
  {
    efield::ElectrostaticSystem es(om, d.movable, d.fillers, d.fixed);  // the wisdom's choice now
    lr.graph = efield::bench::time_cuda([&] { lr.result = es.evaluate(x, y, gx, gy); }, stream, t);
    lr.stages = es.profile_stages(x, y, gx, gy, reps);
  }
  std::string text = efield::detail::Wisdom::process().text(efield::detail::current_device_identity());
  const std::size_t at = text.find("es2d ");
  std::string choice = at == std::string::npos ? "no es2d line" : text.substr(at, text.find('\n', at) - at);
  char buf[256];
  std::snprintf(buf, sizeof buf, "wisdom: \"%s\"; construction %.1f ms (default effort %.1f ms)", choice.c_str(),
                measure_ms, estimate_ms);
  lr.measured = buf;
  efield::forget_wisdom();
  efield::detail::set_es_pipeline_layout(before);
  return lr;
}

Row run(const StandInDesign& d, int reps, bool with_cpu, bool layouts, bool deterministic, bool loop) {
  efield::ElectrostaticOptions o = efield::bench::stand_in_options(d);
  o.deterministic = deterministic;
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  o.stream = stream;
  const size_t nc = d.x.size();
  const efield::test::DeviceArray<float> dx(d.x), dy(d.y), dgx(nc), dgy(nc);
  float *x = dx.get(), *y = dy.get(), *gx = dgx.get(), *gy = dgy.get();

  Row row;
  row.design = d.name;
  row.movable = static_cast<long long>(d.movable.widths.size());
  row.fillers = static_cast<long long>(d.fillers.widths.size());
  row.bins = d.bins;
  row.side = d.W;
  efield::bench::TimingOptions t;
  t.warmup = 10;
  t.repetitions = reps;
  {
    efield::ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    row.graph = efield::bench::time_cuda([&] { row.result = es.evaluate(x, y, gx, gy); }, stream, t);
    row.host_wall = efield::bench::time_host([&] { es.evaluate(x, y, gx, gy); }, t);
    row.stages = es.profile_stages(x, y, gx, gy, reps);
  }
  {
    efield::ElectrostaticOptions og = o;
    og.use_cuda_graph = false;
    efield::ElectrostaticSystem es(og, d.movable, d.fillers, d.fixed);
    row.nograph = efield::bench::time_cuda([&] { es.evaluate(x, y, gx, gy); }, stream, t);
  }
  if (layouts) {
    for (const NamedLayout& l : kLayouts) {
      const efield::detail::EsPipelineLayout before = efield::detail::set_es_pipeline_layout(l.layout);
      LayoutRow lr;
      lr.layout = l.name;
      {
        efield::ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
        lr.graph = efield::bench::time_cuda([&] { lr.result = es.evaluate(x, y, gx, gy); }, stream, t);
        lr.stages = es.profile_stages(x, y, gx, gy, reps);
      }
      efield::detail::set_es_pipeline_layout(before);
      row.layouts.push_back(lr);
    }
    row.layouts.push_back(run_measured(o, d, x, y, gx, gy, stream, t, reps));
  }
  if (loop) row.loop = efield::bench::time_loop(d, o, x, y, gx, gy, reps);
  if (with_cpu) {
    efield::ElectrostaticOptions oc = o;
    oc.backend = efield::Backend::Cpu;
    oc.stream = nullptr;
    efield::ElectrostaticSystem es(oc, d.movable, d.fillers, d.fixed);
    std::vector<float> hx = d.x, hy = d.y, hgx(nc), hgy(nc);
    efield::bench::TimingOptions tc;
    tc.warmup = 1;
    tc.repetitions = 5;
    row.cpu = efield::bench::time_host([&] { es.evaluate(hx.data(), hy.data(), hgx.data(), hgy.data()); }, tc);
    row.have_cpu = true;
  }
  cudaStreamDestroy(stream);
  return row;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"One ElectrostaticSystem::evaluate on random ISPD-scale designs (adaptec1-like: 512 x 512 bins, "
               "bigblue4-like: 2048 x 2048), float, CUDA, device pointers: the median evaluate, host wall time, "
               "per-stage split, and the same pipeline without the CUDA graph and on the CPU backend.",
               "bench_electrostatics"};
  std::string markdown, only;
  int reps = 100;
  bool no_cpu = false, sorted = false, piled = false, nondeterministic = false;
  bool layouts = false, loop = false;
  double pile_side = 0.01, macros = 0;
  std::vector<double> macro_bins{100, 10000};
  std::string large_cells = "policy";
  app.add_option("--markdown", markdown, "also write the tables to FILE")->type_name("FILE");
  app.add_option("--reps", reps, "timed evaluates per design")->check(efield::bench::at_least(50))->capture_default_str();
  app.add_option("--only", only, "run one design only")
      ->check(CLI::IsMember({"adaptec1", "bigblue4", "ibm01", "ibm05"}));
  app.add_flag("--no-cpu", no_cpu, "skip the CPU backend reference");
  CLI::Option* sorted_opt =
      app.add_flag("--sorted", sorted, "positions in spatial order (cells adjacent in index order are adjacent)");
  app.add_flag("--piled", piled, "movable cells piled around the centre (a placer's start; --pile-side)")
      ->excludes(sorted_opt);
  app.add_option("--pile-side", pile_side, "with --piled: the pile's side as a fraction of the region's")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_flag("--nondeterministic", nondeterministic, "deterministic = false");
  app.add_option("--macros", macros,
                 "also time each design with movable macros covering this fraction of the region (ratio to without)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--macro-bins", macro_bins, "with --macros: the macros' sizes in bins, MIN MAX (log-uniform)")
      ->expected(2)
      ->capture_default_str();
  app.add_option("--large-cells", large_cells, "movable large cells: as the policy decides, a block each, in chunks, "
                 "or by difference map and summed-area tables")
      ->check(CLI::IsMember({"policy", "blocks", "chunks", "diff"}))
      ->capture_default_str();
  app.add_flag("--layouts", layouts,
               "also time each accumulation layout of the CUDA pipeline (64-bit bins in one map or two, and the "
               "default) side by side, and 64-bit bins as plan_effort = Measure lays them out");
  app.add_flag("--loop", loop,
               "also time the evaluate in a placer's loop form (evaluate_async + wait_result, accumulating, a new "
               "weight each call)");
  CLI11_PARSE(app, argc, argv);
  const bool with_cpu = !no_cpu, deterministic = !nondeterministic;
  const StandInPlacement placement = sorted ? StandInPlacement::Sorted
                                     : piled  ? StandInPlacement::Piled
                                              : StandInPlacement::Random;
#if !EFIELD_HAS_CUDA
  std::printf("bench_electrostatics: built without CUDA; nothing to measure\n");
  return 0;
#else
  if (efield::cuda_device_count() == 0) {
    std::printf("bench_electrostatics: no CUDA device\n");
    return 0;
  }
  std::vector<Row> rows;
  using LargeCells = efield::detail::EsPipelineLayout::LargeCells;
  efield::detail::EsPipelineLayout chosen;
  chosen.large_cells = large_cells == "blocks"   ? LargeCells::Blocks
                       : large_cells == "chunks" ? LargeCells::Chunks
                       : large_cells == "diff"   ? LargeCells::DifferenceMap
                                                 : LargeCells::ByPolicy;
  efield::detail::set_es_pipeline_layout(chosen);
  try {
    // The ICCAD04-scale stand-ins run only on request (--only ibm01 / ibm05).
    for (const char* name : {"adaptec1", "bigblue4", "ibm01", "ibm05"}) {
      const bool small = name[0] == 'i';
      if (only.empty() ? small : only != name) continue;
      StandInDesign d = efield::bench::make_ispd_stand_in(name, placement, pile_side);
      rows.push_back(run(d, reps, with_cpu, layouts, deterministic, loop));
      if (macros > 0) {
        efield::bench::add_movable_macros(d, macros, macro_bins[0], macro_bins[1], 41);
        char label[160];
        std::snprintf(label, sizeof label,
                      "%s + %zu movable macros (%g %% of the region, %g..%g bins; large cells: %s)", d.name.c_str(),
                      d.movable.widths.size() - static_cast<size_t>(rows.back().movable), 100 * macros,
                      macro_bins[0], macro_bins[1], large_cells.c_str());
        d.name = label;
        rows.push_back(run(d, reps, with_cpu, layouts, deterministic, loop));
        rows.back().macro_ratio = rows.back().graph.median_ms / rows[rows.size() - 2].graph.median_ms;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_electrostatics: %s\n", e.what());
    return 1;
  }
  std::string md;
  char buf[1024];
  char pile[160];
  std::snprintf(pile, sizeof pile,
                "movable cells piled within %g %% of the side around the centre, as at a placer's start",
                100 * pile_side);
  std::snprintf(buf, sizeof buf, "# ElectrostaticSystem::evaluate\n\n%s, %s, commit %s. float, %s, "
                "device pointers, cells at uniformly random positions (%s), median of %d runs after 10 "
                "warm-up runs (CUDA events around the call; host wall: steady_clock around the call).\n\n",
                efield::bench::device_name().c_str(), efield::bench::today().c_str(),
                efield::bench::source_commit().c_str(),
                deterministic ? "deterministic" : "deterministic = false",
                placement == StandInPlacement::Sorted
                    ? "handed out in spatial order: cells adjacent in index order are adjacent on the chip"
                : placement == StandInPlacement::Piled
                    ? pile
                    : "no locality in index order",
                reps);
  md += buf;
  md += "| design | movable | fillers | bins | region | evaluate ms | host wall ms | no graph ms | CPU backend ms | "
        "target ms |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "| %s | %lld | %lld | %dx%d | %.0f^2 | %.4f | %.4f | %.4f | %s | %s |\n",
                  r.design.c_str(), r.movable, r.fillers, r.bins, r.bins, r.side, r.graph.median_ms,
                  r.host_wall.median_ms, r.nograph.median_ms,
                  r.have_cpu ? std::to_string(r.cpu.median_ms).c_str() : "-",
                  r.bins == 512 ? "0.080" : r.bins == 2048 ? "0.400" : "0.015");
    md += buf;
  }
  md += "\nPer-stage split (profile_stages: events between stages, median ms; stages launched one by one, no graph):\n\n"
        "| design | rasterize + density passes | forward FFT | spectral | inverse FFT (Ex, Ey) | gather + finalize |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "| %s | %.4f | %.4f | %.4f | %.4f | %.4f |\n", r.design.c_str(),
                  r.stages.rasterize_ms, r.stages.forward_fft_ms, r.stages.spectral_ms, r.stages.inverse_fft_ms,
                  r.stages.gather_ms);
    md += buf;
  }
  if (layouts) {
    md += "\nAccumulation layouts (src/electrostatics/pipeline_layout.hpp: the default, 64-bit bins in one map or "
          "in two; evaluate = graph replay, stages as above):\n\n"
          "| design | layout | evaluate ms | rasterize + density | forward FFT | spectral | inverse FFT | gather (+ "
          "field tiles, finalize) | energy | overflow | max density |\n"
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const Row& r : rows)
      for (const LayoutRow& v : r.layouts) {
        std::snprintf(buf, sizeof buf, "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %.8g | %.6f | %.5f |\n",
                      r.design.c_str(), v.layout, v.graph.median_ms, v.stages.rasterize_ms, v.stages.forward_fft_ms,
                      v.stages.spectral_ms, v.stages.inverse_fft_ms, v.stages.gather_ms, v.result.energy,
                      v.result.overflow, v.result.max_density);
        md += buf;
      }
    md += "\nplan_effort = Measure (the 64-bit bins' one or two maps, measured at construction):\n\n";
    for (const Row& r : rows)
      for (const LayoutRow& v : r.layouts)
        if (!v.measured.empty()) md += "- " + r.design + ": " + v.measured + "\n";
  }
  if (loop) {
    std::vector<std::pair<std::string, efield::bench::LoopTiming>> loop_rows;
    for (const Row& r : rows) loop_rows.emplace_back(r.design, r.loop);
    md += efield::bench::loop_table(loop_rows);
  }
  if (macros > 0) {
    md += "\nWith movable macros (--macros): evaluate time over the same design's without them (target <= 1.1):\n\n";
    for (const Row& r : rows)
      if (r.macro_ratio > 0) {
        std::snprintf(buf, sizeof buf, "- %s: %.4f ms, %.3fx\n", r.design.c_str(), r.graph.median_ms, r.macro_ratio);
        md += buf;
      }
  }
  md += "\nResults of the last run (sanity): ";
  for (const Row& r : rows) {
    std::snprintf(buf, sizeof buf, "%s energy %.6g overflow %.4f max density %.3f; ", r.design.c_str(), r.result.energy,
                  r.result.overflow, r.result.max_density);
    md += buf;
  }
  md += "\n\nTargets from the issue: <= 0.080 ms (adaptec1 scale), <= 0.400 ms (bigblue4 scale); DREAMPlace is "
        "quoted there at about 1.6 ms and 2.3 ms (not measured here).\n";
  std::printf("%s", md.c_str());
  if (!markdown.empty()) {
    std::ofstream out(markdown);
    out << md;
    if (!out) {
      std::fprintf(stderr, "bench_electrostatics: cannot write %s\n", markdown.c_str());
      return 1;
    }
  }
  return 0;
#endif
}
