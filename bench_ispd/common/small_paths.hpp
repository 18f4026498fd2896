#pragma once
// bench_electrostatics --paths: a design's evaluate timed through the CUDA pipeline's default
// choice, its small-grid path (the one-block field kernel, pipeline_policy.cuh) and its general
// path (each forced by the layout hook of src/electrostatics/pipeline_layout.hpp) side by side in
// one process: the
// blocking evaluate (CUDA events and host wall time) and a placer's loop form (evaluate_async +
// wait_result, accumulating into the gradient, steady_clock around both).
#include <string>
#include <vector>

#include "common/ispd_stand_ins.hpp"
#include "common/timing.hpp"
#include "efield/electrostatic_system.hpp"

namespace efield::bench {

struct PathTiming {
  std::string path;
  TimingResult evaluate;       // CUDA events around evaluate
  TimingResult evaluate_wall;  // steady_clock around evaluate
  TimingResult loop;           // evaluate_async + wait_result, accumulate, a new weight each call
  TimingResult loop_same;      // the same with one weight (no weight update enqueued)
  EvaluateResult result;
};

// Device arrays x, y, gx, gy of d's cells; options as bench_electrostatics makes them (its stream).
std::vector<PathTiming> time_small_paths(const StandInDesign& d, const ElectrostaticOptions& options, const float* x,
                                         const float* y, float* gx, float* gy, int reps);

// The markdown table of the rows (one per design and path).
std::string small_paths_table(const std::vector<std::pair<std::string, std::vector<PathTiming>>>& rows);

}  // namespace efield::bench
