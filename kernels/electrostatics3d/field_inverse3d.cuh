#pragma once
// Internal: the three field inverses of the CUDA 3D pipeline as one batched transform (the layout
// hook selects it, src/electrostatics3d/pipeline3d_layout.hpp; every bin count >= 2).
//
// Each field's inverse is Plan3D's Idct (kernels/transforms/dct3d_cuda.cu): the mirrored-group
// preprocess, a cuFFT 3D C2R and the inverse Makhoul reorder. The three share their shape, so here
// they are one preprocess launch over the three inputs (blockIdx.y picks the field), one cuFFT C2R
// plan of batch 3, and one pass that reads the three outputs at their reordered positions and
// writes the gather's packed {Ex, Ey, Ez, 0} map directly, the sine axes' signs applied
// (field_sample3d): seven launches and the three inverse reorders' writes and reads fewer than
// three Plan3D runs and the pack pass. The arithmetic per element is the same; only cuFFT's batched
// plan may round differently from its single one.
//
// execute_from_coefficients goes one step further (the layout's fused_spectral_inverse): the
// preprocess thread of a group of mirrored indices makes the field inputs of its eight members
// itself, from the forward DCT's coefficients (spectral_inputs3d, the spectral pass's own call, so
// the same values), and sums the energy terms of the members it owns; the spectral pass then
// neither writes the three input maps nor does the preprocess read them back. The energy's terms
// are the same, summed in another (fixed) order.
//
// forward + execute_from_spectrum (the layout's fused_forward) take the forward DCT in too: the
// density pass writes rho in the Makhoul order (Plan3D's reorder pass), a cuFFT R2C of the
// pipeline's own, and the group kernel starts with the forward postprocess of its group, whose
// outputs are exactly the eight coefficients it needs (dct3_group's groups are idct3_group's): the
// coefficient map is neither written nor read. The same values, the same energy order as
// execute_from_coefficients.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/grid_stride.cuh"
#include "electrostatics3d/kernels3d.cuh"
#include "math/twiddle.hpp"
#include "transforms/dct2d_cufft.cuh"
#include "transforms/dct3d_kernels.cuh"

namespace efield::detail {

// Bin (m, n, k) of the packed map from the three batched C2R outputs y (each `size` values, in the
// Makhoul order on every axis).
template <typename T>
__global__ void pack_reordered_fields3d_kernel(const T* __restrict__ y, long long size, Dims3 d,
                                               PackedField3D<T>* __restrict__ out) {
  const unsigned total = static_cast<unsigned>(d.M) * d.N * d.K;
  for (unsigned i = first_index(); i < total; i += index_stride()) {
    int m, n, k;
    split_index(i, d.N, d.K, m, n, k);
    const FieldSample3D<T> e = field_sample3d(y, y + size, y + 2 * size, m, n, k, reordered_index(m, n, k, d));
    out[i] = PackedField3D<T>{e.x, e.y, e.z, T(0)};
  }
}

// The C2R inputs of one field from its eight member inputs x (twiddles of the group).
template <typename T>
__device__ __forceinline__ void write_field_quad(const T (&x)[2][2][2], const Complex<T> (&ta)[2],
                                                 const Complex<T> (&tb)[2], Complex<T> tc, const bool (&distinct)[2],
                                                 const int (&as)[2], const int (&bs)[2], int c, Dims3 d,
                                                 Complex<T>* __restrict__ W) {
  const Idct3Quad<T> q = idct3_pre_quad(x, ta, tb, tc);
  const int Kh = d.K / 2 + 1;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      if ((i == 0 || distinct[0]) && (j == 0 || distinct[1]))
        W[(static_cast<long long>(as[i]) * d.N + bs[j]) * Kh + c] = q.w[i][j];
}

// The work of group (a, b, c) of mirrored indices (idct3_group's members a_i = a, M - a, ...) from
// its eight coefficients x[i][j][k] = X[a_i, b_j, c_k] (0 where an index equals its dimension, as
// padded_3d reads; a member's mirrors are members too): the spectral inputs of the members inside
// the grid (spectral_inputs3d), the three fields' C2R inputs into W, W + half, W + 2 half, and the
// sum of the energy terms of the members the group owns (a mirror only when distinct:
// dct3_group's rule, so every coefficient counts once).
template <typename T>
__device__ __forceinline__ double spectral_preprocess_group(const T (&x)[2][2][2], int a, int b, int c, Dims3 d,
                                                            const SpectralGrid3D<T>& s, const Complex<T>* ta,
                                                            const Complex<T>* tb, const Complex<T>* tc, long long half,
                                                            Complex<T>* __restrict__ W) {
  const int as[2] = {a, d.M - a}, bs[2] = {b, d.N - b}, cs[2] = {c, d.K - c};
  const bool owns[3] = {has_distinct_mirror(a, d.M), has_distinct_mirror(b, d.N), has_distinct_mirror(c, d.K)};
  double energy = 0;
  T ex[2][2][2], ey[2][2][2], ez[2][2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) {
        ex[i][j][k] = ey[i][j][k] = ez[i][j][k] = T(0);
        if (as[i] >= d.M || bs[j] >= d.N || cs[k] >= d.K) continue;
        const SpectralCoefficients3D<T> at{x[i][j][k], x[i ^ 1][j][k], x[i][j ^ 1][k], x[i][j][k ^ 1]};
        const SpectralInputs3D<T> in = spectral_inputs3d(at, s, as[i], bs[j], cs[k]);
        ex[i][j][k] = in.ex, ey[i][j][k] = in.ey, ez[i][j][k] = in.ez;
        if ((i == 0 || owns[0]) && (j == 0 || owns[1]) && (k == 0 || owns[2])) energy += in.energy;
      }
  const Complex<T> tai[2] = {ta[a], mirror_twiddle(ta, a, d.M)}, tbj[2] = {tb[b], mirror_twiddle(tb, b, d.N)};
  const bool distinct[2] = {owns[0], owns[1]};
  write_field_quad(ex, tai, tbj, tc[c], distinct, as, bs, c, d, W);
  write_field_quad(ey, tai, tbj, tc[c], distinct, as, bs, c, d, W + half);
  write_field_quad(ez, tai, tbj, tc[c], distinct, as, bs, c, d, W + 2 * half);
  return energy;
}

// One thread per group, its coefficients read from X = dct3d(rho) [M][N][L]. Per block the
// energy's sum.
template <typename T>
__global__ void spectral_preprocess3d_kernel(const T* __restrict__ X, SpectralGrid3D<T> s, Dims3 d,
                                             const Complex<T>* __restrict__ ta, const Complex<T>* __restrict__ tb,
                                             const Complex<T>* __restrict__ tc, unsigned groups, long long half,
                                             Complex<T>* __restrict__ W, double* partial_energy) {
  __shared__ double shared[kThreads3D];
  double energy = 0;
  for (unsigned g = first_index(); g < groups; g += index_stride()) {
    int a, b, c;
    split_index(g, d.N / 2 + 1, d.K / 2 + 1, a, b, c);
    const int as[2] = {a, d.M - a}, bs[2] = {b, d.N - b}, cs[2] = {c, d.K - c};
    T x[2][2][2];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 2; ++k) x[i][j][k] = padded_3d(X, as[i], bs[j], cs[k], d.M, d.N, d.K);
    energy += spectral_preprocess_group(x, a, b, c, d, s, ta, tb, tc, half, W);
  }
  const double e = block_reduce3d<false>(energy, shared);
  if (threadIdx.x == 0) partial_energy[blockIdx.x] = e;
}

