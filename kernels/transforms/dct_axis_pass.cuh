#pragma once
// One pass of the two-pass CUDA Plan2D: the 1D dct, idct or idxst (docs/math.md 1, N-point
// algorithm) along one axis of a row-major rows x cols array, done entirely inside one kernel:
// a block loads a tile of C whole lines (C consecutive columns, or C consecutive rows) into
// shared memory, applies the Makhoul reorder on the way in (dct) or the inverse preprocess in
// place (idct, idxst), runs the FFTs in shared memory (shared_fft.cuh), applies the dct
// postprocess in place (dct) and writes the tile out (with the inverse reorder and the sine
// axis's signs for idct/idxst). The array crosses memory once per pass, so a 2D transform
// moves it twice, as cuFFT's own 2D R2C does.
//
// Two real lines a and b share one complex FFT, z = a + i b, so the FFT length is the line
// length L and a tile of C lines holds C/2 complex lines. The separation and the pre/post
// formulas are those of math/dct1d.hpp (N-point, t[k] = exp(-i pi k / 2L)):
//   dct:   V_a[k] = (Z[k] + conj(Z[L-k])) / 2, V_b[k] = (Z[k] - conj(Z[L-k])) / 2i,
//          X[k] = Re(t[k] V[k]), X[L-k] = Re(t[L-k] conj(V[k])).
//   idct/idxst: W = idct_pre(X) for both lines, Z[k] = W_a[k] + i W_b[k] over the whole
//          Hermitian-extended spectrum; the inverse FFT gives y_a + i y_b.
// One thread owns the slots k and L-k of a complex line in both the pre- and postprocess, so
// they run in place without races.
#include <cuda_runtime.h>

#include "math/complex.hpp"
#include "math/dct1d.hpp"
#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "transforms/shared_fft.cuh"

