#pragma once
// The pieces of the own FFT passes' line FFTs (register_fft.cuh) that live in shared memory or
// are pure arithmetic: the padded layout of a line in shared memory, and the small DFTs of radix
// 2, 4 and 8 that a thread runs on values in its registers. Forward uses exp(-i...), Inverse
// exp(+i...) without the 1/L (cuFFT's and FFTW's convention).
#include <cuda_runtime.h>

#include "math/complex.hpp"

namespace efield::detail::cuda_nd {

// Element p of a line lives at p + p / 16: one complex of padding after every 16 (128 bytes in
// float), so that the strided writes of the first stages (stride R, then R^2) fall into
// different banks instead of the same two.
__host__ __device__ constexpr int shared_fft_slot(int p) { return p + (p >> 4); }
// Line stride for lines of length L: the padded length plus one, odd, so that consecutive lines
// start in different banks too.
__host__ __device__ constexpr int shared_fft_line_stride(int length) { return shared_fft_slot(length) + 1; }

// -i z (Forward) or +i z (Inverse): the quarter-turn of the forward/inverse DFT kernel.
template <bool Inverse, typename T>
__device__ __forceinline__ Complex<T> quarter_turn(Complex<T> z) {
  return Inverse ? Complex<T>{-z.im, z.re} : Complex<T>{z.im, -z.re};
}

template <bool Inverse, typename T>
__device__ __forceinline__ void dft2(Complex<T>& a, Complex<T>& b) {
  const Complex<T> s = a + b;
  b = a - b;
  a = s;
}

template <bool Inverse, typename T>
__device__ __forceinline__ void dft4(Complex<T>& a0, Complex<T>& a1, Complex<T>& a2, Complex<T>& a3) {
  const Complex<T> s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3;
  const Complex<T> r13 = quarter_turn<Inverse>(a1 - a3);
  a0 = s02 + s13;
  a2 = s02 - s13;
  a1 = d02 + r13;
  a3 = d02 - r13;
}

// Radix 8 as two radix-4 DFTs of the even and odd inputs and one radix-2 layer.
template <bool Inverse, typename T>
__device__ __forceinline__ void dft8(Complex<T>* v) {
  dft4<Inverse>(v[0], v[2], v[4], v[6]);
  dft4<Inverse>(v[1], v[3], v[5], v[7]);
  const T h = T(0.70710678118654752440);
  // w^k for w = exp(-+ 2 pi i / 8), k = 1, 2, 3, applied to the odd DFT.
  const Complex<T> o1 = v[3] * Complex<T>{h, Inverse ? h : -h};
  const Complex<T> o2 = quarter_turn<Inverse>(v[5]);
  const Complex<T> o3 = v[7] * Complex<T>{-h, Inverse ? h : -h};
  const Complex<T> e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6], o0 = v[1];
  v[0] = e0 + o0;
  v[4] = e0 - o0;
  v[1] = e1 + o1;
  v[5] = e1 - o1;
  v[2] = e2 + o2;
  v[6] = e2 - o2;
  v[3] = e3 + o3;
  v[7] = e3 - o3;
}

template <int R, bool Inverse, typename T>
__device__ __forceinline__ void small_dft(Complex<T>* v) {
  if constexpr (R == 8) {
    dft8<Inverse>(v);
  } else if constexpr (R == 4) {
    dft4<Inverse>(v[0], v[1], v[2], v[3]);
  } else {
    dft2<Inverse>(v[0], v[1]);
  }
}

}  // namespace efield::detail::cuda_nd
