#pragma once
// Deterministic synthetic placement designs: stand-ins for benchmarks whose files are absent
// and the default design bench_ispd runs. Same spec and seed -> the same design, bit for bit, on
// every platform (the generator uses its own random number formulas, not <random>'s).
//
// The region is sized from the movable area: region area = movable area /
// (utilization * (1 - macro_area_fraction)), rows of row_height across it, so that
//   movable area / (region area - fixed macro area) = utilization
// (up to rounding to whole rows and sites). Fixed macros sit inside the region without
// overlapping one another; I/O pads (terminal_NI, 1x1) sit on its boundary; movable cells are
// spread uniformly over the rows. Nets are random and local: each connects cells that lie close
// together (plus, now and then, a macro or pad).
#include <cstdint>
#include <string>
#include <vector>

#include "efield/bookshelf.hpp"

namespace efield {

struct SyntheticDesignSpec {
  std::string name = "synthetic";
  std::int64_t num_movable = 50000;   // standard cells (+ movable macros below)
  int num_movable_macros = 0;         // movable blocks of 2..8 rows, part of num_movable
  int num_fixed_macros = 40;          // .nodes `terminal`, inside the region
  int num_io_pads = 200;              // .nodes `terminal_NI`, on the region's boundary
  double utilization = 0.7;           // in (0, 1]
  double macro_area_fraction = 0.2;   // fixed macro area / region area, in [0, 0.6]
  double aspect_ratio = 1.0;          // region width / height
  double row_height = 12;
  double site_width = 1;
  // Standard-cell sizes are drawn from these pairs when given (e.g. a real design's movable
  // cells, see sample_sizes_from); otherwise from the built-in distribution: one row high,
  // 3 to 77 sites wide, mean about 15 sites.
  std::vector<double> sample_widths, sample_heights;
  bool with_nets = true;
  double nets_per_cell = 1.0;         // nets = round(nets_per_cell * num_movable)
  // Fence regions (DREAMPlace 3.0's multi-electrostatics): num_fences fences, one in each cell of
  // a grid over the region, each a rectangle or (every second one when l_shaped_fences) an L of
  // two disjoint rectangles, on the row and site grid; fence_area_fraction of the region's area
  // in all. round(fenced_cell_fraction * standard cells) standard cells, chosen at random, are
  // fenced, split among the fences in proportion to their areas (at least one each) and placed
  // inside their fence; movable macros stay in the default region. Fixed macros are placed as
  // without fences, so they overlap some fences. Design::fences and Design::region_id hold them.
  int num_fences = 0;
  double fence_area_fraction = 0.3;   // in (0, 0.8]
  double fenced_cell_fraction = 0.3;  // in (0, 1)
  bool l_shaped_fences = true;
  std::uint64_t seed = 1;
};

// Builds the design in memory; throws efield::Error naming the field for an invalid spec.
Design generate_synthetic_design(const SyntheticDesignSpec& spec);

// Copies the sizes of `design`'s movable cells into spec.sample_widths/heights.
void sample_sizes_from(const Design& design, SyntheticDesignSpec& spec);

// The design `bench_ispd` runs with no arguments: 50,000 movable cells, 40 macros, 200 pads,
// 70% utilization, nets included.
SyntheticDesignSpec default_synthetic_spec();

// The ISPD2005 contest designs' published statistics and DREAMPlace's bin grids.
struct Ispd2005Design {
  const char* name;
  std::int64_t num_movable;
  int num_terminals;
  double utilization;  // as a fraction
  int bins;            // DREAMPlace's bins per axis (bins x bins)
};
const std::vector<Ispd2005Design>& ispd2005_designs();

// A stand-in with the design's movable count, terminal count (all as fixed macros, taking
// 25% of the region) and utilization; no nets (density work only). Throws for unknown names.
SyntheticDesignSpec ispd2005_standin_spec(const std::string& name, std::uint64_t seed = 1);

}  // namespace efield
