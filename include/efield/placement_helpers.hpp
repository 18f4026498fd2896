#pragma once
// Things a placer computes once before the first iteration: filler cells (docs/math.md "Fillers")
// and the default bin grid.
#include <cstdint>
#include <vector>

#include "efield/electrostatic_system.hpp"

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
