// placement_netlist: the Design's pins as flat arrays, offsets turned with their node.
#include "efield/placement_netlist.hpp"

namespace efield {
namespace {

// The offset (dx, dy) from the centre of a node written in orientation N, as it lies once the
// node is placed in orientation `o` (the table in placement_netlist.hpp).
void orient_offset(Orientation o, double dx, double dy, double* ox, double* oy) {
  switch (o) {
    case Orientation::N: *ox = dx, *oy = dy; return;
    case Orientation::S: *ox = -dx, *oy = -dy; return;
    case Orientation::E: *ox = dy, *oy = -dx; return;
    case Orientation::W: *ox = -dy, *oy = dx; return;
    case Orientation::FN: *ox = -dx, *oy = dy; return;
    case Orientation::FS: *ox = dx, *oy = -dy; return;
    case Orientation::FE: *ox = dy, *oy = dx; return;
    case Orientation::FW: *ox = -dy, *oy = -dx; return;
  }
  *ox = dx, *oy = dy;
}

}  // namespace

PlacementNetlist placement_netlist(const Design& design) {
  design.check_consistent();
  PlacementNetlist nl;
  const int num_nodes = design.num_nodes();
  const int num_pins = design.num_pins();
  nl.net_pin_start = design.net_pin_start.empty() ? std::vector<int>{0} : design.net_pin_start;
  nl.net_weight = design.net_weight;
  nl.pin_node.resize(num_pins);
  nl.pin_offset_x.resize(num_pins);
  nl.pin_offset_y.resize(num_pins);
  nl.node_pin_start.assign(num_nodes + 1, 0);
  for (int p = 0; p < num_pins; ++p) {
    const Pin& pin = design.pins[p];
    nl.pin_node[p] = pin.node;
    orient_offset(design.orientation[pin.node], pin.offset_x, pin.offset_y, &nl.pin_offset_x[p],
                  &nl.pin_offset_y[p]);
    ++nl.node_pin_start[pin.node + 1];
  }
  // Counting sort by node: stable, so each node's pins stay in increasing order.
  for (int i = 0; i < num_nodes; ++i) nl.node_pin_start[i + 1] += nl.node_pin_start[i];
  nl.node_pins.resize(num_pins);
  std::vector<int> fill(nl.node_pin_start.begin(), nl.node_pin_start.end() - 1);
  for (int p = 0; p < num_pins; ++p) nl.node_pins[fill[nl.pin_node[p]]++] = p;
  return nl;
}

}  // namespace efield
