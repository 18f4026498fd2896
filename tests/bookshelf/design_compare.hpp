#pragma once
// Test helper: two designs equal field by field (exact doubles: the writer prints shortest
// round-trip forms), with the first difference in the failure message.
#include <gtest/gtest.h>

#include <string>

#include "efield/bookshelf.hpp"

namespace efield::test {

inline ::testing::AssertionResult designs_equal(const Design& a, const Design& b) {
  auto fail = [](const std::string& what) { return ::testing::AssertionFailure() << what; };
  if (a.num_nodes() != b.num_nodes())
    return fail("node counts differ: " + std::to_string(a.num_nodes()) + " vs " + std::to_string(b.num_nodes()));
  for (int i = 0; i < a.num_nodes(); ++i) {
    if (a.node_names[i] != b.node_names[i] || a.width[i] != b.width[i] || a.height[i] != b.height[i] ||
        a.x[i] != b.x[i] || a.y[i] != b.y[i] || a.kind[i] != b.kind[i] || a.orientation[i] != b.orientation[i] ||
        a.node_weight[i] != b.node_weight[i])
      return fail("node " + std::to_string(i) + " ('" + a.node_names[i] + "' vs '" + b.node_names[i] + "') differs");
  }
  if (a.rows.size() != b.rows.size()) return fail("row counts differ");
  for (std::size_t r = 0; r < a.rows.size(); ++r) {
    const Row &p = a.rows[r], &q = b.rows[r];
    if (p.y != q.y || p.height != q.height || p.site_width != q.site_width || p.site_spacing != q.site_spacing ||
        p.x_min != q.x_min || p.num_sites != q.num_sites || p.x_max != q.x_max || p.site_orient != q.site_orient ||
        p.site_symmetry != q.site_symmetry)
      return fail("row " + std::to_string(r) + " differs");
  }
  if (a.has_nets != b.has_nets) return fail("has_nets differs");
  if (a.net_pin_start != b.net_pin_start) return fail("net_pin_start differs");
  if (a.net_names != b.net_names) return fail("net names differ");
  if (a.net_weight != b.net_weight) return fail("net weights differ");
  for (int p = 0; p < a.num_pins(); ++p) {
    const Pin &s = a.pins[p], &t = b.pins[p];
    if (s.node != t.node || s.direction != t.direction || s.offset_x != t.offset_x || s.offset_y != t.offset_y)
      return fail("pin " + std::to_string(p) + " differs");
  }
  return ::testing::AssertionSuccess();
}

}  // namespace efield::test
