#pragma once
// The column FFT of Cuda2DMethod::ThreePasses, for long columns (M = 1024..8192 rows). The
// column pass (dct2d_column_pass.cuh) keeps whole columns in shared memory, so at 4096 and 8192
// rows a block holds only 4 or 2 of them and moves every row in 8- to 32-byte pieces. Here the
// length-M FFT is split in two passes of short lines (four-step, M = M1 M2, M1 = 64 or 128,
// FourStepSplit):
//   X[k1 + M1 k2] = sum_n2 w_M2^(n2 k2) [ w_M^(n2 k1) sum_n1 x[n2 + M2 n1] w_M1^(n1 k1) ],
// so that a block holds 256 bytes of every row it touches (kFourStepPieceBytes):
//   dct2:     row pass (the rows' 1D dct, Dct2RowOutput::RowDct) -> column_lines<forward> on
//             the columns in packed pairs (N/2 complex columns): line n2 = rows n2 + M2 n1, FFT
//             over n1, times w_M^(n2 k1), back to the same rows -> dct2_column_groups: group
//             k1 = rows M2 k1 .. M2 k1 + M2 - 1, FFT over n2, then the pair postprocess
//             (dct2_packed_column_pair)
//   inverses: idct2_column_groups: the quad preprocess, group m2 = rows m2 + M2 m1, inverse FFT
//             over m1, times w_M^-(m2 n1) -> column_lines<inverse>: line n1 = rows
//             M2 n1 .. M2 n1 + M2 - 1, inverse FFT over m2 -> row pass, reading row n1 + M1 n2
//             where it was left, at M2 n1 + n2 (four_step_stored_row)
//
// The postprocess pairs Z[u] with Z[M-u]. For u = k1 + M1 k2 that is group (M1 - k1) mod M1 at
// position M2 - 1 - k2 (at (M2 - k2) mod M2 in group 0), so a block of dct2_column_groups owns
// the two groups k1 and M1 - k1 of its columns (pair 0: the groups 0 and M1/2, each its own
// partner), and each thread works the pairs of V/2 positions k2 < M2/2 of its group: every pair
// (u, c) with u <= M/2 once. The inverse preprocess pairs rows m and M-m the same way (quads,
// on the spectrum of the rows' real FFT), with the roles of M1 and M2 exchanged.
//
// Why the dct2 transforms its rows first: with the columns of a real 2D FFT (N/2 + 1 of them)
// the group pass wrote quads (u|M-u, v|N-v), the mirror columns N-v in 4-byte stores one element
// off the 128-byte lines, and its rows of 4,097 complex values left every 256-byte piece
// misaligned. On packed pairs every row holds N/2 complex values and each pair of outputs is one
// aligned 8- or 16-byte store. The inverses do not take this route: their row pass would then
// read 4-byte values (bench_ispd/results/transforms2d.md, "The dct2 with its rows first and the
// columns in packed pairs").
//
// Thread t of a block works on column l = t % kCols (consecutive lanes, consecutive columns),
// butterfly j = (t / kCols) % kJ of its line g = t / (kCols kJ); a line holds V values per
// thread (four_step_values) in registers between the stages of register_fft.cuh.
#include <cuda_runtime.h>

#include <cstddef>

#include "common/dependent_launch.cuh"
#include "math/complex.hpp"
#include "math/dct2d.hpp"
#include "transforms/column_quads.cuh"
#include "transforms/pass_launch.hpp"
#include "transforms/register_fft.cuh"
#include "transforms/shared_fft.cuh"

