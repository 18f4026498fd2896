#pragma once
// Internal: a 2D complex FFT of an M x N array (row-major, both sides powers of two) in shared
// memory, run by one whole block: M FFTs of the rows, then N of the columns, each in place in
// the steps of small_grid_fft_steps.hpp (bit reversal, radix-4 steps, a last radix-2 stage when
// the stage count is odd), one barrier after each step. Used by the one-block small-grid kernel
// (small_field.cu), where the whole map fits shared memory; the order of every operation is
// fixed, so the result is reproducible bit for bit. Sizes are powers of two: indices are shifts
// and masks (no divisions).
#include <cuda_runtime.h>

#include "electrostatics/small_grid_fft_steps.hpp"

namespace efield::detail {

// The lines `s` of `a` (tw: line_roots, exp(-2 pi i q / length), q < length / 2). Every thread of
// the block calls it.
template <bool Inverse, typename T>
__device__ __forceinline__ void block_fft_lines(Complex<T>* a, const SmallFftLines& s, const Complex<T>* tw) {
  small_fft_steps<Inverse>(a, s, tw, [](int items, const auto& item) {
    for (int k = static_cast<int>(threadIdx.x); k < items; k += static_cast<int>(blockDim.x)) item(k);
    __syncthreads();
  });
}

// The 2D FFT of a[M][N] in place: rows (tw_n: N / 2 roots of length N), then columns (tw_m).
template <bool Inverse, typename T>
__device__ __forceinline__ void block_fft_2d(Complex<T>* a, int log_m, int log_n, const Complex<T>* tw_m,
                                             const Complex<T>* tw_n) {
  block_fft_lines<Inverse>(a, small_fft_rows(log_m, log_n), tw_n);
  block_fft_lines<Inverse>(a, small_fft_columns(log_m, log_n), tw_m);
}

}  // namespace efield::detail
