#pragma once
// Fence regions (DREAMPlace 3.0's multi-electrostatics): a fence is a union of disjoint
// rectangles; fenced movable cells must end up inside their fence, the other movable cells
// (the "default region") outside all fences.
#include <limits>
#include <vector>

namespace efield {

struct Rect {
  double xl = 0, yl = 0, xh = 0, yh = 0;
  double area() const { return (xh - xl) * (yh - yl); }
};

struct FenceRegion {
  std::vector<Rect> rects;  // disjoint (they may share edges)
};

// DREAMPlace marks a movable cell outside all fences with INT_MAX in node2fence_region_map;
// efield accepts it beside K (the default region's own index).
inline constexpr int kDreamPlaceDefaultRegion = std::numeric_limits<int>::max();

}  // namespace efield