namespace efield::detail::cuda_nd {

// M = M1 M2. The inverse passes take M1 = 64 at every M. The forward passes take M1 = 128 at
// 8192 rows (lines of 128 in column_lines, groups of 64 in dct2_column_groups), where groups of
// 128 carry the quad postprocess and the FFT in one pass and run too many instructions; 64
// elsewhere (docs/performance.md, "Four-step passes: the split M1 x M2").
template <int kLog2M, bool Inverse>
struct FourStepSplit {
  static constexpr int kM = 1 << kLog2M;
  static constexpr int kM1 = !Inverse && kLog2M >= 13 ? 128 : 64;
  static constexpr int kM2 = kM / kM1;
  static constexpr int kLineLength = Inverse ? kM2 : kM1;   // column_lines' lines
  static constexpr int kGroupLength = Inverse ? kM1 : kM2;  // the group pass's lines
  static_assert(kM2 >= 16, "four-step column FFT: at least 1024 rows");
};

// Where the inverse's column_lines leaves spectrum row n = n1 + M1 n2: at M2 n1 + n2. The row
// pass reads it there (m1 = 0: no four-step, row n itself).
__device__ __forceinline__ int four_step_stored_row(int n, int M, int m1) {
  return m1 == 0 ? n : (n % m1) * (M / m1) + n / m1;
}

// Values of a line a thread holds in registers (register_fft.cuh) in column_lines (Groups =
// false) or the group pass (Groups = true) at 2^kLog2M rows: 8 in the forward passes, 16 in the
// inverse ones, and 16 in float in the forward lines of 128 (8192 rows) and the forward groups
// of 64 at 4096 rows: per pass, length and type the count that timed best (docs/performance.md,
// "Four-step passes: values a thread").
template <typename T, int kLog2M, bool Inverse, bool Groups>
constexpr int four_step_values() {
  if (Inverse) return 16;
  if (sizeof(T) == 8) return 8;
  return Groups ? (kLog2M == 12 ? 16 : 8) : (kLog2M == 13 ? 16 : 8);
}

// A block of kLines lines of length kLen for each of kCols consecutive spectrum columns
// (kPieceBytes of a row), kV values of a line a thread.
template <typename T, int kLen, int kLinesWanted, int kV, int kPieceBytes>
struct LineBlockShape {
  static constexpr int kCols = kPieceBytes / static_cast<int>(sizeof(Complex<T>));
  static constexpr int kValues = kV;
  static constexpr int kJ = kLen / kV;
  static constexpr int kLines = kLinesWanted;
  static constexpr int kThreads = kCols * kJ * kLines;
  // The lanes of a shared-memory wavefront are consecutive columns at one position of their
  // lines: an odd line stride puts them in distinct banks.
  static constexpr int kStride = shared_fft_slot(kLen) | 1;
  static constexpr std::size_t kSharedBytes = sizeof(Complex<T>) * kStride * kCols * kLines;
  // Threads an SM must hold at once (__launch_bounds__' minimum of blocks), which caps the
  // registers: float 768 with 16 values (80 registers), 1,280 with 8 (48 registers), double 512
  // (128 registers); the caps that timed best (docs/performance.md, "Four-step passes: register
  // caps").
  static constexpr int kResidentThreads = sizeof(T) == 8 ? 512 : kV == 8 ? 1280 : 768;
  static constexpr int kMinBlocks = min_blocks_for(kResidentThreads, kThreads);
  static_assert(kLen >= kV && kThreads <= 1024, "four-step block shape out of range");
};
// Small blocks, one line (column_lines) or one pair of lines (the group passes) of 64 or more
// threads: a block's loads then overlap other blocks' FFTs and stores (docs/performance.md,
// "Four-step passes: block size").
constexpr int kFourStepBlockThreads = 64;
// Each block reads and writes 256 bytes of every row it touches (32 float or 16 double
// columns), as cuFFT's own four-step column kernels do: whole 128-byte lines of every row
// (docs/performance.md, "Four-step passes: row pieces"; bench_ispd/results/transforms2d.md,
// "256-byte row pieces in the four-step passes").
constexpr int kFourStepPieceBytes = 256;
template <typename T, int kLen, int kV, int kPieceBytes>
constexpr int lines_per_block() {
  const int per_line = (kPieceBytes / static_cast<int>(sizeof(Complex<T>))) * (kLen / kV);
  return per_line >= kFourStepBlockThreads ? 1 : kFourStepBlockThreads / per_line;
}
template <typename T, int kLog2M, bool Inverse, int kLen = FourStepSplit<kLog2M, Inverse>::kLineLength,
          int kV = four_step_values<T, kLog2M, Inverse, false>()>
using ColumnLinesShape =
    LineBlockShape<T, kLen, lines_per_block<T, kLen, kV, kFourStepPieceBytes>(), kV, kFourStepPieceBytes>;
// column_lines' minimum of blocks an SM must hold (its register cap): the shape's, except for
// the float inverse lines of 128 (8192 rows), which take 512 threads (up to 128 registers, 80
// with 768), the cap that timed best there (docs/performance.md, "Four-step passes: register
// caps").
template <typename T, int kLog2M, bool Inverse>
constexpr int column_lines_min_blocks() {
  using Shape = ColumnLinesShape<T, kLog2M, Inverse>;
  return Inverse && sizeof(T) == 4 && kLog2M == 13 ? min_blocks_for(512, Shape::kThreads) : Shape::kMinBlocks;
}
// The group passes hold at least one pair of lines a block.
template <typename T, int kLen, int kV>
constexpr int group_piece_bytes() {
  const int lines = lines_per_block<T, kLen, kV, kFourStepPieceBytes>();
  const int cols = kFourStepPieceBytes / static_cast<int>(sizeof(Complex<T>));
  const int threads = cols * (kLen / kV) * (lines < 2 ? 2 : lines);
  return threads > 512 ? kFourStepPieceBytes / 2 : kFourStepPieceBytes;
}
template <typename T, int kLog2M, bool Inverse, int kLen = FourStepSplit<kLog2M, Inverse>::kGroupLength,
          int kV = four_step_values<T, kLog2M, Inverse, true>(), int kPieceBytes = group_piece_bytes<T, kLen, kV>(),
          int kLines = lines_per_block<T, kLen, kV, kPieceBytes>()>
using ColumnGroupsShape = LineBlockShape<T, kLen, kLines < 2 ? 2 : kLines, kV, kPieceBytes>;

// Pair p of the group passes owns groups p and K - p of K (p = 0: groups 0 and K/2); side s.
__device__ __forceinline__ int group_of_pair(int pair, int side, int K) {
  if (pair == 0) return side == 0 ? 0 : K / 2;
  return side == 0 ? pair : K - pair;
}

template <typename T, typename Shape>
struct LineBlockThread {
  int l, j, g;
  int col;    // spectrum column
  bool live;  // col < H (the last block's columns may run past)
  Complex<T>* line;

