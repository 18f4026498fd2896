#pragma once
// The synthetic ISPD 2005 stand-ins of bench_electrostatics and bench_placement_loop: random
// designs of an ISPD design's scale, made in-process (no files).
//   adaptec1-like: 210,904 movable cells + fillers, 63 fixed macros, 512 x 512 bins
//   bigblue4-like: 2,200,000 movable cells + fillers, 400 fixed macros, 2048 x 2048 bins
//   ibm01-like: 12,028 movable cells + fillers, 16 fixed macros, 64 x 64 bins
//   ibm05-like: 28,146 movable cells + fillers, 32 fixed macros, 128 x 128 bins
#include <cstdint>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"

namespace efield::bench {

// Where the cells are at the positions the design comes with.
enum class StandInPlacement {
  Random,  // uniformly random: no locality in index order
  Sorted,  // the same positions handed out in bin order (cells adjacent in index order are adjacent)
  Piled,   // movable cells within pile_side of the side around the centre (a placer's start)
};

struct StandInDesign {
  std::string name;
  double W = 0, H = 0;  // region [0, W) x [0, H)
  int bins = 0;         // bins x bins
  CellSizes movable, fillers;
  FixedCells fixed;
  std::vector<float> x, y;  // lower-left corners, movable then fillers
};

// Standard cells: row height 12, widths from a skewed mix (many small gates, some wide ones);
// 0.2% movable blocks of 30..120 x 24..96. The square region is sized so that fixed macros
// cover about `fixed_fraction` of it and the movable cells `utilization` of the rest (ISPD 2005
// designs: roughly 40% and 60%); fillers (docs/math.md, td = 1) fill the remainder. Piled: the
// pile's side is pile_side times the region's.
StandInDesign make_stand_in(const std::string& name, int num_movable, int num_fixed, int bins, std::uint64_t seed,
                            StandInPlacement placement, double pile_side = 0.01, double fixed_fraction = 0.4,
                            double utilization = 0.6);

// The stand-ins by their short name ("adaptec1", "bigblue4", "ibm01", "ibm05").
StandInDesign make_ispd_stand_in(const std::string& short_name, StandInPlacement placement, double pile_side = 0.01);

// Adds movable macros covering `area_fraction` of the region: each of min_bins..max_bins bins
// (log-uniform), aspect 0.5..2, at uniformly random positions inside the region; appended after
// the movable cells (the fillers stay as they are, so the design without them is the same).
void add_movable_macros(StandInDesign& d, double area_fraction, double min_bins, double max_bins, std::uint64_t seed);

// Float options of the CUDA backend for a stand-in (td = 1, its region and bins).
ElectrostaticOptions stand_in_options(const StandInDesign& d);

}  // namespace efield::bench
