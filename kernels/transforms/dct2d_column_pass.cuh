#pragma once
// The column half of Cuda2DMethod::RowFftColumnPass: the 2D real FFT of Algorithm 2 split into
// cuFFT's batched 1D real FFTs along the rows and one pass of our own down the columns, with
// the 2D postprocess (dct2) or preprocess (inverses) fused into that pass. The spectrum's
// column axis then never makes a separate trip through memory:
//   dct2:     reorder -> row R2C (cuFFT) -> dct2_column_pass: column FFT + quad postprocess
//   inverses: idct2_column_pass: quad preprocess + column inverse FFT -> row C2R (cuFFT) -> reorder
//
// A block owns kCols consecutive spectrum columns v0 .. v0 + kCols - 1 of the M x (N/2 + 1)
// half spectrum (the last block may own fewer) and keeps them whole in shared memory between
// the stages of their FFTs (register_fft.cuh: radix-16 butterflies in registers). The column
// length M = 2^kLog2M and the block shape are template constants, so the index arithmetic
// folds at compile time.
//
// The postprocess needs V[u, v] and V[M-u, v], both in column v; its four outputs (u|M-u,
// v|N-v) land in rows u and M-u, so the block writes kCols values at v0 and kCols values at
// N - v0 - kCols + 1 of every row (32 bytes each in float at kCols = 8). The preprocess of
// column n reads X'[m|M-m, n|N-n], again columns n and N-n only. Formulas: math/dct2d.hpp.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "common/dependent_launch.cuh"
#include "math/complex.hpp"
#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "transforms/column_quads.cuh"
#include "transforms/register_fft.cuh"
#include "transforms/shared_fft.cuh"

namespace efield::detail::cuda_nd {

// Thread t of a block works on column l = t % kCols, butterfly j = t / kCols (16 values of the
// column each, register_fft.cuh): consecutive lanes take consecutive columns, so a warp's global
// loads and stores cover kCols consecutive values of a few rows.
template <typename T, int kLog2M, int Cols>
struct ColumnPassShape {
  static constexpr int kRows = 1 << kLog2M;
  static constexpr int kCols = Cols;
  static constexpr int kJ = kRows / 16;  // threads per column
  static constexpr int kThreads = Cols * kJ;
  // Column l starts at l * kStride in shared memory. A shared-memory wavefront serves
  // kWave = 128 / sizeof(Complex<T>) lanes: kCols columns times kWave / kCols consecutive j. With
  // kStride = kWave / kCols (mod kWave) those lanes hit distinct banks (element p sits at
  // shared_fft_slot(p), which spreads the stride-16 writes of the first stage too).
  static constexpr int kWave = 128 / static_cast<int>(sizeof(Complex<T>));
  static constexpr int kStrideResidue = (kCols >= kWave ? 1 : kWave / kCols) % kWave;
  static constexpr int kStride =
      shared_fft_slot(kRows) + ((kStrideResidue - shared_fft_slot(kRows)) % kWave + kWave) % kWave;
  static_assert(kRows >= 64 && kThreads <= 1024, "column pass: block shape out of range");
  // The pre/postprocess quads (u, col) with 0 <= u < M/2: thread (l, j) takes rows
  // quad_row(j, b), b < kQuadsPerThread, of its own column (row M/2 goes to thread j = 0).
  static constexpr int kQuadsPerThread = kRows / 2 / kJ;  // 8
  __device__ __forceinline__ static int quad_row(int j, int b) { return j + b * kJ; }
};

// What one thread of a column-pass block works on, for N columns of real data.
template <typename T, typename Shape>
struct ColumnPassThread {
  int H;     // spectrum columns, N/2 + 1
  int first; // the block's first spectrum column
  int here;  // columns the block owns (the last block may own fewer than kCols)
  int l;     // this thread's column within the block
  int j;     // its butterfly (16 values of the column)
  Complex<T>* line;  // its column in shared memory

