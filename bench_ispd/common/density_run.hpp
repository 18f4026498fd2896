#pragma once
// One bench_ispd measurement: a design -> fillers, bins, initial positions -> an
// ElectrostaticSystem -> warm-up, timed evaluates (median), the per-stage split, the result,
// optional heat maps.
#include <cstdint>
#include <string>
#include <vector>

#include "common/design_source.hpp"
#include "common/initial_placement.hpp"
#include "common/progress.hpp"
#include "common/timing.hpp"
#include "efield/electrostatic_system.hpp"

namespace efield::bench {

struct RunOptions {
  Backend backend = Backend::Auto;
  Precision precision = Precision::Float;
  InitialPlacement placement = InitialPlacement::Center;
  int iterations = 50;
  int warmup = 5;
  double target_density = 1.0;
  int bins_x = 0, bins_y = 0;  // 0: the DREAMPlace grid of an ISPD2005 design, else default_bin_grid
  bool profile_stages = true;
  std::string png_prefix;      // empty: no heat maps
  std::uint64_t seed = 1;      // initial positions
  int cpu_threads = 0;
};

struct RunResult {
  std::string label, source;
  bool synthetic = false;
  std::int64_t movable = 0, fixed = 0, terminals = 0, fillers = 0;
  int bins_x = 0, bins_y = 0;
  double target_density = 0;
  std::string backend, precision, placement;
  double obtain_ms = 0, setup_ms = 0;
  TimingResult evaluate;
  StageTimes stages;
  EvaluateResult result;
  std::vector<std::string> png_files;
};

RunResult run_density(const BenchDesign& design, const RunOptions& options, Progress& progress,
                      const std::string& step_prefix);

const char* to_string(Precision p) noexcept;

// DREAMPlace's grid for an ISPD2005 design (by name, "-synthetic" stand-ins included), or 0.
int ispd2005_bins(const std::string& label);

}  // namespace efield::bench
