#pragma once
// The row half of Cuda2DMethod::TwoPasses: Algorithm 2's 2D real FFT as two passes of our own,
// like cuFFT's own 2D FFT, with the Makhoul reorder (dct2) or the inverse reorder and signs
// (inverses) folded into the row pass's global loads or stores:
//   dct2:     dct2_row_pass (reorder + row real FFT) -> dct2_column_pass (column FFT + postprocess)
//   inverses: idct2_column_pass (preprocess + column IFFT) -> idct2_row_pass (row C2R + reorder)
// so the array crosses memory twice, against four times for OneFft and three for
// RowFftColumnPass.
//
// A row of N = 2^kLog2N reals is one complex FFT of length L = N/2 (math/real_fft.hpp) held by
// J = L/V threads, V = 16 (or 8) values each (register_fft.cuh); a block runs kRowsPerBlock rows
// side by side. Row m of the input x is row p(m) of the reordered array (p = makhoul_position), and
// within a row the reorder maps one 16-byte quad x[4p .. 4p+3] onto z[p] = (x[4p], x[4p+2]) and
// z[L-1-p] = (x[4p+3], x[4p+1]); the inverse writes the same quads back from z.
#include <cuda_runtime.h>

#include "common/dependent_launch.cuh"
#include "math/complex.hpp"
#include "math/dct1d.hpp"
#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "math/real_fft.hpp"
#include "transforms/dct2d_column_four_step.cuh"
#include "transforms/dct2d_row_pass.hpp"
#include "transforms/pass_launch.hpp"
#include "transforms/quad4.cuh"
#include "transforms/register_fft.cuh"
#include "transforms/shared_fft.cuh"

namespace efield::detail::cuda_nd {

// Values of its row's FFT a thread holds in registers (register_fft.cuh): 16 (radix-16
// stages), except in the double inverse up to 1,024 columns, 8 (radix 8: twice the threads a
// row, each with half the values): with 16, short rows give too few threads to cover the
// pass's latencies (docs/performance.md, "Row pass: values a thread").
template <typename T, int kLog2N, bool Inverse>
constexpr int row_pass_values() {
  return Inverse && sizeof(T) == 8 && kLog2N <= 10 ? 8 : 16;
}

template <typename T, int kLog2N, bool Inverse>
struct RowPassShape {
  static constexpr int kN = 1 << kLog2N;
  static constexpr int kL = kN / 2;  // complex FFT length
  static constexpr int kV = row_pass_values<T, kLog2N, Inverse>();
  static constexpr int kJ = kL / kV;  // threads per row
  // Blocks of about 64 threads (one row from 2048 columns on): a block's loads then overlap
  // other blocks' FFTs and stores, as in the four-step passes (and cuFFT's own row kernel, one
  // row a block of 64 threads); 8192 columns take 256 threads a row anyway (docs/performance.md,
  // "Row pass: block size").
  static constexpr int kBlockThreadsWanted = 64;
  static constexpr int kRowsPerBlock = kJ >= kBlockThreadsWanted ? 1 : kBlockThreadsWanted / kJ;
  static constexpr int kThreads = kRowsPerBlock * kJ;
  static constexpr int kStride = shared_fft_line_stride(kL);
  static constexpr std::size_t kSharedBytes = sizeof(Complex<T>) * kStride * kRowsPerBlock;
  // Threads an SM must hold at once (__launch_bounds__' minimum of blocks), which caps the
  // registers so that an SM holds enough blocks: 768 for the float inverse from 4096 columns, 512
  // for the other inverses and the double forward pass, 1,024 for the float forward pass at 8192
  // columns, no cap otherwise; per pass and length, the cap that timed best (docs/performance.md,
  // "Row pass: register caps").
  static constexpr int kMinBlocks = min_blocks_for(Inverse && sizeof(T) == 4 && kLog2N >= 12 ? 768
                                                   : Inverse || sizeof(T) == 8                 ? 512
                                                   : kLog2N == 13                              ? 1024
                                                                                               : 0,
                                                   kThreads);
  static_assert(kL >= 32 && kL >= kV, "row pass: rows of at least 64 values");
};

// What one thread of a row-pass block works on.
template <typename T, typename Shape>
struct RowPassThread {
  int m;    // its row of x
  int j;    // its butterfly within the row
  bool live;
  Complex<T>* line;  // its row's FFT in shared memory

