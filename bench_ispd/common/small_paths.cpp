#include "common/small_paths.hpp"

#include <cstdio>

#include "electrostatics/pipeline_layout.hpp"

namespace efield::bench {

std::vector<PathTiming> time_small_paths(const StandInDesign& d, const ElectrostaticOptions& options, const float* x,
                                         const float* y, float* gx, float* gy, int reps) {
  struct Named {
    const char* name;
    int mode;  // EsPipelineLayout::SmallField: ByTable, Always, Never
  };
  const Named paths[] = {{"default (policy table)", 0}, {"small-grid path (forced)", 1}, {"general path (forced)", 2}};
  TimingOptions t;
  t.warmup = 20;
  t.repetitions = reps;
  std::vector<PathTiming> out;
  for (const Named& p : paths) {
    detail::EsPipelineLayout layout = detail::es_pipeline_layout();
    layout.small_field = static_cast<detail::EsPipelineLayout::SmallField>(p.mode);  // the one line naming the hook
    const detail::EsPipelineLayout before = detail::set_es_pipeline_layout(layout);
    PathTiming row;
    row.path = p.name;
    {
      ElectrostaticSystem es(options, d.movable, d.fillers, d.fixed);
      row.evaluate = time_cuda([&] { row.result = es.evaluate(x, y, gx, gy); }, options.stream, t);
      row.evaluate_wall = time_host([&] { es.evaluate(x, y, gx, gy); }, t);
      int call = 0;
      row.loop = time_host(
          [&] {
            EvaluateOptions eo;
            eo.accumulate = true;
            eo.weight = 1e-3 * (1 + call++ % 7);  // a placer's weight changes every iteration
            es.evaluate_async(x, y, gx, gy, eo);
            es.wait_result();
          },
          t);
      row.loop_same = time_host(
          [&] {
            EvaluateOptions eo;
            eo.accumulate = true;
            eo.weight = 1e-3;
            es.evaluate_async(x, y, gx, gy, eo);
            es.wait_result();
          },
          t);
    }
    detail::set_es_pipeline_layout(before);
    out.push_back(row);
  }
  return out;
}

std::string small_paths_table(const std::vector<std::pair<std::string, std::vector<PathTiming>>>& rows) {
  std::string md =
      "\nSmall-grid path against the general path (same process; evaluate: CUDA events and steady_clock around the "
      "blocking call; loop: steady_clock around evaluate_async + wait_result, accumulating, a new weight each call "
      "as a placer's, or the same weight; medians, microseconds):\n\n"
      "| design | path | evaluate us | evaluate wall us | loop us | loop, same weight us | energy | overflow | max "
      "density |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  char buf[512];
  for (const auto& [design, paths] : rows)
    for (const PathTiming& p : paths) {
      std::snprintf(buf, sizeof buf, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.8g | %.6f | %.5f |\n", design.c_str(),
                    p.path.c_str(), 1e3 * p.evaluate.median_ms, 1e3 * p.evaluate_wall.median_ms,
                    1e3 * p.loop.median_ms, 1e3 * p.loop_same.median_ms, p.result.energy, p.result.overflow,
                    p.result.max_density);
      md += buf;
    }
  return md;
}

}  // namespace efield::bench
