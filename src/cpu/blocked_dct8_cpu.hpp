#pragma once
// The CPU loop of efield::BlockedDct8: every 8x8 block through src/math/loeffler8.hpp, blocks
// spread over OpenMP threads. rows and cols are multiples of 8 (checked by the plan).
namespace efield::detail {

// Dct2 per block, |X| < eps -> 0. `in` may equal `out`.
template <typename T>
void blocked_dct8_forward_cpu(const T* in, T* out, int rows, int cols, T eps, int threads);

// out_scale * idct2 per block. `in` may equal `out`.
template <typename T>
void blocked_dct8_inverse_cpu(const T* in, T* out, int rows, int cols, T out_scale, int threads);

}  // namespace efield::detail
