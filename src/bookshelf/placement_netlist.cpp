// placement_netlist: the Design's pins as flat arrays, offsets turned with their node.
#include "efield/placement_netlist.hpp"

namespace efield {
namespace {

// How an offset (dx, dy) from the centre of a node written in orientation N turns when the node
// is placed in orientation o (the table in placement_netlist.hpp): row o holds {a, b, c, d} with
// offset_x = a dx + b dy and offset_y = c dx + d dy, rows in the order of efield::Orientation.
constexpr double kTurn[8][4] = {
    {1, 0, 0, 1},     // N
    {-1, 0, 0, -1},   // S
    {0, 1, -1, 0},    // E
    {0, -1, 1, 0},    // W
    {-1, 0, 0, 1},    // FN
    {1, 0, 0, -1},    // FS
    {0, 1, 1, 0},     // FE
    {0, -1, -1, 0},   // FW
};

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
    const double* t = kTurn[static_cast<int>(design.orientation[pin.node])];
    nl.pin_offset_x[p] = t[0] * pin.offset_x + t[1] * pin.offset_y;
    nl.pin_offset_y[p] = t[2] * pin.offset_x + t[3] * pin.offset_y;
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
