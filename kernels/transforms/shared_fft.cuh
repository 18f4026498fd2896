#pragma once
// Complex FFTs of power-of-two length held in shared memory, one per "line" of a tile, for the
// one-pass axis transforms of dct_axis_pass.cuh. Stockham autosort stages of radix 8 (plus one
// radix-4 or radix-2 stage when log2(L) is not a multiple of 3), each thread computing whole
// butterflies in registers. Stages run in place: a stage first reads every input it owns into
// registers, the block synchronizes, then it writes; so a thread holds up to
// kSharedFftPerThread complex values and the block must have blockDim.x * kSharedFftPerThread
// >= lines * L.
//
// Stage with radix R after stages whose radices multiply to ns (Govindaraju et al., "High
// performance discrete Fourier transforms on graphics processors", 2008, the Stockham form):
//   for j in [0, L/R): k = j mod ns,
//     v[r] = x[j + r L/R] * w^(r k),  w = exp(-+ 2 pi i / (ns R)),  v = DFT_R(v),
//     x'[(j - k) R + k + r ns] = v[r].
// After the last stage ns = L and the output is in natural order. Forward uses exp(-i...),
// Inverse exp(+i...) without the 1/L (cuFFT's and FFTW's convention).
//
// Twiddles come from one table per length, made at plan construction (stage_twiddles in
// dct2d_axis_passes.cu): the stage with ns keeps w^(r k) at (ns - 1) + (r - 1) ns + k, so the
// lanes of a warp (consecutive k) read consecutive entries. Every stage before the last has
// radix 8, so the stages before the one with ns take exactly ns - 1 entries.
#include <cuda_runtime.h>

#include "math/complex.hpp"

namespace efield::detail::cuda_nd {

constexpr int kSharedFftPerThread = 16;

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

// One Stockham stage over `lines` lines of length 2^log2L, line i starting at buf + i * stride
// (element p at shared_fft_slot(p) from there). `twiddles` is the plan's stage_twiddles table
// (forward sign; conjugated here for the inverse).
template <int R, bool Inverse, typename T>
__device__ void stockham_stage(Complex<T>* buf, const Complex<T>* __restrict__ twiddles, int log2L, int stride,
                               int lines, int log2ns) {
  constexpr int kLog2R = R == 8 ? 3 : R == 4 ? 2 : 1;
  constexpr int kPerThread = kSharedFftPerThread / R;
  const int log2_per_line = log2L - kLog2R;  // butterflies per line: L / R
  const int per_line_mask = (1 << log2_per_line) - 1;
  const int total = lines << log2_per_line;
  const int ns = 1 << log2ns;
  const Complex<T>* stage_twiddles = twiddles + (ns - 1);
  Complex<T> v[kPerThread][R];
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int b = threadIdx.x + i * blockDim.x;
    if (b < total) {
      const Complex<T>* x = buf + (b >> log2_per_line) * stride;
      const int j = b & per_line_mask;
#pragma unroll
      for (int r = 0; r < R; ++r) v[i][r] = x[shared_fft_slot(j + (r << log2_per_line))];
      if (ns > 1) {  // the first stage has only w^0 = 1
        const int k = j & (ns - 1);
#pragma unroll
        for (int r = 1; r < R; ++r) {
          const Complex<T> w = stage_twiddles[(r - 1) * ns + k];
          v[i][r] = v[i][r] * (Inverse ? conj(w) : w);
        }
      }
      small_dft<R, Inverse>(v[i]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int b = threadIdx.x + i * blockDim.x;
    if (b < total) {
      Complex<T>* x = buf + (b >> log2_per_line) * stride;
      const int j = b & per_line_mask;
      const int k = j & (ns - 1);
      const int base = (j - k) * R + k;
#pragma unroll
      for (int r = 0; r < R; ++r) x[shared_fft_slot(base + r * ns)] = v[i][r];
    }
  }
  __syncthreads();
}

// The FFT of every line (length 2^log2L >= 2), in place. Starts and ends synchronized.
template <bool Inverse, typename T>
__device__ void shared_fft(Complex<T>* buf, const Complex<T>* __restrict__ twiddles, int log2L, int stride,
                           int lines) {
  int log2ns = 0;
  for (; log2L - log2ns >= 3; log2ns += 3) stockham_stage<8, Inverse>(buf, twiddles, log2L, stride, lines, log2ns);
  if (log2L - log2ns == 2) stockham_stage<4, Inverse>(buf, twiddles, log2L, stride, lines, log2ns);
  if (log2L - log2ns == 1) stockham_stage<2, Inverse>(buf, twiddles, log2L, stride, lines, log2ns);
}

}  // namespace efield::detail::cuda_nd