  __device__ __forceinline__ ColumnPassThread(int N, unsigned char* shared)
      : H(N / 2 + 1),
        first(static_cast<int>(blockIdx.x) * Shape::kCols),
        here(min(Shape::kCols, H - first)),
        l(static_cast<int>(threadIdx.x) % Shape::kCols),
        j(static_cast<int>(threadIdx.x) / Shape::kCols),
        line(reinterpret_cast<Complex<T>*>(shared) + l * Shape::kStride) {}
  __device__ __forceinline__ bool live() const { return l < here; }
};

// The dct2 column pass of one block. InPlace: V is M x N/2 in the same memory as X, its last
// column V[., N/2] comes from nyquist, and every block has read its columns before any block
// writes (a grid-wide barrier: the kernel runs as a cooperative launch, all blocks resident).
// Threshold: apply zero_below (store_dct2_quad_rows).
template <typename T, int kLog2M, int kCols, bool InPlace, bool Threshold>
__device__ __forceinline__ void dct2_column_block(const Complex<T>* V, const Complex<T>* nyquist, T* X, int N,
                                                  const Complex<T>* tu, const Complex<T>* tv,
                                                  const Complex<T>* twiddles, T zero_below,
                                                  unsigned char* column_pass_shared) {
  using Shape = ColumnPassShape<T, kLog2M, kCols>;
  constexpr int M = Shape::kRows, J = Shape::kJ;
  const ColumnPassThread<T, Shape> t(N, column_pass_shared);
  const int l = t.l, j = t.j;
  Complex<T>* line = t.line;

  // The first stage's inputs straight from global memory: V[j + q J, first + l].
  Complex<T> v[16];
  const Complex<T>* column = V + t.first + l;
  int stride = t.H;
  if constexpr (InPlace) {
    stride = N / 2;
    if (t.first + l == N / 2) {
      column = nyquist;
      stride = 1;
    }
  }
#pragma unroll
  for (int q = 0; q < 16; ++q) {
    v[q] = t.live() ? column[static_cast<long long>(j + q * J) * stride] : Complex<T>{T(0), T(0)};
  }
  if constexpr (InPlace) cooperative_groups::this_grid().sync();
  register_line_fft_into_line<false, M>(v, j, line, twiddles);

  // Quads (u, col), 0 <= u <= M/2, of this thread's column: rows Shape::quad_row(j, b), and row
  // M/2 for j = 0. Consecutive lanes write consecutive columns of one row.
  if (!t.live()) return;
  const int col = t.first + l;
  const Complex<T> t_col = tv[col];
  auto write_quad = [&](int u, Complex<T> t_u) {
    store_dct2_quad<Threshold>(X, M, N, u, col, line[shared_fft_slot(u)], line[shared_fft_slot((M - u) & (M - 1))],
                               t_u, t_col, zero_below);
  };
  Complex<T> t_u[Shape::kQuadsPerThread];
#pragma unroll
  for (int b = 0; b < Shape::kQuadsPerThread; ++b) t_u[b] = tu[Shape::quad_row(j, b)];
#pragma unroll
  for (int b = 0; b < Shape::kQuadsPerThread; ++b) write_quad(Shape::quad_row(j, b), t_u[b]);
  if (j == 0) write_quad(M / 2, tu[M / 2]);
}

// Launch: gridDim.x = ceil((N/2 + 1) / kCols), blockDim.x = kThreads, dynamic shared memory
// kCols * kStride complex values. V: the row R2C of the reordered input, M x (N/2 + 1).
// tu, tv: quarter_twiddles(M), quarter_twiddles(N); twiddles: line_twiddles(M).
template <typename T, int kLog2M, int kCols, bool Threshold>
__global__ void __launch_bounds__(ColumnPassShape<T, kLog2M, kCols>::kThreads)
    dct2_column_pass(const Complex<T>* __restrict__ V, T* __restrict__ X, int N, const Complex<T>* __restrict__ tu,
                     const Complex<T>* __restrict__ tv, const Complex<T>* __restrict__ twiddles, T zero_below) {
  extern __shared__ __align__(16) unsigned char column_pass_shared[];
  wait_for_previous_kernel();  // TwoPasses launches it with overlap after its row pass
  dct2_column_block<T, kLog2M, kCols, false, Threshold>(V, nullptr, X, N, tu, tv, twiddles, zero_below,
                                                        column_pass_shared);
}

// The same pass with the spectrum in the output array X itself (M x N/2 complex values, which
// take the memory of M x N reals; dct2_row_pass<Compact> wrote it there) and its last column in
// nyquist: two arrays cross L2 instead of three. A cooperative launch whose blocks are all
// resident (the plan checks), since each block overwrites columns other blocks read.
template <typename T, int kLog2M, int kCols, bool Threshold>
__global__ void __launch_bounds__(ColumnPassShape<T, kLog2M, kCols>::kThreads)
    dct2_column_pass_in_place(T* VX, const Complex<T>* __restrict__ nyquist, int N,
                              const Complex<T>* __restrict__ tu, const Complex<T>* __restrict__ tv,
                              const Complex<T>* __restrict__ twiddles, T zero_below) {
  extern __shared__ __align__(16) unsigned char column_pass_shared[];
  dct2_column_block<T, kLog2M, kCols, true, Threshold>(reinterpret_cast<const Complex<T>*>(VX), nyquist, VX, N, tu,
                                                       tv, twiddles, zero_below, column_pass_shared);
}

// The inverse column pass of one block: W (M x (N/2 + 1), the row C2R's input) from the
// coefficients X (M x N). Wide: the preprocess reads X in 16-byte quads (load_idct2_quads4:
// N % 4 == 0, N >= 8, X 16-byte aligned), four columns of a row pair a thread; otherwise one
// value at a time, the thread's own column. Compact: W is M x N/2, its row makhoul_source(r)
// holding row r (the row idct2_row_pass_in_place of output row makhoul_source(r) needs), and
// W's column N/2 goes to nyquist in the same row order.
template <typename T, int kLog2M, int kCols, bool SineRows, bool SineCols, bool Wide, bool Compact>
__device__ __forceinline__ void idct2_column_block(const T* X, Complex<T>* W, Complex<T>* nyquist, int N,
                                                   const Complex<T>* tm, const Complex<T>* tn,
                                                   const Complex<T>* twiddles, unsigned char* column_pass_shared) {
  using Shape = ColumnPassShape<T, kLog2M, kCols>;
  constexpr int M = Shape::kRows, J = Shape::kJ;
  const ColumnPassThread<T, Shape> t(N, column_pass_shared);
  const int j = t.j;
  Complex<T>* line = t.line;
  const int n = t.first + t.l;
  const bool live = t.live();  // a column past N/2 keeps zeros, so its FFT's input is defined
  if constexpr (Wide) {
    // Thread (g, r): columns first + 4g .. first + 4g + 3, row pairs (r + b R, M - r - b R).
    constexpr int kGroups = kCols / 4, R = Shape::kThreads / kGroups;
    static_assert(kCols % 4 == 0 && 2 * R == M / 2, "column pass: wide preprocess needs 4 columns a group");
    const int g = static_cast<int>(threadIdx.x) % kGroups, r = static_cast<int>(threadIdx.x) / kGroups;
    const int n0 = t.first + 4 * g;
    Complex<T>* lines = reinterpret_cast<Complex<T>*>(column_pass_shared) + 4 * g * Shape::kStride;
    auto store_quads = [&](int m, const T (&x)[4][4]) {
      const Complex<T> t_m = tm[m], t_Mm = tm[M - m];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const Complex<T> t_n = tn[min(n0 + c, N / 2)];
        const Idct2Pair<T> w = idct2_pre_pair(x[c][0], x[c][1], x[c][2], x[c][3], t_m, t_Mm, t_n);
        lines[c * Shape::kStride + shared_fft_slot(m)] = w.m_n;
        if (has_distinct_mirror(m, M)) lines[c * Shape::kStride + shared_fft_slot(M - m)] = w.Mm_n;
      }
    };
    T x[2][4][4];
#pragma unroll
    for (int b = 0; b < 2; ++b) load_idct2_quads4<SineRows, SineCols>(X, M, N, r + b * R, n0, x[b]);
#pragma unroll
    for (int b = 0; b < 2; ++b) store_quads(r + b * R, x[b]);
    if (r == 0) {
      load_idct2_quads4<SineRows, SineCols>(X, M, N, M / 2, n0, x[0]);
      store_quads(M / 2, x[0]);
    }
  } else {
    // Quads (m, n), 0 <= m <= M/2, of this thread's column n: the two column inputs w[m, n] and
    // w[M-m, n] from X'[m|M-m, n|N-n]. All loads first, so they are in flight together.
    const Complex<T> t_n = live ? tn[n] : Complex<T>{T(1), T(0)};
    auto load_quad = [&](int m, T* x) { load_idct2_quad<SineRows, SineCols>(X, M, N, m, n, live, x); };
    auto store_pair = [&](int m, const T* x) {
      const Idct2Pair<T> w = idct2_pre_pair(x[0], x[1], x[2], x[3], tm[m], tm[M - m], t_n);
      line[shared_fft_slot(m)] = w.m_n;
      if (has_distinct_mirror(m, M)) line[shared_fft_slot(M - m)] = w.Mm_n;
    };
    T x[Shape::kQuadsPerThread][4];
#pragma unroll
    for (int b = 0; b < Shape::kQuadsPerThread; ++b) load_quad(Shape::quad_row(j, b), x[b]);
#pragma unroll
    for (int b = 0; b < Shape::kQuadsPerThread; ++b) store_pair(Shape::quad_row(j, b), x[b]);
    if (j == 0) {
      T middle[4];
      load_quad(M / 2, middle);
      store_pair(M / 2, middle);
    }
  }
  __syncthreads();

