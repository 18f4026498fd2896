#pragma once
// Where bench_ispd's designs come from (a Bookshelf .aux, the embedded default, an ISPD2005
// stand-in) and how a design becomes the ElectrostaticSystem's inputs.
#include <cstdint>
#include <string>

#include "efield/bookshelf.hpp"
#include "efield/electrostatic_system.hpp"
#include "efield/synthetic_design.hpp"

namespace efield::bench {

struct BenchDesign {
  std::string label;       // "adaptec1", "adaptec1-synthetic", "synthetic50k"
  bool synthetic = false;  // generated, not read from files
  std::string source;      // the .aux path, or "generated (seed N)"
  Design design;
  double obtain_ms = 0;    // load or generation time
};

// Loads `aux_path` (without nets when its .nets file is absent: density work needs none).
BenchDesign load_design(const std::string& aux_path);
BenchDesign generate_design(const SyntheticDesignSpec& spec);

// The .aux of ISPD2005 design `name` under `dir` (<dir>/<name>/<name>.aux or <dir>/<name>.aux),
// or "" when neither exists.
std::string find_ispd2005_aux(const std::string& dir, const std::string& name);

// The density problem of a design (efield::placement_inputs).
using DensityProblem = PlacementInputs;

}  // namespace efield::bench
