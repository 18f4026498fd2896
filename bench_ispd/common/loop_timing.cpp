#include "common/loop_timing.hpp"

#include <cstdio>

namespace efield::bench {

LoopTiming time_loop(const StandInDesign& d, const ElectrostaticOptions& options, const float* x, const float* y,
                     float* gx, float* gy, int reps) {
  TimingOptions t;
  t.warmup = 20;
  t.repetitions = reps;
  LoopTiming row;
  ElectrostaticSystem es(options, d.movable, d.fillers, d.fixed);
  row.evaluate = time_cuda([&] { row.result = es.evaluate(x, y, gx, gy); }, options.stream, t);
  row.evaluate_wall = time_host([&] { es.evaluate(x, y, gx, gy); }, t);
  int call = 0;
  row.loop = time_host(
      [&] {
        EvaluateOptions eo;
        eo.accumulate = true;
        eo.weight = 1e-3 * (1 + call++ % 7);
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
  return row;
}

std::string loop_table(const std::vector<std::pair<std::string, LoopTiming>>& rows) {
  std::string md =
      "\nThe evaluate in a placer's loop (evaluate: CUDA events and steady_clock around the blocking call; loop: "
      "steady_clock around evaluate_async + wait_result, accumulating, a new weight each call as a placer's, or "
      "the same weight; medians, microseconds):\n\n"
      "| design | evaluate us | evaluate wall us | loop us | loop, same weight us | energy | overflow | max density "
      "|\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  char buf[512];
  for (const auto& [design, p] : rows) {
    std::snprintf(buf, sizeof buf, "| %s | %.1f | %.1f | %.1f | %.1f | %.8g | %.6f | %.5f |\n", design.c_str(),
                  1e3 * p.evaluate.median_ms, 1e3 * p.evaluate_wall.median_ms, 1e3 * p.loop.median_ms,
                  1e3 * p.loop_same.median_ms, p.result.energy, p.result.overflow, p.result.max_density);
    md += buf;
  }
  return md;
}

}  // namespace efield::bench
