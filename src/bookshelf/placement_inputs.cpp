// placement_inputs: a design's movable cells, fixed cells with area and I/O pins, split the way
// the ElectrostaticSystem takes them.
#include "efield/bookshelf.hpp"

namespace efield {

PlacementInputs placement_inputs(const Design& d) {
  d.check_consistent();
  PlacementInputs p;
  p.region = d.region();
  p.row_height = d.rows.empty() ? 0.0 : d.rows.front().height;
  const std::size_t movable = static_cast<std::size_t>(d.count(NodeKind::Movable));
  p.movable.widths.reserve(movable), p.movable.heights.reserve(movable), p.movable_nodes.reserve(movable);
  p.movable_x.reserve(movable), p.movable_y.reserve(movable);
  for (int i = 0; i < d.num_nodes(); ++i) {
    const double w = d.footprint_width(i), h = d.footprint_height(i);
    if (d.kind[i] == NodeKind::Movable) {
      p.movable.widths.push_back(w);
      p.movable.heights.push_back(h);
      p.movable_nodes.push_back(i);
      p.movable_x.push_back(d.x[i]);
      p.movable_y.push_back(d.y[i]);
    } else if (d.kind[i] == NodeKind::Fixed && w > 0 && h > 0) {
      p.fixed.widths.push_back(w);
      p.fixed.heights.push_back(h);
      p.fixed.x.push_back(d.x[i]);
      p.fixed.y.push_back(d.y[i]);
      p.fixed_nodes.push_back(i);
    } else {
      p.io_nodes.push_back(i);
    }
  }
  return p;
}

}  // namespace efield
