#pragma once
// Things a placer computes once before the first iteration: filler cells (docs/math.md "Fillers")
// and the default bin grid.
#include <cstdint>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/fence_region.hpp"

namespace efield {

struct FillerSpec {
  double width = 0;        // mean of the sorted movable widths at indices [int(0.05 n), int(0.95 n))
  double height = 0;       // row height, or the mean movable height when row_height <= 0
  std::int64_t count = 0;  // round(total filler area / (width * height))
  double total_area = 0;   // max(td * (region area - fixed area inside the region) - movable area, 0)
  CellSizes sizes() const;  // `count` cells of width x height
};

// Fillers per docs/math.md. Fixed area inside the region = sum over fixed cells of the area of the
// part of each cell inside the region (overlaps between fixed cells are counted once per cell).
// Throws efield::Error on an empty movable set, bad sizes, a bad region or td outside (0, 1].
FillerSpec make_fillers(const CellSizes& movable, const FixedCells& fixed, double xl, double yl,
                        double xh, double yh, double target_density, double row_height = 0);

// One field of a fence-region design (docs/math.md "Fillers per fence region").
struct RegionFillerSpec {
  FillerSpec fillers;            // width, height, count, total_area of this field's fillers
  double target_density = 0;     // td_k
  double placeable_area = 0;     // A_k
  double movable_area = 0;       // sum of w h over the field's movable cells
  double utilization = 0;        // min(movable_area / A_k, 1)
  std::int64_t num_movable = 0;  // the field's movable cells
};

struct RegionFillerOptions {
  double target_density = 1.0;  // the design's td, as make_fillers takes it, in (0, 1]
  double row_height = 0;        // filler height; <= 0: the mean height of the field's cells
  // Empty, or one entry per field (K fences, then the default field): an entry > 0 (at most 1)
  // is that field's td as given, skipping the utilization rule; 0 keeps the rule.
  std::vector<double> field_target_density;
};

// Fillers of each field of a fence-region design, DREAMPlace 3.0's rule per region: K fences
// give K + 1 results, fence k's field at index k and the default field (cells outside all fences,
// all fences counting as blockage) at index K. region_id[i] of movable cell i is k in [0, K), or
// K or kDreamPlaceDefaultRegion (INT_MAX) for the default region; an empty region_id puts every
// cell in the default region. With no fences the one result is make_fillers' exactly (td as
// given, no floor). Throws efield::Error on a region id out of range, a fence with no rectangles
// or an empty one, rectangles that overlap (within a fence or across fences), a rectangle not
// inside the placement region, a fenced cell wider, taller or larger in area than its fence, a
// field with no movable cells (its filler width is undefined), a default region with no
// placeable area, and on whatever make_fillers refuses.
std::vector<RegionFillerSpec> make_region_fillers(const CellSizes& movable, const std::vector<int>& region_id,
                                                  const std::vector<FenceRegion>& fences, const FixedCells& fixed,
                                                  double xl, double yl, double xh, double yh,
                                                  const RegionFillerOptions& options);

// Area of the union of the rectangles (overlaps counted once), by a sweep over x.
double union_area(const std::vector<Rect>& rects);

struct BinGrid {
  int num_bins_x = 0;
  int num_bins_y = 0;
};

// The RePlAce/DREAMPlace rule: ideal bin area = average movable cell area / td; ideal bin count
// K = region area / ideal bin area; n = the largest power of two with n * n <= K (RePlAce's
// search n^2 <= K < 4 n^2), clamped to [2, 4096]. For a non-square region with
// r = round(log2(W / H)): num_bins_x = n * 2^ceil(r/2), num_bins_y = n / 2^floor(r/2), so the bins
// stay close to square (bx / by = (W / H) / 2^r) and the count stays n^2 (or 2 n^2 for odd r).
// Each axis is clamped to [1, 4096]. Throws efield::Error on bad sizes, region or td.
BinGrid default_bin_grid(const CellSizes& movable, double xl, double yl, double xh, double yh,
                         double target_density);

}  // namespace efield
