#pragma once
// The Makhoul reordering (docs/math.md 1, "N-point"): even samples first ascending, odd samples
// after them descending. p(2i) = i, p(2i+1) = n-1-i.
#include "math/host_device.hpp"

namespace efield::detail {

// Position in the reordered sequence of sample `i` of a length-n sequence.
EFIELD_HD int makhoul_position(int i, int n) { return (i & 1) ? n - 1 - (i >> 1) : (i >> 1); }

// Sample index stored at position `pos` of the reordered sequence (inverse of makhoul_position).
EFIELD_HD int makhoul_source(int pos, int n) {
  return (2 * pos < n) ? 2 * pos : 2 * (n - 1 - pos) + 1;
}

}  // namespace efield::detail