// The same with the forward DCT's postprocess in front: the group's coefficients from the four
// stored values of the forward R2C's half spectrum V (dct3_group's reads and dct3_post_octet, so
// the values Plan3D's Dct writes; the pipeline's plans have no zero_below), a mirror that is no
// distinct member taking its own member's value and one past the grid 0.
template <typename T>
__global__ void forward_spectral_preprocess3d_kernel(const Complex<T>* __restrict__ V, SpectralGrid3D<T> s, Dims3 d,
                                                     const Complex<T>* __restrict__ ta,
                                                     const Complex<T>* __restrict__ tb,
                                                     const Complex<T>* __restrict__ tc, unsigned groups,
                                                     long long half, Complex<T>* __restrict__ W,
                                                     double* partial_energy) {
  __shared__ double shared[kThreads3D];
  double energy = 0;
  const int Kh = d.K / 2 + 1;
  for (unsigned g = first_index(); g < groups; g += index_stride()) {
    int a, b, c;
    split_index(g, d.N / 2 + 1, Kh, a, b, c);
    const int ar[2] = {a, a == 0 ? 0 : d.M - a}, br[2] = {b, b == 0 ? 0 : d.N - b};
    Complex<T> sp[2][2];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) sp[i][j] = V[(static_cast<long long>(ar[i]) * d.N + br[j]) * Kh + c];
    const Complex<T> tai[2] = {ta[a], mirror_twiddle(ta, a, d.M)}, tbj[2] = {tb[b], mirror_twiddle(tb, b, d.N)},
                     tck[2] = {tc[c], mirror_twiddle(tc, c, d.K)};
    const Dct3Octet<T> out = dct3_post_octet(sp, tai, tbj, tck);
    const int as[2] = {a, d.M - a}, bs[2] = {b, d.N - b}, cs[2] = {c, d.K - c};
    const bool owns[3] = {has_distinct_mirror(a, d.M), has_distinct_mirror(b, d.N), has_distinct_mirror(c, d.K)};
    T x[2][2][2];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 2; ++k) {
          const bool inside = as[i] < d.M && bs[j] < d.N && cs[k] < d.K;
          x[i][j][k] = inside ? out.x[owns[0] ? i : 0][owns[1] ? j : 0][owns[2] ? k : 0] : T(0);
        }
    energy += spectral_preprocess_group(x, a, b, c, d, s, ta, tb, tc, half, W);
  }
  const double e = block_reduce3d<false>(energy, shared);
  if (threadIdx.x == 0) partial_energy[blockIdx.x] = e;
}

