#pragma once
// Internal: a 2D complex FFT of an M x N array (row-major, both sides powers of two) in shared
// memory, run by one whole block: M FFTs of the rows, then N of the columns, each Cooley-Tukey
// in place: bit-reversed order first, then the butterfly stages two at a time (a radix-4 step
// does the radix-2 stages h and 2h on four values in registers, one barrier for both; an odd
// stage count ends with one radix-2 stage). Forward exp(-i...), Inverse exp(+i...), unnormalized
// (cuFFT's convention). Used by the one-block small-grid kernel (small_field.cu), where the whole
// map fits shared memory; the order of every operation is fixed, so the result is reproducible
// bit for bit. Sizes are powers of two: indices are shifts and masks (no divisions).
#include <cuda_runtime.h>

#include "math/complex.hpp"

namespace efield::detail {

// Lines of the 2D array: element i of line l at a[l * line_stride + i * elem_stride]. Rows
// (elem_stride 1) give consecutive threads consecutive butterflies of a line; columns give them
// the same butterfly of consecutive lines (consecutive addresses: no shared-memory bank conflicts).
struct SmallFftLines {
  int log_lines, log_length;
  int line_stride, elem_stride;
  // Work item k of `per_line` items a line: its line and its index within the line.
  __device__ __forceinline__ void split(int k, int log_per_line, int* line, int* item) const {
    if (elem_stride != 1) {
      *line = k & ((1 << log_lines) - 1);
      *item = k >> log_lines;
    } else {
      *line = k >> log_per_line;
      *item = k & ((1 << log_per_line) - 1);
    }
  }
  __device__ __forceinline__ int at(int line, int i) const { return line * line_stride + i * elem_stride; }
};

// tw[q] = exp(-2 pi i q / length), q < length / 2. Every thread of the block calls it.
template <bool Inverse, typename T>
__device__ __forceinline__ void block_fft_lines(Complex<T>* a, const SmallFftLines& s, const Complex<T>* tw) {
  const int L = s.log_length, threads = static_cast<int>(blockDim.x);
  const auto twiddle = [&](int q) { return Inverse ? conj(tw[q]) : tw[q]; };
  for (int k = static_cast<int>(threadIdx.x); k < (1 << (s.log_lines + L)); k += threads) {
    int line, i;
    s.split(k, L, &line, &i);
    const int j = static_cast<int>(__brev(static_cast<unsigned>(i)) >> (32 - L));
    if (i < j) {
      const Complex<T> t = a[s.at(line, i)];
      a[s.at(line, i)] = a[s.at(line, j)];
      a[s.at(line, j)] = t;
    }
  }
  __syncthreads();
  int log_h = 0;
  for (; log_h + 2 <= L; log_h += 2) {  // stages h and 2h: four values 0, h, 2h, 3h apart
    const int h = 1 << log_h;
    for (int k = static_cast<int>(threadIdx.x); k < (1 << (s.log_lines + L - 2)); k += threads) {
      int line, b;
      s.split(k, L - 2, &line, &b);
      const int j = b & (h - 1);
      const int i0 = ((b >> log_h) << (log_h + 2)) + j;
      const Complex<T> w = twiddle(j << (L - 1 - log_h));        // exp(-+2 pi i j / 2h)
      const Complex<T> w4 = twiddle(j << (L - 2 - log_h));       // exp(-+2 pi i j / 4h)
      const Complex<T> w4h = twiddle((j + h) << (L - 2 - log_h));  // exp(-+2 pi i (j + h) / 4h)
      const Complex<T> x0 = a[s.at(line, i0)], x1 = w * a[s.at(line, i0 + h)];
      const Complex<T> x2 = a[s.at(line, i0 + 2 * h)], x3 = w * a[s.at(line, i0 + 3 * h)];
      const Complex<T> a0 = x0 + x1, a1 = x0 - x1, c0 = w4 * (x2 + x3), c1 = w4h * (x2 - x3);
      a[s.at(line, i0)] = a0 + c0;
      a[s.at(line, i0 + 2 * h)] = a0 - c0;
      a[s.at(line, i0 + h)] = a1 + c1;
      a[s.at(line, i0 + 3 * h)] = a1 - c1;
    }
    __syncthreads();
  }
  if (log_h < L) {  // the last stage of an odd count, radix 2
    const int h = 1 << log_h;
    for (int k = static_cast<int>(threadIdx.x); k < (1 << (s.log_lines + L - 1)); k += threads) {
      int line, j;
      s.split(k, L - 1, &line, &j);  // h = length / 2: butterfly j of the only group
      const Complex<T> x0 = a[s.at(line, j)], x1 = twiddle(j) * a[s.at(line, j + h)];
      a[s.at(line, j)] = x0 + x1;
      a[s.at(line, j + h)] = x0 - x1;
    }
    __syncthreads();
  }
}

// The 2D FFT of a[M][N] in place (M = 2^log_m, N = 2^log_n): rows (tw_n: N / 2 roots of length
// N), then columns (tw_m).
template <bool Inverse, typename T>
__device__ __forceinline__ void block_fft_2d(Complex<T>* a, int log_m, int log_n, const Complex<T>* tw_m,
                                             const Complex<T>* tw_n) {
  block_fft_lines<Inverse>(a, SmallFftLines{log_m, log_n, 1 << log_n, 1}, tw_n);
  block_fft_lines<Inverse>(a, SmallFftLines{log_n, log_m, 1, 1 << log_n}, tw_m);
}

}  // namespace efield::detail
