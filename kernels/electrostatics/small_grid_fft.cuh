#pragma once
// Internal: a 2D complex FFT of an M x N array (row-major, both sides powers of two) in shared
// memory, run by one whole block: M FFTs of the rows, then N of the columns, each radix-2
// Cooley-Tukey in place (bit-reversed order first, then log2 L butterfly stages, one barrier
// each). Forward exp(-i...), Inverse exp(+i...), unnormalized (cuFFT's convention). Used by the
// one-block small-grid kernel (small_field.cu), where the whole map fits shared memory; the
// order of every operation is fixed, so the result is reproducible bit for bit.
#include <cuda_runtime.h>

#include "math/complex.hpp"

namespace efield::detail {

// L lines of `length` elements: element i of line l at a[l * line_stride + i * elem_stride].
// tw[q] = exp(-2 pi i q / length), q < length / 2. Rows (elem_stride 1) give consecutive threads
// consecutive butterflies of a line; columns give them the same butterfly of consecutive lines
// (consecutive addresses: no shared-memory bank conflicts). Every thread of the block calls it.
template <bool Inverse, typename T>
__device__ __forceinline__ void block_fft_lines(Complex<T>* a, int lines, int length, int line_stride,
                                                int elem_stride, const Complex<T>* tw) {
  const int log_len = __ffs(length) - 1;
  const bool line_fastest = elem_stride != 1;
  const int elements = lines * length;
  for (int k = static_cast<int>(threadIdx.x); k < elements; k += static_cast<int>(blockDim.x)) {
    const int line = line_fastest ? k % lines : k >> log_len;
    const int i = line_fastest ? k / lines : k & (length - 1);
    const int j = static_cast<int>(__brev(static_cast<unsigned>(i)) >> (32 - log_len));
    if (i < j) {
      Complex<T>* base = a + line * line_stride;
      const Complex<T> t = base[i * elem_stride];
      base[i * elem_stride] = base[j * elem_stride];
      base[j * elem_stride] = t;
    }
  }
  __syncthreads();
  const int half = length / 2, butterflies = lines * half;
  for (int log_h = 0; log_h < log_len; ++log_h) {
    const int h = 1 << log_h;
    for (int k = static_cast<int>(threadIdx.x); k < butterflies; k += static_cast<int>(blockDim.x)) {
      const int line = line_fastest ? k % lines : k / half;
      const int b = line_fastest ? k / lines : k % half;
      const int j = b & (h - 1);
      const int i0 = ((b >> log_h) << (log_h + 1)) + j, i1 = i0 + h;
      const Complex<T> w0 = tw[j << (log_len - 1 - log_h)];
      const Complex<T> w = Inverse ? conj(w0) : w0;
      Complex<T>* base = a + line * line_stride;
      const Complex<T> x0 = base[i0 * elem_stride], x1 = w * base[i1 * elem_stride];
      base[i0 * elem_stride] = x0 + x1;
      base[i1 * elem_stride] = x0 - x1;
    }
    __syncthreads();
  }
}

// The 2D FFT of a[M][N] in place: rows (tw_n: N / 2 roots of length N), then columns (tw_m).
template <bool Inverse, typename T>
__device__ __forceinline__ void block_fft_2d(Complex<T>* a, int M, int N, const Complex<T>* tw_m,
                                             const Complex<T>* tw_n) {
  block_fft_lines<Inverse>(a, M, N, N, 1, tw_n);
  block_fft_lines<Inverse>(a, N, M, 1, N, tw_m);
}

}  // namespace efield::detail