namespace efield::detail::cuda_nd {

enum class AxisTransform { Dct, Idct, Idxst };

// Values a thread loads before it stores any of them into shared memory, so that that many
// global loads are in flight at once.
constexpr int kAxisLoadBatch = 16;

// Tile element e -> (line l, sample s). Columns: e = s * C + l, so that consecutive threads
// read consecutive columns of one row; rows: e = l * L + s.
template <bool Columns>
__device__ __forceinline__ void axis_tile_element(int e, int log2L, int log2C, int& l, int& s) {
  if (Columns) {
    s = e >> log2C;
    l = e & ((1 << log2C) - 1);
  } else {
    l = e >> log2L;
    s = e & ((1 << log2L) - 1);
  }
}

// Offset of tile element e (line l, sample s) from the tile's first value in global memory:
// a row tile is contiguous (offset e); a column tile has its rows `cols` apart. 32-bit: Plan2D
// keeps arrays below 2^31 values.
template <bool Columns>
__device__ __forceinline__ int axis_tile_offset(int e, int l, int s, int cols) {
  return Columns ? s * cols + l : e;
}

// `twiddles`: quarter_twiddles(L), L + 1 entries; `fft_twiddles`: the shared FFT's table. `zero_below`: threshold of the stored dct
// coefficients (0: none). Launch: gridDim.x = lines / C, blockDim.x <= 512 with
// blockDim.x * kSharedFftPerThread >= C * L / 2, dynamic shared memory
// C/2 * shared_fft_line_stride(L) complex values.
template <typename T, bool Columns, AxisTransform Op>
__global__ void __launch_bounds__(512, 2)
    dct_axis_pass(const T* __restrict__ in, T* __restrict__ out, int cols, int log2L, int log2C,
                  const Complex<T>* __restrict__ twiddles, const Complex<T>* __restrict__ fft_twiddles, T zero_below) {
  extern __shared__ __align__(16) unsigned char axis_pass_shared[];
  Complex<T>* buf = reinterpret_cast<Complex<T>*>(axis_pass_shared);
  T* values = reinterpret_cast<T*>(axis_pass_shared);
  constexpr bool kForward = Op == AxisTransform::Dct;
  const int L = 1 << log2L;
  const int stride = shared_fft_line_stride(L);
  const int tile_values = 1 << (log2L + log2C);
  const int pairs = 1 << (log2C - 1);
  // The tile's first value: column blockIdx.x * C of row 0, or row blockIdx.x * C.
  const long long tile_start = static_cast<long long>(blockIdx.x) << (Columns ? log2C : log2C + log2L);
  const T* tile_in = in + tile_start;
  T* tile_out = out + tile_start;
  // Value of line l at slot p: the real part of complex line l/2 for even l, the imaginary
  // part for odd l.
  auto slot = [&](int l, int p) { return 2 * ((l >> 1) * stride + shared_fft_slot(p)) + (l & 1); };

  for (int e0 = threadIdx.x; e0 < tile_values; e0 += kAxisLoadBatch * blockDim.x) {
    T loaded[kAxisLoadBatch];
#pragma unroll
    for (int u = 0; u < kAxisLoadBatch; ++u) {
      const int e = e0 + u * blockDim.x;
      if (e < tile_values) {
        int l, s;
        axis_tile_element<Columns>(e, log2L, log2C, l, s);
        loaded[u] = tile_in[axis_tile_offset<Columns>(e, l, s, cols)];
      }
    }
#pragma unroll
    for (int u = 0; u < kAxisLoadBatch; ++u) {
      const int e = e0 + u * blockDim.x;
      if (e < tile_values) {
        int l, s;
        axis_tile_element<Columns>(e, log2L, log2C, l, s);
        values[slot(l, kForward ? makhoul_position(s, L) : s)] = loaded[u];
      }
    }
  }
  __syncthreads();

  // Pre- and postprocess: item i < items owns slots k and L-k of complex line q for
  // k = 0..L/2 - 1; the last `pairs` items own the self-mirrored slot L/2 of each line.
  const int log2_half = log2L - 1;
  const int items = pairs << log2_half;
  if constexpr (!kForward) {
    for (int i = threadIdx.x; i < items + pairs; i += blockDim.x) {
      const int q = i < items ? i >> log2_half : i - items;
      const int k = i < items ? i & ((1 << log2_half) - 1) : L / 2;
      const int mirror = (L - k) & (L - 1);  // slot L-k (k == 0: slot 0, and X[L] = 0)
      Complex<T>* z = buf + q * stride;
      const Complex<T> at_k = z[shared_fft_slot(k)], at_mirror = z[shared_fft_slot(mirror)];  // (a, b) at k, L-k
      // idct_pre of math/dct1d.hpp for both lines: a = X'[k], b = X'[L-k].
      const Complex<T> zero{T(0), T(0)};
      Complex<T> a, b;
      if constexpr (Op == AxisTransform::Idxst) {
        a = k == 0 ? zero : at_mirror;
        b = k == 0 ? zero : at_k;
      } else {
        a = at_k;
        b = k == 0 ? zero : at_mirror;
      }
      const Complex<T> tk = conj(twiddles[k]);
      Complex<T> wa = tk * Complex<T>{a.re, -b.re};
      Complex<T> wb = tk * Complex<T>{a.im, -b.im};
      if (2 * k == L) {  // real in exact arithmetic; drop the rounding so the lines do not mix
        wa.im = T(0);
        wb.im = T(0);
      }
      z[shared_fft_slot(k)] = Complex<T>{wa.re - wb.im, wa.im + wb.re};  // W_a + i W_b
      if (has_distinct_mirror(k, L)) {
        z[shared_fft_slot(mirror)] = Complex<T>{wa.re + wb.im, wb.re - wa.im};  // conj(W_a) + i conj(W_b)
      }
    }
    __syncthreads();
  }

  shared_fft<!kForward>(buf, fft_twiddles, log2L, stride, pairs);

  if constexpr (kForward) {
    for (int i = threadIdx.x; i < items + pairs; i += blockDim.x) {
      const int q = i < items ? i >> log2_half : i - items;
      const int k = i < items ? i & ((1 << log2_half) - 1) : L / 2;
      const int mirror = (L - k) & (L - 1);
      Complex<T>* z = buf + q * stride;
      const Complex<T> zk = z[shared_fft_slot(k)], zm = z[shared_fft_slot(mirror)];
      const Complex<T> va{T(0.5) * (zk.re + zm.re), T(0.5) * (zk.im - zm.im)};  // (Z[k] + conj(Z[L-k])) / 2
      const Complex<T> vb{T(0.5) * (zk.im + zm.im), T(0.5) * (zm.re - zk.re)};  // (Z[k] - conj(Z[L-k])) / 2i
      const Complex<T> tk = twiddles[k];
      z[shared_fft_slot(k)] = Complex<T>{re_mul(tk, va), re_mul(tk, vb)};
      if (has_distinct_mirror(k, L)) {
        const Complex<T> tm = twiddles[L - k];
        z[shared_fft_slot(mirror)] = Complex<T>{re_mul(tm, conj(va)), re_mul(tm, conj(vb))};
      }
    }
    __syncthreads();
  }

  for (int e = threadIdx.x; e < tile_values; e += blockDim.x) {
    int l, s;
    axis_tile_element<Columns>(e, log2L, log2C, l, s);
    T v = values[slot(l, kForward ? s : makhoul_position(s, L))];
    if constexpr (kForward) v = efield::detail::zero_below(v, zero_below);
    if constexpr (Op == AxisTransform::Idxst) {
      if (s & 1) v = -v;
    }
    tile_out[axis_tile_offset<Columns>(e, l, s, cols)] = v;
  }
}

}  // namespace efield::detail::cuda_nd
