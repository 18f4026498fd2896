#pragma once
// What the placer optimises, built once from a Design through efield's public helpers: the cells
// it moves (movable cells, then fillers), the fixed cells, the bin grid and the pins.
#include <cstdint>
#include <efield/efield.hpp>
#include <vector>

namespace global_place {

struct PlacementProblem {
  efield::Region region;
  double target_density = 1;
  efield::BinGrid bins;
  double bin_width = 0, bin_height = 0;
  double row_height = 0;  // of the first row; the mean movable cell height without rows

  // Cells the placer moves: movable cells [0, num_movable), fillers [num_movable, num_cells()).
  int num_movable = 0, num_fillers = 0;
  efield::CellSizes movable, fillers;  // as ElectrostaticSystem takes them
  efield::FixedCells fixed;
  std::vector<int> movable_nodes;     // Design node of movable cell i
  std::vector<double> width, height;  // per cell (footprints)

  // Pins, grouped by net (CSR). Pin p lies at pos[pin_cell[p]] + pin_dx[p] (and likewise in y,
  // where pos holds lower-left corners): pin_dx = the node's half width + the pin's offset from
  // the node centre. Pins of fixed nodes have pin_cell = -1 and their absolute position in pin_dx.
  std::vector<int> net_pin_start;
  std::vector<double> net_weight;
  std::vector<int> pin_cell;
  std::vector<double> pin_dx, pin_dy;
  // Pins grouped by cell (CSR over the num_cells() cells; fillers have none). The pin count of a
  // cell is also the wirelength term of the preconditioner.
  std::vector<int> cell_pin_start, cell_pins;

  int num_cells() const { return num_movable + num_fillers; }
  int num_nets() const { return static_cast<int>(net_pin_start.size()) - 1; }
  int num_pins() const { return static_cast<int>(pin_cell.size()); }
};

// Throws efield::Error when the design has no movable cells or no nets. `fillers`: the fillers to
// append (a fence-region design's, field by field); nullptr: efield::make_fillers'.
PlacementProblem make_problem(const efield::Design& design, double target_density,
                              const efield::CellSizes* fillers = nullptr);

// DREAMPlace's movable macros, marked in problem.movable.movable_macro_mask: the movable cells whose
// area exceeds 10 times the mean movable area and whose height exceeds 2 rows. Below target
// density 1 their density ratio is then the target density (efield's CellSizes). Returns how many.
int mark_movable_macros(PlacementProblem& problem);

// The ElectrostaticSystem's options for the problem: its region, bins and target density.
efield::ElectrostaticOptions density_options(const PlacementProblem& problem, efield::Precision precision,
                                             efield::Backend backend);

// DREAMPlace's start: every movable cell centred on the region's centre plus a normal spread of
// 0.1% of the region's width (height) per axis; fillers uniformly at random in the region.
// Returns x and y of all cells (2n values, lower-left corners).
std::vector<double> initial_positions(const PlacementProblem& problem, std::uint64_t seed);

// A reference placement: every cell (movable and filler) uniformly at random in the region.
std::vector<double> uniform_spread(const PlacementProblem& problem, std::uint64_t seed);

// Half-perimeter wirelength of `pos` (2n values), over all nets, weighted.
double hpwl(const PlacementProblem& problem, const std::vector<double>& pos);

}  // namespace global_place
