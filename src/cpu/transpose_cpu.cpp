// Blocked, OpenMP-parallel transpose for the row-column baseline (see transpose_cpu.hpp).
#include "cpu/transpose_cpu.hpp"

#include <algorithm>
#include <cstddef>

namespace efield::detail {

namespace {
constexpr int kTile = 32;
constexpr long long kParallelThreshold = 1 << 15;
}  // namespace

template <typename T>
void transpose_cpu(const T* src, T* dst, int rows, int cols, int threads) {
  const int row_tiles = (rows + kTile - 1) / kTile;
  const int col_tiles = (cols + kTile - 1) / kTile;
  const bool parallel = static_cast<long long>(rows) * cols > kParallelThreshold;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads) if (parallel)
  for (int tr = 0; tr < row_tiles; ++tr) {
    for (int tc = 0; tc < col_tiles; ++tc) {
      const int r0 = tr * kTile, r1 = std::min(rows, r0 + kTile);
      const int c0 = tc * kTile, c1 = std::min(cols, c0 + kTile);
      for (int c = c0; c < c1; ++c)
        for (int r = r0; r < r1; ++r) dst[static_cast<size_t>(c) * rows + r] = src[static_cast<size_t>(r) * cols + c];
    }
  }
}

template void transpose_cpu<float>(const float*, float*, int, int, int);
template void transpose_cpu<double>(const double*, double*, int, int, int);

}  // namespace efield::detail
