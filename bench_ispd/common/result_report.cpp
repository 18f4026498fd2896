#include "common/result_report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

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
  using Json = nlohmann::ordered_json;
  Json designs = Json::array();
  for (const RunResult& r : results) {
    Json d = {{"design", r.label},
              {"synthetic", r.synthetic},
              {"source", r.source},
              {"device", device_of(r)},
              {"backend", r.backend},
              {"precision", r.precision},
              {"placement", r.placement},
              {"target_density", r.target_density},
              {"movable_cells", r.movable},
              {"fixed_cells", r.fixed},
              {"terminals", r.terminals},
              {"filler_cells", r.fillers},
              {"bins_x", r.bins_x},
              {"bins_y", r.bins_y},
              {"load_or_generate_ms", r.obtain_ms},
              {"setup_ms", r.setup_ms},
              {"evaluate_ms",
               {{"median", r.evaluate.median_ms},
                {"min", r.evaluate.min_ms},
                {"max", r.evaluate.max_ms},
                {"repetitions", r.evaluate.repetitions}}}};
    if (r.stages.repetitions > 0) {
      d["stage_median_ms"] = {{"rasterize", r.stages.rasterize_ms},     {"forward_fft", r.stages.forward_fft_ms},
                              {"spectral", r.stages.spectral_ms},       {"inverse_fft", r.stages.inverse_fft_ms},
                              {"gather", r.stages.gather_ms},           {"total", r.stages.total_ms},
                              {"repetitions", r.stages.repetitions}};
    }
    d["energy"] = r.result.energy;  // non-finite values are written as null
    d["overflow"] = r.result.overflow;
    d["max_density"] = r.result.max_density;
    d["png"] = r.png_files;
    designs.push_back(std::move(d));
  }
  const Json report = {{"program", "bench_ispd"},
                       {"command", command_line},
                       {"date", today()},
                       {"commit", source_commit()},
                       {"designs", std::move(designs)}};
  return report.dump(2);
}

}  // namespace efield::bench
