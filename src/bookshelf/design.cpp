// Design's queries: counts, footprints, region, areas, and a consistency check.
#include <algorithm>
#include <cmath>
#include <limits>

#include "efield/bookshelf.hpp"
#include "efield/error.hpp"

namespace efield {
namespace {
bool turned(Orientation o) {
  return o == Orientation::E || o == Orientation::W || o == Orientation::FE || o == Orientation::FW;
}
}  // namespace

int Design::count(NodeKind k) const {
  return static_cast<int>(std::count(kind.begin(), kind.end(), k));
}

double Design::footprint_width(int i) const {
  return !orientation.empty() && turned(orientation[i]) ? height[i] : width[i];
}

double Design::footprint_height(int i) const {
  return !orientation.empty() && turned(orientation[i]) ? width[i] : height[i];
}

Region Design::region() const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Region r{inf, inf, -inf, -inf};
  if (!rows.empty()) {
    for (const Row& row : rows) {
      r.xl = std::min(r.xl, row.x_min);
      r.xh = std::max(r.xh, row.x_max);
      r.yl = std::min(r.yl, row.y);
      r.yh = std::max(r.yh, row.y + row.height);
    }
    return r;
  }
  for (int i = 0; i < num_nodes(); ++i) {
    r.xl = std::min(r.xl, x[i]);
    r.yl = std::min(r.yl, y[i]);
    r.xh = std::max(r.xh, x[i] + footprint_width(i));
    r.yh = std::max(r.yh, y[i] + footprint_height(i));
  }
  if (num_nodes() == 0) r = Region{};
  return r;
}

double Design::movable_area() const {
  double a = 0;
  for (int i = 0; i < num_nodes(); ++i)
    if (kind[i] == NodeKind::Movable) a += width[i] * height[i];
  return a;
}

double Design::fixed_area_in_region() const {
  const Region r = region();
  double a = 0;
  for (int i = 0; i < num_nodes(); ++i) {
    if (kind[i] != NodeKind::Fixed) continue;
    const double w = std::min(x[i] + footprint_width(i), r.xh) - std::max(x[i], r.xl);
    const double h = std::min(y[i] + footprint_height(i), r.yh) - std::max(y[i], r.yl);
    if (w > 0 && h > 0) a += w * h;
  }
  return a;
}

void Design::check_consistent() const {
  const std::size_t n = node_names.size();
  const auto same = [&](std::size_t m, const char* what) {
    if (m != n)
      throw Error("design '" + name + "': " + what + " has " + std::to_string(m) + " entries for " +
                  std::to_string(n) + " nodes");
  };
  same(width.size(), "width");
  same(height.size(), "height");
  same(x.size(), "x");
  same(y.size(), "y");
  same(kind.size(), "kind");
  same(orientation.size(), "orientation");
  same(node_weight.size(), "node_weight");
  // Enum values outside their enum (a cast from an integer) would index past the tables of
  // placement_netlist and to_string.
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned>(kind[i]) > static_cast<unsigned>(NodeKind::FixedNI))
      throw Error("design '" + name + "': node " + std::to_string(i) + " has kind " +
                  std::to_string(static_cast<unsigned>(kind[i])) + ", not a NodeKind");
    if (static_cast<unsigned>(orientation[i]) > static_cast<unsigned>(Orientation::FW))
      throw Error("design '" + name + "': node " + std::to_string(i) + " has orientation " +
                  std::to_string(static_cast<unsigned>(orientation[i])) + ", not an Orientation (N..FW)");
  }
  if (net_pin_start.empty()) {
    if (!pins.empty() || !net_names.empty()) throw Error("design '" + name + "': pins or nets without net_pin_start");
    return;
  }
  const std::size_t nets = net_pin_start.size() - 1;
  if (net_names.size() != nets || net_weight.size() != nets)
    throw Error("design '" + name + "': net_names/net_weight do not match net_pin_start");
  if (net_pin_start.front() != 0 || static_cast<std::size_t>(net_pin_start.back()) != pins.size())
    throw Error("design '" + name + "': net_pin_start does not span the pins");
  for (std::size_t k = 0; k < nets; ++k)
    if (net_pin_start[k + 1] < net_pin_start[k]) throw Error("design '" + name + "': net_pin_start decreases");
  for (std::size_t k = 0; k < pins.size(); ++k) {
    const Pin& p = pins[k];
    if (p.node < 0 || static_cast<std::size_t>(p.node) >= n)
      throw Error("design '" + name + "': a pin names node " + std::to_string(p.node) + " of " + std::to_string(n));
    if (static_cast<unsigned>(p.direction) > static_cast<unsigned>(PinDirection::Bidirectional))
      throw Error("design '" + name + "': pin " + std::to_string(k) + " has direction " +
                  std::to_string(static_cast<unsigned>(p.direction)) + ", not a PinDirection");
    if (!std::isfinite(p.offset_x) || !std::isfinite(p.offset_y))
      throw Error("design '" + name + "': pin " + std::to_string(k) + " has a non-finite offset");
  }
}

const char* to_string(NodeKind kind) noexcept {
  switch (kind) {
    case NodeKind::Movable: return "movable";
    case NodeKind::Fixed: return "terminal";
    case NodeKind::FixedNI: return "terminal_NI";
  }
  return "?";
}

const char* to_string(PinDirection direction) noexcept {
  switch (direction) {
    case PinDirection::Input: return "I";
    case PinDirection::Output: return "O";
    case PinDirection::Bidirectional: return "B";
  }
  return "?";
}

const char* to_string(Orientation o) noexcept {
  static const char* const kNames[] = {"N", "S", "E", "W", "FN", "FS", "FE", "FW"};
  const auto i = static_cast<unsigned>(o);
  return i < 8 ? kNames[i] : "?";
}

}  // namespace efield
