#pragma once
// bench_electrostatics --loop: a design's evaluate timed as a placer's loop calls it, beside the
// blocking evaluate: evaluate_async + wait_result, accumulating into the gradient, with a new
// weight each call (a placer's density weight changes every iteration) or one weight throughout
// (steady_clock around both calls), and the blocking evaluate (CUDA events and host wall time).
#include <string>
#include <utility>
#include <vector>

#include "common/ispd_stand_ins.hpp"
#include "common/timing.hpp"
#include "efield/electrostatic_system.hpp"

namespace efield::bench {

struct LoopTiming {
  TimingResult evaluate;       // CUDA events around evaluate
  TimingResult evaluate_wall;  // steady_clock around evaluate
  TimingResult loop;           // evaluate_async + wait_result, accumulate, a new weight each call
  TimingResult loop_same;      // the same with one weight
  EvaluateResult result;
};

// Device arrays x, y, gx, gy of d's cells; options as bench_electrostatics makes them (its stream).
LoopTiming time_loop(const StandInDesign& d, const ElectrostaticOptions& options, const float* x, const float* y,
                     float* gx, float* gy, int reps);

// The markdown table of the rows (one per design).
std::string loop_table(const std::vector<std::pair<std::string, LoopTiming>>& rows);

}  // namespace efield::bench