  Complex<T> v[16];
#pragma unroll
  for (int q = 0; q < 16; ++q) v[q] = line[shared_fft_slot(j + q * J)];
  register_line_fft<true, M>(v, j, line, twiddles);
  // The last stage leaves natural order: v[q] = w-hat[j + q J], stored straight to global memory.
  if (!live) return;
  if constexpr (Compact) {
    Complex<T>* column = n == N / 2 ? nyquist : W + n;
    const int stride = n == N / 2 ? 1 : N / 2;
#pragma unroll
    for (int q = 0; q < 16; ++q) column[static_cast<long long>(makhoul_source(j + q * J, M)) * stride] = v[q];
  } else {
    Complex<T>* column = W + n;
#pragma unroll
    for (int q = 0; q < 16; ++q) column[static_cast<long long>(j + q * J) * t.H] = v[q];
  }
}

// Launch: as dct2_column_pass. tm, tn: quarter_twiddles(M), quarter_twiddles(N).
template <typename T, int kLog2M, int kCols, bool SineRows, bool SineCols, bool Wide>
__global__ void __launch_bounds__(ColumnPassShape<T, kLog2M, kCols>::kThreads)
    idct2_column_pass(const T* __restrict__ X, Complex<T>* __restrict__ W, int N, const Complex<T>* __restrict__ tm,
                      const Complex<T>* __restrict__ tn, const Complex<T>* __restrict__ twiddles) {
  extern __shared__ __align__(16) unsigned char column_pass_shared[];
  let_next_kernel_start();  // the next pass waits for this whole grid anyway
  idct2_column_block<T, kLog2M, kCols, SineRows, SineCols, Wide, false>(X, W, nullptr, N, tm, tn, twiddles,
                                                                         column_pass_shared);
}

// The same pass writing W compact (M x N/2 in the memory of the M x N output, rows in the
// order the in-place row pass reads them, column N/2 in nyquist): the inverses' spectrum then
// takes no array of its own, as dct2_column_pass_in_place's does not. Blocks write only, so
// nothing needs the grid to wait.
template <typename T, int kLog2M, int kCols, bool SineRows, bool SineCols>
__global__ void __launch_bounds__(ColumnPassShape<T, kLog2M, kCols>::kThreads)
    idct2_column_pass_compact(const T* __restrict__ X, Complex<T>* __restrict__ W, Complex<T>* __restrict__ nyquist,
                              int N, const Complex<T>* __restrict__ tm, const Complex<T>* __restrict__ tn,
                              const Complex<T>* __restrict__ twiddles) {
  extern __shared__ __align__(16) unsigned char column_pass_shared[];
  let_next_kernel_start();  // the next pass waits for this whole grid anyway
  idct2_column_block<T, kLog2M, kCols, SineRows, SineCols, true, true>(X, W, nyquist, N, tm, tn, twiddles,
                                                                        column_pass_shared);
}

}  // namespace efield::detail::cuda_nd
