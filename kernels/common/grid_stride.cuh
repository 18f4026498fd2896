#pragma once
// The block count of a 1D grid-stride loop, shared by the launches that walk flat arrays.
#include <algorithm>

namespace efield::detail {

// Blocks of `threads` for a grid-stride loop over `work` items: at least 1, at most 2^20 (the
// loop covers the rest).
inline unsigned grid_stride_blocks(long long work, int threads) {
  return static_cast<unsigned>(std::clamp<long long>((work + threads - 1) / threads, 1, 1 << 20));
}

}  // namespace efield::detail
