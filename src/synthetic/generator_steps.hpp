#pragma once
// Internal: the steps of generate_synthetic_design, one file each.
#include <cstdint>
#include <vector>

#include "efield/synthetic_design.hpp"
#include "synthetic/random_stream.hpp"

namespace efield::synthetic {

// Standard-cell width in sites drawn from the built-in distribution (one row high).
double builtin_width_sites(RandomStream& rng);

// Appends `count` fixed macros (kind Fixed) covering about `target_area` inside
// [0, width) x [0, height) without overlapping one another, on the row and site grid when the
// room allows.
void place_fixed_macros(Design& d, int count, double target_area, double width, double height, double row_height,
                        double site_width, RandomStream& rng);

// Random local nets over the movable nodes [0, num_movable), touching a terminal now and then.
void make_local_nets(Design& d, std::int64_t num_movable, std::int64_t num_nets, double region_width,
                     double region_height, RandomStream& rng);

}  // namespace efield::synthetic