  __device__ __forceinline__ LineBlockThread(int H, unsigned char* shared)
      : l(static_cast<int>(threadIdx.x) % Shape::kCols),
        j((static_cast<int>(threadIdx.x) / Shape::kCols) % Shape::kJ),
        g(static_cast<int>(threadIdx.x) / (Shape::kCols * Shape::kJ)),
        col(static_cast<int>(blockIdx.x) * Shape::kCols + l),
        live(col < H),
        line(reinterpret_cast<Complex<T>*>(shared) + (g * Shape::kCols + l) * Shape::kStride) {}
  // The group passes: the block's lines come in pairs (line g and g ^ 1); pair() is this line's
  // pair among all of them, group(K) its group of K, partner() the line holding its mirrors.
  __device__ __forceinline__ int pair() const {
    return static_cast<int>(blockIdx.y) * (Shape::kLines / 2) + g / 2;
  }
  __device__ __forceinline__ int group(int K) const { return group_of_pair(pair(), g & 1, K); }
  __device__ __forceinline__ Complex<T>* partner(unsigned char* shared) const {
    return pair() == 0 ? line : reinterpret_cast<Complex<T>*>(shared) + ((g ^ 1) * Shape::kCols + l) * Shape::kStride;
  }
};

// Position in its group's line of the mirror of position k (line length len) of group `group`.
__device__ __forceinline__ int mirror_position(int k, int group, int len) {
  return group == 0 ? (len - k) & (len - 1) : len - 1 - k;
}

// Forward (Inverse = false): line n2 < M2 is rows n2 + M2 i, i < M1; its FFT over i, times
// w_M^(n2 k1), goes back to the same rows. Inverse: line n1 < M1 is rows M2 n1 + i, i < M2; its
// inverse FFT goes back to the same rows. In place: a block reads all its lines before it
// writes. spectrum: M rows of H columns, `pitch` complex values apart. line_twiddles:
// line_twiddles(line length); step_twiddles: line_twiddles(M).
// Launch: grid (ceil(H / kCols), lines / kLines), Shape::kThreads, Shape::kSharedBytes.
template <typename T, int kLog2M, bool Inverse>
__global__ void __launch_bounds__(ColumnLinesShape<T, kLog2M, Inverse>::kThreads,
                                  (column_lines_min_blocks<T, kLog2M, Inverse>()))
    column_lines(Complex<T>* __restrict__ spectrum, int H, int pitch, const Complex<T>* __restrict__ line_twiddles,
                 const Complex<T>* __restrict__ step_twiddles) {
  using Split = FourStepSplit<kLog2M, Inverse>;
  constexpr int kLen = Split::kLineLength;
  using Shape = ColumnLinesShape<T, kLog2M, Inverse>;
  constexpr int J = Shape::kJ, V = Shape::kValues;
  constexpr int kRowStep = Inverse ? 1 : Split::kM2;  // rows between a line's consecutive elements
  extern __shared__ __align__(16) unsigned char four_step_shared[];
  wait_for_previous_kernel();  // launched with overlap after the pass that writes its input
  let_next_kernel_start();     // the next pass waits for this whole grid anyway
  const LineBlockThread<T, Shape> t(H, four_step_shared);
  const int line_index = static_cast<int>(blockIdx.y) * Shape::kLines + t.g;
  const int first_row = Inverse ? line_index * Split::kM2 : line_index;
  Complex<T>* column = spectrum + static_cast<long long>(first_row) * pitch + (t.live ? t.col : 0);

  Complex<T> v[V];
#pragma unroll
  for (int q = 0; q < V; ++q) {
    v[q] = t.live ? column[static_cast<long long>((t.j + q * J) * kRowStep) * pitch] : Complex<T>{T(0), T(0)};
  }
  register_line_fft<Inverse, kLen, V>(v, t.j, t.line, line_twiddles);
  if (!t.live) return;
  // The step twiddles w_M^(n2 k), k = j + q J, from two reads of the table instead of V
  // (docs/performance.md, "Four-step passes: step twiddles").
  Complex<T> step[V];
  if (!Inverse) strided_twiddles<V>(step_twiddles, line_index, t.j, J, step);
#pragma unroll
  for (int q = 0; q < V; ++q) {
    const int k = t.j + q * J;  // natural order after the last stage
    Complex<T> w = v[q];
    if (!Inverse) w = w * step[q];
    column[static_cast<long long>(k * kRowStep) * pitch] = w;
  }
}

// The last forward pass: Z (M x N/2, the packed column pairs after column_lines<forward>) to
// the dct2 output X (M x N, 8-byte aligned in float and 16 in double: each pair of outputs is
// one Complex<T>). tu: quarter_twiddles(M); tv unused (the rows' twiddles were the row pass's);
// twiddles: line_twiddles(M2). Threshold: apply zero_below.
// Launch: grid (ceil((N/2) / kCols), (M1/2) / (kLines/2)), kThreads, kSharedBytes.
template <typename T, int kLog2M, bool Threshold>
__global__ void __launch_bounds__(ColumnGroupsShape<T, kLog2M, false>::kThreads,
                                  ColumnGroupsShape<T, kLog2M, false>::kMinBlocks)
    dct2_column_groups(const Complex<T>* __restrict__ spectrum, T* __restrict__ X, int N,
                       const Complex<T>* __restrict__ tu, const Complex<T>* __restrict__ tv,
                       const Complex<T>* __restrict__ twiddles, T zero_below) {
  using Split = FourStepSplit<kLog2M, false>;
  constexpr int M = Split::kM, M1 = Split::kM1, M2 = Split::kM2;
  using Shape = ColumnGroupsShape<T, kLog2M, false>;
  constexpr int J = Shape::kJ, V = Shape::kValues;
  extern __shared__ __align__(16) unsigned char four_step_shared[];
  wait_for_previous_kernel();  // launched with overlap after the pass that writes its input
  const int H = N / 2;
  const LineBlockThread<T, Shape> t(H, four_step_shared);
  const int k1 = t.group(M1);
  const Complex<T>* partner = t.partner(four_step_shared);

  Complex<T> v[V];
  const Complex<T>* column = spectrum + static_cast<long long>(k1) * M2 * H + (t.live ? t.col : 0);
#pragma unroll
  for (int q = 0; q < V; ++q) {
    v[q] = t.live ? column[static_cast<long long>(t.j + q * J) * H] : Complex<T>{T(0), T(0)};
  }
  register_line_fft_into_line<false, M2, V>(v, t.j, t.line, twiddles);
  if (!t.live) return;

  Complex<T>* pairs = reinterpret_cast<Complex<T>*>(X) + t.col;  // row u's pair c at u H
  auto write_pair = [&](int k2) {
    const int u = k1 + M1 * k2;
    const Dct2PackedPair<T> p = dct2_packed_column_pair(
        t.line[shared_fft_slot(k2)], partner[shared_fft_slot(mirror_position(k2, k1, M2))], tu[u]);
    pairs[static_cast<long long>(u) * H] = kept_coefficient<Threshold>(p.u, zero_below);
    if (has_distinct_mirror(u, M)) {
      pairs[static_cast<long long>(M - u) * H] = kept_coefficient<Threshold>(p.Mu, zero_below);
    }
  };
#pragma unroll
  for (int b = 0; b < V / 2; ++b) write_pair(t.j + b * J);
  if (k1 == 0 && t.j == 0) write_pair(M2 / 2);  // u = M/2
}

// The first inverse pass: W (M rows of N/2 + 1, `pitch` apart) from the coefficients X
// (M x N), left for column_lines<inverse>. tm, tn: quarter_twiddles(M), quarter_twiddles(N);
// twiddles: line_twiddles(M1); step_twiddles: line_twiddles(M). The preprocess reads X in
// 16-byte quads (load_idct2_quads4; the own passes' N is a power of two from 64, and X 16-byte
// aligned).
// Launch: grid (ceil((N/2 + 1) / kCols), (M2/2) / (kLines/2)), kThreads, kSharedBytes.
template <typename T, int kLog2M, bool SineRows, bool SineCols>
__global__ void __launch_bounds__(ColumnGroupsShape<T, kLog2M, true>::kThreads,
                                  ColumnGroupsShape<T, kLog2M, true>::kMinBlocks)
    idct2_column_groups(const T* __restrict__ X, Complex<T>* __restrict__ W, int N, int pitch,
                        const Complex<T>* __restrict__ tm, const Complex<T>* __restrict__ tn,
                        const Complex<T>* __restrict__ twiddles,
                        const Complex<T>* __restrict__ step_twiddles) {
  using Split = FourStepSplit<kLog2M, true>;
  constexpr int M = Split::kM, M1 = Split::kM1, M2 = Split::kM2;
  using Shape = ColumnGroupsShape<T, kLog2M, true>;
  constexpr int J = Shape::kJ, V = Shape::kValues;
  extern __shared__ __align__(16) unsigned char four_step_shared[];
  let_next_kernel_start();  // the next pass waits for this whole grid anyway
  const int H = N / 2 + 1;
  const LineBlockThread<T, Shape> t(H, four_step_shared);
  const int m2 = t.group(M2);
  Complex<T>* partner = t.partner(four_step_shared);
  const int n = t.col;

  // Quads (m, n) with m = m2 + M2 m1, m1 < M1/2 (and m = M/2 in group 0): w[m] to this line at
  // m1, w[M-m] to the partner's at its mirror position. All loads first. Thread (c4, r) of its
  // line works the columns 4 c4 .. 4 c4 + 3 of the block, m1 = r + b R.
  constexpr int kGroups = Shape::kCols / 4, R = Shape::kCols * J / kGroups;
  static_assert(Shape::kCols % 4 == 0 && 2 * R == M1 / 2, "four-step: wide preprocess needs 4 columns a group");
  const int p = static_cast<int>(threadIdx.x) % (Shape::kCols * J);
  const int c4 = p % kGroups, r = p / kGroups;
  const int n0 = static_cast<int>(blockIdx.x) * Shape::kCols + 4 * c4;
  const int offset = 4 * c4 * Shape::kStride;  // from a line of column 0 to column 4 c4
  Complex<T>* lines = t.line - t.l * Shape::kStride + offset;
  Complex<T>* partners = partner - t.l * Shape::kStride + offset;
  auto store_quads = [&](int m1, const T (&x)[4][4]) {
    const int m = m2 + M2 * m1;
    const Complex<T> t_m = tm[m], t_Mm = tm[M - m];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const Idct2Pair<T> w = idct2_pre_pair(x[c][0], x[c][1], x[c][2], x[c][3], t_m, t_Mm, tn[min(n0 + c, N / 2)]);
      lines[c * Shape::kStride + shared_fft_slot(m1)] = w.m_n;
      if (has_distinct_mirror(m, M)) {
        partners[c * Shape::kStride + shared_fft_slot(mirror_position(m1, m2, M1))] = w.Mm_n;
      }
    }
  };
  T x[2][4][4];
#pragma unroll
  for (int b = 0; b < 2; ++b) load_idct2_quads4<SineRows, SineCols>(X, M, N, m2 + M2 * (r + b * R), n0, x[b]);
#pragma unroll
  for (int b = 0; b < 2; ++b) store_quads(r + b * R, x[b]);
  if (m2 == 0 && r == 0) {
    load_idct2_quads4<SineRows, SineCols>(X, M, N, M / 2, n0, x[0]);
    store_quads(M1 / 2, x[0]);
  }
  __syncthreads();

  Complex<T> v[V];
#pragma unroll
  for (int q = 0; q < V; ++q) v[q] = t.line[shared_fft_slot(t.j + q * J)];
  register_line_fft<true, M1, V>(v, t.j, t.line, twiddles);
  if (!t.live) return;
  Complex<T>* column = W + static_cast<long long>(m2) * pitch + n;
  // The step twiddles w_M^-(m2 n1) from two reads of the table (strided_twiddles) in double, V
  // reads in float, where the extra products cost more than the reads they save
  // (docs/performance.md, "Four-step passes: step twiddles").
  constexpr bool kStridedTwiddles = sizeof(T) == 8;
  Complex<T> step[V];
  if (kStridedTwiddles) strided_twiddles<V>(step_twiddles, m2, t.j, J, step);
#pragma unroll
  for (int q = 0; q < V; ++q) {
    const int n1 = t.j + q * J;
    const Complex<T> w = kStridedTwiddles ? step[q] : step_twiddles[m2 * n1];
    column[static_cast<long long>(M2 * n1) * pitch] = v[q] * conj(w);
  }
}

}  // namespace efield::detail::cuda_nd
