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

// spec.num_fences fences inside [0, width) x [0, height) (see SyntheticDesignSpec).
std::vector<FenceRegion> make_fences(const SyntheticDesignSpec& spec, double width, double height, RandomStream& rng);

// Chooses the fenced standard cells among [0, num_std), moves each inside its fence and returns
// the region id of every node of `d` (fences.size() for the default region).
std::vector<int> place_fenced_cells(Design& d, const SyntheticDesignSpec& spec, std::int64_t num_std,
                                    const std::vector<FenceRegion>& fences, RandomStream& rng);

}  // namespace efield::synthetic
