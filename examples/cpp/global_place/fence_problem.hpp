#pragma once
// A fence-region design as the fence placer sees it (DREAMPlace 3.0's multi-electrostatics): the
// PlacementProblem's cells (movable cells, then every field's fillers, field 0's first) and the
// K + 1 density fields of efield::make_fence_fields (the K fences, then the default field).
#include <cstdint>
#include <efield/efield.hpp>
#include <vector>

#include "placement_problem.hpp"

namespace global_place {

struct FenceProblem {
  PlacementProblem cells;
  std::vector<efield::FenceRegion> fences;              // K fences
  std::vector<int> region_id;                           // per movable cell: k < K, or K (default region)
  std::vector<efield::RegionFillerSpec> field_fillers;  // per field (make_region_fillers)
  std::vector<efield::FieldSpec> fields;                // per field (make_fence_fields)
  std::vector<int> cell_field;                          // field of every cell (movable and filler)

  int num_fields() const { return static_cast<int>(fields.size()); }
};

// Fillers per field by efield::make_region_fillers (DREAMPlace 3.0's rule); with
// free_area_fillers, a fence's fillers are sized from the part of the fence that fixed cells leave
// free instead of its whole area (fence_problem.cpp says why). Throws efield::Error when the
// design has no fences (and for what make_problem, make_region_fillers, make_fence_fields refuse).
FenceProblem make_fence_problem(const efield::Design& design, double target_density, bool free_area_fillers);

// The start: cells of the default region as DREAMPlace's (around the region's centre, a normal
// spread of 0.1% of its size); fenced cells the same around the centre of their fence's largest
// rectangle, kept inside it; field k's fillers uniformly at random over fence k's rectangles (by
// area), the default field's over the region. 2n values, lower-left corners.
std::vector<double> fence_initial_positions(const FenceProblem& problem, std::uint64_t seed);

// How well the placement keeps the fences: a fenced cell is inside when its rectangle lies within
// the union of its fence's rectangles; a default-region cell intrudes when it overlaps a fence.
struct FenceContainment {
  std::vector<int> outside;  // per fence: its cells not inside it
  int total_outside = 0;
  int default_intruding = 0;  // default-region cells overlapping some fence
};
FenceContainment fence_containment(const FenceProblem& problem, const std::vector<double>& pos);

// The end of global placement: every fenced cell not inside its fence moves to the nearest
// position inside one of the fence's rectangles (the least displacement). Returns how many moved.
int snap_into_fences(const FenceProblem& problem, std::vector<double>& pos);

}  // namespace global_place
