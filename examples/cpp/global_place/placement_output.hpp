#pragma once
// The placer's outputs: a Bookshelf .pl file and a picture of the placement.
#include <string>
#include <vector>

#include "placement_problem.hpp"

namespace global_place {

// Every node of `design`: movable cells where `pos` (2n values) puts them, the others where the
// design has them; orientations and /FIXED, /FIXED_NI as in the design.
void write_pl(const std::string& path, const efield::Design& design, const PlacementProblem& problem,
              const std::vector<double>& pos);

// The region drawn at most `max_side` pixels wide or high (y up): fixed cells grey, movable
// cells blue, blended so that overlaps show darker, fillers left out. Through efield::write_png.
void write_placement_png(const std::string& path, const PlacementProblem& problem, const std::vector<double>& pos,
                         int max_side = 1024);

}  // namespace global_place
