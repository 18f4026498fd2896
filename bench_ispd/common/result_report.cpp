#include "common/result_report.hpp"

#include <cstdio>

#include "common/json_writer.hpp"
#include "common/timing.hpp"

namespace efield::bench {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string with_commas(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string device_of(const RunResult& r) { return r.backend == "cuda" ? device_name() : "cpu"; }

}  // namespace

std::string summary_table(const std::vector<RunResult>& results) {
  std::string t =
      "| design | cells | fixed | fillers | bins | backend | evaluate median (ms) | rasterize | forward FFT | "
      "spectral | inverse FFT | gather | overflow | max density | energy |\n"
      "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const RunResult& r : results) {
    const bool stages = r.stages.repetitions > 0;
    const auto stage = [&](double ms) { return stages ? fmt("%.3f", ms) : std::string("-"); };
    t += "| " + r.label + " | " + with_commas(r.movable) + " | " + with_commas(r.fixed) + " | " +
         with_commas(r.fillers) + " | " + std::to_string(r.bins_x) + "x" + std::to_string(r.bins_y) + " | " +
         r.backend + " " + r.precision + " | " + fmt("%.3f", r.evaluate.median_ms) + " | " +
         stage(r.stages.rasterize_ms) + " | " + stage(r.stages.forward_fft_ms) + " | " + stage(r.stages.spectral_ms) +
         " | " + stage(r.stages.inverse_fft_ms) + " | " + stage(r.stages.gather_ms) + " | " +
         fmt("%.4f", r.result.overflow) + " | " + fmt("%.3f", r.result.max_density) + " | " +
         fmt("%.4e", r.result.energy) + " |\n";
  }
  return t;
}

std::string markdown_report(const std::vector<RunResult>& results, const std::string& command_line) {
  std::string m = "# bench_ispd: electrostatic density evaluate on ISPD2005-sized designs\n\n";
  m += "- device: " + (results.empty() ? std::string("-") : device_of(results.front())) + "\n";
  m += "- date: " + today() + ", commit: " + source_commit() + "\n";
  m += "- command: `" + command_line + "`\n";
  if (!results.empty()) {
    const RunResult& r = results.front();
    m += "- placement: " + r.placement + ", target density " + fmt("%.2f", r.target_density) + ", " +
         std::to_string(r.evaluate.repetitions) +
         " timed evaluates after warm-up (median; " +
         (r.backend == "cuda" ? std::string("CUDA events around each call, positions and gradients in device memory")
                              : std::string("host clock")) +
         "); the stages are timed one by one, so their sum exceeds one fused evaluate\n";
  }
  bool any_synthetic = false;
  for (const RunResult& r : results) any_synthetic = any_synthetic || r.synthetic;
  if (any_synthetic)
    m += "- designs labelled `-synthetic` are generated stand-ins (efield::ispd2005_standin_spec): the published "
         "movable cell count, terminal count (as fixed macros on 25% of the region) and utilization of the "
         "ISPD2005 design, built-in cell size mix, not the real netlist or placement\n";
  m += "- cells = movable cells; fixed = fixed cells with area; bins = DREAMPlace's grid for ISPD2005 designs\n\n";
  return m + summary_table(results);
}

std::string json_report(const std::vector<RunResult>& results, const std::string& command_line) {
  JsonWriter j;
  j.begin_object();
  j.field("program", "bench_ispd").field("command", command_line).field("date", today()).field("commit", source_commit());
  j.begin_array("designs");
  for (const RunResult& r : results) {
    j.begin_object();
    j.field("design", r.label).field("synthetic", r.synthetic).field("source", r.source);
    j.field("device", device_of(r)).field("backend", r.backend).field("precision", r.precision);
    j.field("placement", r.placement).field("target_density", r.target_density);
    j.field("movable_cells", static_cast<long long>(r.movable)).field("fixed_cells", static_cast<long long>(r.fixed));
    j.field("terminals", static_cast<long long>(r.terminals)).field("filler_cells", static_cast<long long>(r.fillers));
    j.field("bins_x", r.bins_x).field("bins_y", r.bins_y);
    j.field("load_or_generate_ms", r.obtain_ms).field("setup_ms", r.setup_ms);
    j.begin_object("evaluate_ms")
        .field("median", r.evaluate.median_ms)
        .field("min", r.evaluate.min_ms)
        .field("max", r.evaluate.max_ms)
        .field("repetitions", r.evaluate.repetitions)
        .end_object();
    if (r.stages.repetitions > 0)
      j.begin_object("stage_median_ms")
          .field("rasterize", r.stages.rasterize_ms)
          .field("forward_fft", r.stages.forward_fft_ms)
          .field("spectral", r.stages.spectral_ms)
          .field("inverse_fft", r.stages.inverse_fft_ms)
          .field("gather", r.stages.gather_ms)
          .field("total", r.stages.total_ms)
          .field("repetitions", r.stages.repetitions)
          .end_object();
    j.field("energy", r.result.energy).field("overflow", r.result.overflow).field("max_density", r.result.max_density);
    j.begin_array("png");
    for (const std::string& p : r.png_files) j.field(nullptr, p);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.text();
}

}  // namespace efield::bench
