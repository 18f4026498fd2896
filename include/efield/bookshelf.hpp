#pragma once
// GSRC Bookshelf placement designs (ISPD2005/2006, ICCAD04): the in-memory design, the loader
// (an .aux file naming .nodes, .nets, .wts, .pl, .scl) and the writer.
//
// Coordinates are the files' own units. Positions are lower-left corners, as in .pl files; pin
// offsets are from the cell centre, as in .nets files. Every problem with the input (missing or
// truncated file, unknown name, count that disagrees with its header, bad number) is thrown as an
// efield::Error whose message names the file, the line and what was expected.
#include <cstdint>
#include <string>
#include <vector>

#include "efield/fence_region.hpp"

#include "efield/electrostatic_system.hpp"

namespace efield {

// How a node takes part in placement. .nodes `terminal` and .pl `/FIXED` give Fixed;
// `terminal_NI` and `/FIXED_NI` give FixedNI (fixed, other cells may overlap it: I/O pins).
enum class NodeKind : std::uint8_t { Movable, Fixed, FixedNI };

enum class PinDirection : std::uint8_t { Input, Output, Bidirectional };

// .pl orientations. E, W, FE, FW turn the cell by 90 degrees (its footprint swaps width and height).
enum class Orientation : std::uint8_t { N, S, E, W, FN, FS, FE, FW };

struct Pin {
  int node = 0;                                  // index into Design's node arrays
  PinDirection direction = PinDirection::Bidirectional;
  double offset_x = 0, offset_y = 0;             // from the node's centre
};

// One placement row (.scl CoreRow). Its sites span [x_min, x_max) at [y, y + height).
struct Row {
  double y = 0, height = 0;
  double site_width = 1, site_spacing = 1;
  double x_min = 0;                              // SubrowOrigin
  long long num_sites = 0;
  double x_max = 0;                              // x_min + num_sites * site_spacing
  std::string site_orient = "N";                 // as written: "1", "N", "FS", ...
  std::string site_symmetry = "1";
};

struct Region {
  double xl = 0, yl = 0, xh = 0, yh = 0;
  double width() const { return xh - xl; }
  double height() const { return yh - yl; }
};

// A whole design. Node arrays are parallel, indexed by node; the netlist is in compressed form:
// net k's pins are pins[net_pin_start[k] .. net_pin_start[k+1]).
struct Design {
  std::string name;

  std::vector<std::string> node_names;
  std::vector<double> width, height;             // as in .nodes (unrotated)
  std::vector<double> x, y;                      // lower-left corners, as in .pl
  std::vector<NodeKind> kind;
  std::vector<Orientation> orientation;

  std::vector<Row> rows;

  bool has_nets = false;                         // false when loaded without a .nets file
  std::vector<std::string> net_names;            // "" for nets the file leaves unnamed
  std::vector<double> net_weight;                // 1 unless the .wts file says otherwise
  std::vector<int> net_pin_start;                // num_nets() + 1 entries (or empty)
  std::vector<Pin> pins;
  // True when the .nets file measured pin offsets from the nodes' lower-left corners (ICCAD04's
  // ibm01 does) and the loader moved them to the centre, as Bookshelf defines them (see
  // load_bookshelf).
  bool pin_offsets_were_lower_left = false;

  std::vector<double> node_weight;               // from .wts lines naming nodes; 1 otherwise

  // Fence regions (the synthetic generator's fence designs; the Bookshelf loader reads none):
  // region_id[i] is k for a movable node fenced in fences[k], fences.size() for every other node.
  // Both empty when the design has no fences.
  std::vector<FenceRegion> fences;
  std::vector<int> region_id;

  int num_nodes() const { return static_cast<int>(node_names.size()); }
  int num_nets() const { return net_pin_start.empty() ? 0 : static_cast<int>(net_pin_start.size()) - 1; }
  int num_pins() const { return static_cast<int>(pins.size()); }
  int count(NodeKind k) const;
  int num_terminals() const { return count(NodeKind::Fixed) + count(NodeKind::FixedNI); }

  // Footprint of node i as placed: width and height swapped for E, W, FE, FW.
  double footprint_width(int i) const;
  double footprint_height(int i) const;

  // The placement region: the bounding box of the rows (of all nodes when there are no rows).
  Region region() const;
  // Sum of width*height over the movable nodes.
  double movable_area() const;
  // Area of fixed nodes (not FixedNI) inside the region, overlaps between them counted once
  // only approximately (they are summed after clipping to the region).
  double fixed_area_in_region() const;

  // Throws efield::Error when the arrays disagree in size or a pin names a missing node.
  void check_consistent() const;
};

// What an ElectrostaticSystem (and a placer's first iteration) needs from a design.
struct PlacementInputs {
  Region region;                            // the rows' bounding box
  double row_height = 0;                    // of the first row; 0 without rows
  CellSizes movable;                        // footprints of the movable nodes, in node order
  std::vector<int> movable_nodes;           // their node indices
  std::vector<double> movable_x, movable_y; // their lower-left corners from the .pl file
  FixedCells fixed;                         // Fixed nodes with area (footprints, positions)
  std::vector<int> fixed_nodes;
  std::vector<int> io_nodes;                // FixedNI nodes and zero-area fixed nodes: no density
};
PlacementInputs placement_inputs(const Design& design);

struct BookshelfLoadOptions {
  // A design without a .nets file (or with none named in the .aux) loads for density-only work
  // when this is true; otherwise a missing .nets file is an error.
  bool allow_missing_nets = false;
};

// Load timings in milliseconds, for reports, and what the loader found and fixed.
struct BookshelfLoadStats {
  double read_ms = 0, nodes_ms = 0, nets_ms = 0, wts_ms = 0, pl_ms = 0, scl_ms = 0, total_ms = 0;
  std::size_t bytes = 0;
  // Pins whose .nets offsets, as written, lie outside half their node's size (so cannot be from
  // its centre); see load_bookshelf.
  long long pins_off_centre = 0;
};

// Loads the design named by `aux_path` (paths in the .aux are relative to its folder).
//
// Pin offsets: Bookshelf measures them from the node's centre, but some files (ICCAD04's ibm01)
// measure them from its lower-left corner. A pin is "off centre" when |dx| > w/2 or |dy| > h/2
// (node size as in .nodes, with a relative tolerance of 1e-6). When more than 1% of the pins are
// off centre, the loader warns once (file and count) and, if every pin satisfies 0 <= dx <= w and
// 0 <= dy <= h (the lower-left convention), subtracts (w/2, h/2) from every offset and sets
// Design::pin_offsets_were_lower_left; otherwise it leaves the offsets as written.
Design load_bookshelf(const std::string& aux_path, const BookshelfLoadOptions& options = {},
                      BookshelfLoadStats* stats = nullptr);

// Writes `design` as <directory>/<base>.{aux,nodes,nets,wts,pl,scl} (the folder must exist).
// Numbers are written in their shortest exact form, so loading the files gives back the same
// doubles. Nodes without names get "o<index>". Without nets, the .nets file is left out and the
// .aux does not name it.
void write_bookshelf(const Design& design, const std::string& directory, const std::string& base);

const char* to_string(NodeKind kind) noexcept;
const char* to_string(PinDirection direction) noexcept;
const char* to_string(Orientation orientation) noexcept;

}  // namespace efield