template <typename T>
class FieldInverse3D {
 public:
  FieldInverse3D() = default;
  // M, N, L >= 2 (Plan3D hands shapes with a dimension of 1 to a Plan2D; the pipeline keeps its
  // three Plan3D runs there).
  // with_forward: also the forward R2C and its spectrum (forward_and_inverse).
  FieldInverse3D(int M, int N, int L, bool with_forward = false)
      : d_{M, N, L}, size_(static_cast<long long>(M) * N * L), half_(static_cast<long long>(M) * N * (L / 2 + 1)),
        real_(static_cast<std::size_t>(3 * size_)), spectrum_(static_cast<std::size_t>(3 * half_)),
        ta_(quarter_twiddles<T>(M)), tb_(quarter_twiddles<T>(N)), tc_(quarter_twiddles<T>(L)) {
    const int dims[3] = {M, N, L};
    fft_ = std::make_unique<cuda_nd::RealFft<T>>(dims, 3, false, 3);
    if (with_forward) {
      forward_fft_ = std::make_unique<cuda_nd::RealFft<T>>(dims, 3, true);
      forward_spectrum_ = DeviceBuffer<Complex<T>>(static_cast<std::size_t>(half_));
    }
  }

  // inputs: the spectral pass's three field inputs [3][M][N][L], one after another.
  void execute(const T* inputs, PackedField3D<T>* out, cudaStream_t s) {
    constexpr int threads = 256;
    const unsigned groups = group_count(d_);
    const dim3 pre(grid_stride_blocks(groups, threads), 3);
    idct3_preprocess<T><<<pre, threads, 0, s>>>(inputs, spectrum_.get(), d_, ta_.get(), tb_.get(), tc_.get(), groups,
                                                size_, half_);
    EFIELD_CUDA_CHECK_LAUNCH();
    transform_and_pack(out, s);
  }

  // The spectral pass and the preprocess in one (see the file comment): coef is the forward DCT's
  // output; partial_energy gets one sum per block of energy_blocks(max_blocks) blocks.
  void execute_from_coefficients(const T* coef, const SpectralGrid3D<T>& spectral, PackedField3D<T>* out,
                                 double* partial_energy, int blocks, cudaStream_t s) {
    spectral_preprocess3d_kernel<T><<<blocks, kThreads3D, 0, s>>>(coef, spectral, d_, ta_.get(), tb_.get(), tc_.get(),
                                                                  group_count(d_), half_, spectrum_.get(),
                                                                  partial_energy);
    EFIELD_CUDA_CHECK_LAUNCH();
    transform_and_pack(out, s);
  }
  // The forward R2C of rho in the Makhoul order on every axis (Plan3D's reorder done by the density
  // pass; the input is left as it is).
  void forward(T* rho_reordered, cudaStream_t s) { forward_fft_->run(rho_reordered, forward_spectrum_.get(), s); }
  // After forward: the forward postprocess, the spectral pass and the preprocess in one kernel,
  // then as execute_from_coefficients.
  void execute_from_spectrum(const SpectralGrid3D<T>& spectral, PackedField3D<T>* out, double* partial_energy,
                             int blocks, cudaStream_t s) {
    forward_spectral_preprocess3d_kernel<T><<<blocks, kThreads3D, 0, s>>>(
        forward_spectrum_.get(), spectral, d_, ta_.get(), tb_.get(), tc_.get(), group_count(d_), half_,
        spectrum_.get(), partial_energy);
    EFIELD_CUDA_CHECK_LAUNCH();
    transform_and_pack(out, s);
  }
  // Groups of mirrored indices: the threads execute_from_coefficients and execute_from_spectrum
  // need (their launches take any number of blocks of kThreads3D, one energy partial each).
  unsigned groups() const { return group_count(d_); }

 private:
  void transform_and_pack(PackedField3D<T>* out, cudaStream_t s) {
    constexpr int threads = 256;
    fft_->run(real_.get(), spectrum_.get(), s);
    pack_reordered_fields3d_kernel<T><<<grid_stride_blocks(size_, threads), threads, 0, s>>>(real_.get(), size_, d_,
                                                                                             out);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  Dims3 d_{};
  long long size_ = 0, half_ = 0;  // elements of one field's real map and of its half spectrum
  DeviceBuffer<T> real_;
  DeviceBuffer<Complex<T>> spectrum_;
  DeviceBuffer<Complex<T>> ta_, tb_, tc_;
  std::unique_ptr<cuda_nd::RealFft<T>> fft_;
  std::unique_ptr<cuda_nd::RealFft<T>> forward_fft_;  // with_forward only
  DeviceBuffer<Complex<T>> forward_spectrum_;
};

}  // namespace efield::detail
