#include "cpu/blocked_dct8_cpu.hpp"

#include <cstddef>

#include <omp.h>

#include "math/loeffler8.hpp"

namespace efield::detail {
namespace {

// Runs `body` on a local copy of every 8x8 block and writes the copy back. Each block is read
// completely before it is written, which is what makes in == out safe.
template <typename T, typename Body>
void for_each_block(const T* in, T* out, int rows, int cols, int threads, Body body) {
  const long block_rows = rows / 8, block_cols = cols / 8;
  const long blocks = block_rows * block_cols;
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (long blk = 0; blk < blocks; ++blk) {
    const std::size_t r0 = static_cast<std::size_t>(blk / block_cols) * 8;
    const std::size_t c0 = static_cast<std::size_t>(blk % block_cols) * 8;
    T b[64];
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) b[8 * r + c] = in[(r0 + r) * cols + c0 + c];
    body(b);
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) out[(r0 + r) * cols + c0 + c] = b[8 * r + c];
  }
}

}  // namespace

template <typename T>
void blocked_dct8_forward_cpu(const T* in, T* out, int rows, int cols, T eps, int threads) {
  for_each_block(in, out, rows, cols, threads, [eps](T(&b)[64]) { loeffler8_block_forward(b, eps); });
}

template <typename T>
void blocked_dct8_inverse_cpu(const T* in, T* out, int rows, int cols, T out_scale, int threads) {
  for_each_block(in, out, rows, cols, threads,
                 [out_scale](T(&b)[64]) { loeffler8_block_inverse(b, out_scale); });
}

template void blocked_dct8_forward_cpu<float>(const float*, float*, int, int, float, int);
template void blocked_dct8_forward_cpu<double>(const double*, double*, int, int, double, int);
template void blocked_dct8_inverse_cpu<float>(const float*, float*, int, int, float, int);
template void blocked_dct8_inverse_cpu<double>(const double*, double*, int, int, double, int);

}  // namespace efield::detail
