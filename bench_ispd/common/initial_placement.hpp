#pragma once
// Initial positions for a timing run: movable cells (then fillers) as a placer would start.
#include <cstdint>
#include <string>
#include <vector>

#include "common/design_source.hpp"

namespace efield::bench {

enum class InitialPlacement {
  Uniform,  // movable cells uniformly random in the region
  Center,   // movable cells in a Gaussian cluster at the region's centre (sigma 5% of the
            // region's width along x and of its height along y), DREAMPlace's start
  File,     // movable cells where the .pl file puts them
};

InitialPlacement parse_initial_placement(const std::string& name);  // throws efield::Error
const char* to_string(InitialPlacement p) noexcept;

// Lower-left corners of the movable cells followed by the fillers (always uniformly random in
// the region), clamped so that every cell lies inside the region where it fits.
void initial_positions(const DensityProblem& problem, const CellSizes& fillers, InitialPlacement placement,
                       std::uint64_t seed, std::vector<double>& x, std::vector<double>& y);

}  // namespace efield::bench
