#pragma once
// global_place --fences K: a synthetic fence-region design placed by the fence placer.
#include <cstdint>
#include <string>

#include "engine.hpp"
#include "fence_placer.hpp"

namespace global_place {

struct FenceModeOptions {
  int fences = 2;
  long long cells = 3000;  // movable cells of the synthetic design
  std::uint64_t design_seed = 1;
  std::uint64_t seed = 1000;  // of the start
  double target_density = 1.0;
  bool free_area_fillers = true;  // make_fence_problem's
  bool fence_bounds = true;       // make_fence_engine's
  EngineOptions engine;
  FencePlacerOptions placer;
  bool check = false;  // exit status 1 unless every field's overflow <= stop_overflow and no fenced cell is outside
  std::string pl_path, png_path;
};

// Prints the design, progress, per-field results and the containment; returns the exit status.
int run_fence_mode(const FenceModeOptions& options);

}  // namespace global_place