  __device__ __forceinline__ RowPassThread(int M, unsigned char* shared)
      : m(static_cast<int>(blockIdx.x) * Shape::kRowsPerBlock + static_cast<int>(threadIdx.x) / Shape::kJ),
        j(static_cast<int>(threadIdx.x) % Shape::kJ),
        live(m < M),
        line(reinterpret_cast<Complex<T>*>(shared) + (static_cast<int>(threadIdx.x) / Shape::kJ) * Shape::kStride) {}
};

// Launch: gridDim.x = ceil(M / kRowsPerBlock), blockDim.x = kThreads, kSharedBytes of dynamic
// shared memory. twiddles: line_twiddles(L); split: W^k = exp(-2 pi i k / N) for k <= L/2.
// Output (Dct2RowOutput):
// - Spectrum: V is M x (N/2 + 1), the row R2C of the reordered x;
// - CompactSpectrum: V is M x N/2 (it fits in the output array of the dct2, see
//   dct2_column_pass_in_place) and its last column, V[., N/2], goes to nyquist (M values);
// - RowDct: V holds y, M x N reals: y[p(m), .] is the 1D dct of row m of x
//   (dct_post_npoint_mirror; tv = quarter_twiddles(N)).
// nyquist and tv are unused where not named.
template <typename T, int kLog2N, Dct2RowOutput Output>
__global__ void __launch_bounds__(RowPassShape<T, kLog2N, false>::kThreads, RowPassShape<T, kLog2N, false>::kMinBlocks)
    dct2_row_pass(const T* __restrict__ x, Complex<T>* __restrict__ V, int M,
                  const Complex<T>* __restrict__ twiddles, const Complex<T>* __restrict__ split,
                  Complex<T>* __restrict__ nyquist, const Complex<T>* __restrict__ tv) {
  constexpr bool Compact = Output == Dct2RowOutput::CompactSpectrum;
  using Shape = RowPassShape<T, kLog2N, false>;
  constexpr int N = Shape::kN, L = Shape::kL, J = Shape::kJ, kV = Shape::kV, kH = kV / 2;
  extern __shared__ __align__(16) unsigned char row_pass_shared[];
  let_next_kernel_start();  // the next pass waits for this whole grid anyway
  const RowPassThread<T, Shape> t(M, row_pass_shared);
  const int j = t.j;

  // v[q] = z[j + q J]. For q < kV/2 that is the front of quad p = j + q J, loaded here; for
  // q >= kV/2 the back of quad p = (J-1-j) + (kV-1-q) J, which thread J-1-j loads and leaves in
  // shared memory. Each quad is read once: loaded by both threads (the second read meant to hit
  // L1) it came from L2 about 1.5 times (docs/performance.md, "Row pass: each quad read once").
  Complex<T> v[kV];
  const T* row = x + static_cast<long long>(t.live ? t.m : 0) * N;
#pragma unroll
  for (int q = 0; q < kH; ++q) {
    const int p = j + q * J;
    const Quad4<T> f = load_quad4(row + 4 * p);
    v[q] = Complex<T>{f.a, f.c};
    t.line[shared_fft_slot(L - 1 - p)] = Complex<T>{f.d, f.b};
  }
  __syncthreads();
#pragma unroll
  for (int q = kH; q < kV; ++q) v[q] = t.line[shared_fft_slot(j + q * J)];
  register_line_fft_into_line<false, L, kV>(v, j, t.line, twiddles);
  if (!t.live) return;

  // V[k] and V[L-k] for k = j + q J < L/2 (k = 0 gives V[0] and V[L]); V[L/2] by thread 0.
  const int v_row = makhoul_position(t.m, M);
  if constexpr (Output == Dct2RowOutput::RowDct) {
    // y[k], y[N-k] from V[k]; y[L-k], y[L+k] from V[L-k] (k = 0: y[0], and y[L] once). Written
    // straight from the registers: gathering y in shared memory for 16-byte stores costs more
    // than it saves (docs/performance.md, "Row pass: RowDct stores").
    T* y = reinterpret_cast<T*>(V) + static_cast<long long>(v_row) * N;
#pragma unroll
    for (int q = 0; q < kH; ++q) {
      const int k = j + q * J;
      const SpectrumPair<T> s =
          real_fft_split(t.line[shared_fft_slot(k)], t.line[shared_fft_slot((L - k) & (L - 1))], split[k]);
      const DctMirrorPair<T> a = dct_post_npoint_mirror(s.k, tv[k]);
      const DctMirrorPair<T> b = dct_post_npoint_mirror(s.L_k, tv[L - k]);
      y[k] = a.k;
      if (k > 0) y[N - k] = a.N_k;
      y[L - k] = b.k;
      if (k > 0) y[L + k] = b.N_k;
    }
    if (j == 0) {
      const Complex<T> z = t.line[shared_fft_slot(L / 2)];
      const DctMirrorPair<T> c = dct_post_npoint_mirror(real_fft_split(z, z, split[L / 2]).k, tv[L / 2]);
      y[L / 2] = c.k;
      y[N - L / 2] = c.N_k;
    }
    return;
  }
  Complex<T>* out = V + static_cast<long long>(v_row) * (Compact ? L : L + 1);
#pragma unroll
  for (int q = 0; q < kH; ++q) {
    const int k = j + q * J;
    const SpectrumPair<T> s =
        real_fft_split(t.line[shared_fft_slot(k)], t.line[shared_fft_slot((L - k) & (L - 1))], split[k]);
    out[k] = s.k;
    if (Compact && q == 0 && j == 0) {
      nyquist[v_row] = s.L_k;
    } else {
      out[L - k] = s.L_k;
    }
  }
  if (j == 0) {
    const Complex<T> z = t.line[shared_fft_slot(L / 2)];
    out[L / 2] = real_fft_split(z, z, split[L / 2]).k;
  }
}

// The inverse row pass of one block: x (M x N) from W (M rows of N/2 + 1, `pitch` complex values
// apart, the column pass's output):
// row C2R of W's row p(m), then x[m, n] = sign(m, n) y[p(m), q(n)] with the (-1)^index of sine
// axes. four_step_m1: 0 after the column pass; the split's M1 after the four-step column passes,
// which leave W's rows in another order (four_step_stored_row). InPlace: W is compact (M x N/2
// in x's own memory, row m holding W's row p(m), idct2_column_pass_compact) and its column N/2
// is in nyquist; a block reads its rows whole before the FFT's first barrier and writes them
// after it, and no other block touches them.
template <typename T, int kLog2N, bool SineRows, bool SineCols, bool InPlace>
__device__ __forceinline__ void idct2_row_block(const Complex<T>* W, int pitch, const Complex<T>* nyquist, T* x,
                                                int M, const Complex<T>* twiddles, const Complex<T>* split,
                                                int four_step_m1, unsigned char* row_pass_shared) {
  using Shape = RowPassShape<T, kLog2N, true>;
  constexpr int N = Shape::kN, L = Shape::kL, J = Shape::kJ, kV = Shape::kV, kH = kV / 2;
  const RowPassThread<T, Shape> t(M, row_pass_shared);
  const int j = t.j;

  // v[q] = 2 Z[k], k = j + q J. Each pair (k, L-k), k < L/2 (q < kV/2), is merged once from
  // W[k] and W[L-k] (real_ifft_merge, so the split table stops at L/2): Z[k] stays in v[q], Z[L-k]
  // goes through `line` to the thread that holds it, J - j at kV - 1 - q (thread 0: itself at
  // kV - q, and Z[L/2]): every W value is read once and every pair merged once, half the loads
  // and fewer registers than merging all kV values in each thread (docs/performance.md,
  // "Row pass: each pair merged once").
  Complex<T> v[kV];
  const int w_row = !t.live ? 0 : InPlace ? t.m : four_step_stored_row(makhoul_position(t.m, M), M, four_step_m1);
  const Complex<T>* in = W + static_cast<long long>(w_row) * pitch;
#pragma unroll
  for (int q = 0; q < kH; ++q) {
    const int k = j + q * J;
    const Complex<T> mirror = InPlace && k == 0 ? nyquist[t.live ? t.m : 0] : in[L - k];
    const SpectrumPair<T> z = real_ifft_merge(in[k], mirror, split[k]);
    v[q] = z.k;
    if (k > 0) t.line[shared_fft_slot(L - k)] = z.L_k;
  }
  if (j == 0) {
    const Complex<T> half = in[L / 2];
    t.line[shared_fft_slot(L / 2)] = real_ifft_merge(half, half, split[L / 2]).k;
  }
  __syncthreads();  // the FFT's first barrier comes before its first write to `line`
#pragma unroll
  for (int q = kH; q < kV; ++q) v[q] = t.line[shared_fft_slot(j + q * J)];
  register_line_fft_into_line<true, L, kV>(v, j, t.line, twiddles);
  if (!t.live) return;

  // Quad p of row m: x[4p .. 4p+3] = y[2p], y[N-1-2p], y[2p+1], y[N-2-2p]
  //                               = Re z[p], Im z[L-1-p], Im z[p], Re z[L-1-p].
  T* row = x + static_cast<long long>(t.m) * N;
  const T even = idct2_output_sign<SineRows, SineCols, T>(t.m, 0);
  const T odd = idct2_output_sign<SineRows, SineCols, T>(t.m, 1);
#pragma unroll
  for (int q = 0; q < kH; ++q) {
    const int p = j + q * J;
    const Complex<T> front = t.line[shared_fft_slot(p)], back = t.line[shared_fft_slot(L - 1 - p)];
    store_quad4(row + 4 * p, Quad4<T>{even * front.re, odd * back.im, even * front.im, odd * back.re});
  }
}

// Launch and tables as dct2_row_pass; W: M rows of N/2 + 1, `pitch` apart.
template <typename T, int kLog2N, bool SineRows, bool SineCols>
__global__ void __launch_bounds__(RowPassShape<T, kLog2N, true>::kThreads, RowPassShape<T, kLog2N, true>::kMinBlocks)
    idct2_row_pass(const Complex<T>* __restrict__ W, int pitch, T* __restrict__ x, int M,
                   const Complex<T>* __restrict__ twiddles, const Complex<T>* __restrict__ split, int four_step_m1) {
  extern __shared__ __align__(16) unsigned char row_pass_shared[];
  wait_for_previous_kernel();  // launched with overlap after the pass that writes its input
  idct2_row_block<T, kLog2N, SineRows, SineCols, false>(W, pitch, nullptr, x, M, twiddles, split, four_step_m1,
                                                        row_pass_shared);
}

// The same pass in place: Wx holds the compact W on entry (idct2_column_pass_compact wrote it,
// its column N/2 in nyquist) and x on exit, so the inverses' spectrum takes no array of its own.
template <typename T, int kLog2N, bool SineRows, bool SineCols>
__global__ void __launch_bounds__(RowPassShape<T, kLog2N, true>::kThreads, RowPassShape<T, kLog2N, true>::kMinBlocks)
    idct2_row_pass_in_place(T* Wx, const Complex<T>* __restrict__ nyquist, int M,
                            const Complex<T>* __restrict__ twiddles, const Complex<T>* __restrict__ split) {
  extern __shared__ __align__(16) unsigned char row_pass_shared[];
  wait_for_previous_kernel();  // launched with overlap after the pass that writes its input
  idct2_row_block<T, kLog2N, SineRows, SineCols, true>(reinterpret_cast<const Complex<T>*>(Wx), (1 << kLog2N) / 2,
                                                       nyquist, Wx, M, twiddles, split, 0, row_pass_shared);
}

}  // namespace efield::detail::cuda_nd
