#pragma once
// What the pipeline's arithmetic can hold: inputs whose numbers would overflow or underflow the
// chosen precision (float or double) somewhere in a later evaluate are refused at construction,
// with an efield::Error naming the input, instead of coming back as NaN or wrong densities.
#include "electrostatics/backend.hpp"

namespace efield::detail {

// The enums of the options hold one of their named values (a cast integer may not).
void check_option_enums(const ElectrostaticOptions& options);

// The region, the bins and every movable and filler cell, in the precision of
// design.options.precision (see precision_limits.cpp for each limit and why).
void check_precision_limits(const ElectrostaticDesign& design);

// Movable or filler sizes (already finite and > 0) in the design's precision: each side, the
// area and the stretched area (docs/math.md 2.1) finite. `what` is "movable" or "filler".
void check_cell_sizes_in_precision(const ElectrostaticDesign& design, const CellSizes& cells, const char* what);

}  // namespace efield::detail
