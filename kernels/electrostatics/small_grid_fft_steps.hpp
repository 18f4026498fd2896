#pragma once
// Internal: the work items of the small-grid block FFT (small_grid_fft.cuh), one function per kind
// of step, __host__ __device__: the block runs every item of a step between two barriers, and a
// host loop over the items runs the same arithmetic (tests/electrostatics/test_small_grid_fft.cpp
// checks it against a direct DFT without a GPU). Lines of length 2^log_length, in place:
// bit-reversed order first, then the radix-2 stages h and 2h two at a time (a radix-4 step on four
// values 0, h, 2h, 3h apart: the same operations as two radix-2 stages, one barrier), an odd
// stage count ending with one radix-2 stage. Forward exp(-i...), Inverse exp(+i...), unnormalized.
#include "math/complex.hpp"
#include "math/host_device.hpp"

namespace efield::detail {

// Lines of a 2D array: element i of line l at a[l * line_stride + i * elem_stride], 2^log_lines
// lines of 2^log_length elements. Rows (elem_stride 1) give consecutive items consecutive
// butterflies of a line; columns give them the same butterfly of consecutive lines (consecutive
// addresses: no shared-memory bank conflicts).
struct SmallFftLines {
  int log_lines, log_length;
  int line_stride, elem_stride;
  // Work item k of 2^log_per_line items a line: its line and its index within the line.
  EFIELD_HD void split(int k, int log_per_line, int* line, int* item) const {
    if (elem_stride != 1) {
      *line = k & ((1 << log_lines) - 1);
      *item = k >> log_lines;
    } else {
      *line = k >> log_per_line;
      *item = k & ((1 << log_per_line) - 1);
    }
  }
  EFIELD_HD int at(int line, int i) const { return line * line_stride + i * elem_stride; }
  // Items of each step.
  EFIELD_HD int reverse_items() const { return 1 << (log_lines + log_length); }
  EFIELD_HD int radix4_items() const { return 1 << (log_lines + log_length - 2); }
  EFIELD_HD int radix2_items() const { return 1 << (log_lines + log_length - 1); }
};

// The lowest `bits` bits of i in reverse order.
EFIELD_HD int small_fft_reverse_bits(int i, int bits) {
#if defined(__CUDA_ARCH__)
  return static_cast<int>(__brev(static_cast<unsigned>(i)) >> (32 - bits));
#else
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
#endif
}

// Item k of the bit-reversal permutation (swaps element i with its reverse, once per pair).
template <typename T>
EFIELD_HD void small_fft_reverse_item(Complex<T>* a, const SmallFftLines& s, int k) {
  int line, i;
  s.split(k, s.log_length, &line, &i);
  const int j = small_fft_reverse_bits(i, s.log_length);
  if (i < j) {
    const Complex<T> t = a[s.at(line, i)];
    a[s.at(line, i)] = a[s.at(line, j)];
    a[s.at(line, j)] = t;
  }
}

// tw[q] = exp(-2 pi i q / length), q < length / 2; the inverse takes its conjugate.
template <bool Inverse, typename T>
EFIELD_HD Complex<T> small_fft_twiddle(const Complex<T>* tw, int q) {
  return Inverse ? conj(tw[q]) : tw[q];
}

// Item k of the radix-4 step doing stages h = 2^log_h and 2h (log_h + 2 <= log_length).
template <bool Inverse, typename T>
EFIELD_HD void small_fft_radix4_item(Complex<T>* a, const SmallFftLines& s, const Complex<T>* tw, int log_h, int k) {
  const int L = s.log_length, h = 1 << log_h;
  int line, b;
  s.split(k, L - 2, &line, &b);
  const int j = b & (h - 1);
  const int i0 = ((b >> log_h) << (log_h + 2)) + j;
  const Complex<T> w = small_fft_twiddle<Inverse>(tw, j << (L - 1 - log_h));           // exp(-+2 pi i j / 2h)
  const Complex<T> w4 = small_fft_twiddle<Inverse>(tw, j << (L - 2 - log_h));          // exp(-+2 pi i j / 4h)
  const Complex<T> w4h = small_fft_twiddle<Inverse>(tw, (j + h) << (L - 2 - log_h));   // exp(-+2 pi i (j+h) / 4h)
  const Complex<T> x0 = a[s.at(line, i0)], x1 = w * a[s.at(line, i0 + h)];
  const Complex<T> x2 = a[s.at(line, i0 + 2 * h)], x3 = w * a[s.at(line, i0 + 3 * h)];
  const Complex<T> a0 = x0 + x1, a1 = x0 - x1, c0 = w4 * (x2 + x3), c1 = w4h * (x2 - x3);
  a[s.at(line, i0)] = a0 + c0;
  a[s.at(line, i0 + 2 * h)] = a0 - c0;
  a[s.at(line, i0 + h)] = a1 + c1;
  a[s.at(line, i0 + 3 * h)] = a1 - c1;
}

// Item k of the last stage of an odd stage count (h = length / 2, one group a line).
template <bool Inverse, typename T>
EFIELD_HD void small_fft_radix2_last_item(Complex<T>* a, const SmallFftLines& s, const Complex<T>* tw, int k) {
  const int h = 1 << (s.log_length - 1);
  int line, j;
  s.split(k, s.log_length - 1, &line, &j);
  const Complex<T> x0 = a[s.at(line, j)], x1 = small_fft_twiddle<Inverse>(tw, j) * a[s.at(line, j + h)];
  a[s.at(line, j)] = x0 + x1;
  a[s.at(line, j + h)] = x0 - x1;
}

// The FFT of the lines `s` of `a`, step by step: run(items, item) for each step in order, where
// item(k) does item k of the step (the block runs the items between barriers, the host in a loop).
template <bool Inverse, typename T, typename Run>
EFIELD_HD void small_fft_steps(Complex<T>* a, const SmallFftLines& s, const Complex<T>* tw, Run&& run) {
  run(s.reverse_items(), [&](int k) { small_fft_reverse_item(a, s, k); });
  int log_h = 0;
  for (; log_h + 2 <= s.log_length; log_h += 2)
    run(s.radix4_items(), [&](int k) { small_fft_radix4_item<Inverse>(a, s, tw, log_h, k); });
  if (log_h < s.log_length) run(s.radix2_items(), [&](int k) { small_fft_radix2_last_item<Inverse>(a, s, tw, k); });
}

// The rows and the columns of a[M][N] (M = 2^log_m, N = 2^log_n): a 2D FFT is the rows' (N / 2
// roots of length N) and then the columns' (M / 2 roots of length M).
EFIELD_HD SmallFftLines small_fft_rows(int log_m, int log_n) { return {log_m, log_n, 1 << log_n, 1}; }
EFIELD_HD SmallFftLines small_fft_columns(int log_m, int log_n) { return {log_n, log_m, 1, 1 << log_n}; }

}  // namespace efield::detail
