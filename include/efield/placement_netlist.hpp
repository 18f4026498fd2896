#pragma once
// A placer's view of a Design's netlist: flat arrays (compressed sparse rows) that a wirelength
// kernel indexes directly, on the host or copied as they are to a device.
//
//   PlacementNetlist nl = placement_netlist(design);
//   for net k, pin p in [nl.net_pin_start[k], nl.net_pin_start[k+1]):
//     pin x = node centre x of nl.pin_node[p] + nl.pin_offset_x[p]     (likewise y)
//
// Pin offsets have the node's orientation applied, so they hold for the footprint as placed
// (Design::footprint_width/height): with (dx, dy) the offset from the centre as in .nets,
//   N (dx, dy)   S (-dx, -dy)   E (dy, -dx)   W (-dy, dx)       E: turned 90 degrees clockwise
//   FN (-dx, dy) FS (dx, -dy)   FE (dy, dx)   FW (-dy, -dx)     F*: mirrored in x, then as * does
#include <vector>

#include "efield/bookshelf.hpp"

namespace efield {

struct PlacementNetlist {
  // Net k's pins are [net_pin_start[k], net_pin_start[k+1]); num_nets + 1 entries, first 0.
  std::vector<int> net_pin_start;
  // The node (index into the Design's node arrays) each pin belongs to.
  std::vector<int> pin_node;
  // Pin position minus its node's centre, orientation applied (see above).
  std::vector<double> pin_offset_x, pin_offset_y;
  // One per net: the .wts weight, 1 by default.
  std::vector<double> net_weight;
  // Pins grouped by node: node i's pins are node_pins[node_pin_start[i] .. node_pin_start[i+1]),
  // in increasing pin order; num_nodes + 1 entries. Pin count of node i = the difference.
  std::vector<int> node_pin_start;
  std::vector<int> node_pins;

  int num_nets() const { return static_cast<int>(net_pin_start.size()) - 1; }
  int num_pins() const { return static_cast<int>(pin_node.size()); }
  int num_nodes() const { return static_cast<int>(node_pin_start.size()) - 1; }
};

// The netlist view of `design` (empty nets and pins when it was loaded without a .nets file).
// Throws efield::Error when the design's arrays disagree (Design::check_consistent).
PlacementNetlist placement_netlist(const Design& design);

}  // namespace efield
