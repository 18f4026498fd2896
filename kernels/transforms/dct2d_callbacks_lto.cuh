// cuFFT LTO callbacks of the two-pass CUDA Plan2D. Not part of the library's CUDA sources (hence
// .cuh): cmake/EfieldLtoCallbacks.cmake compiles this file alone to LTO-IR (nvcc -dlto, one
// lto_XX per CUDA architecture) and embeds the fatbin as a byte array, which
// dct2d_callbacks.cu hands to cufftXtSetJITCallback. The formulas are the shared ones of
// math/dct2d.hpp and math/makhoul.hpp.
//
// Offsets are element offsets from the start of the cuFFT input (load) or output (store) array
// in the plan's layout; every array has fewer than 2^32 elements (Plan2D caps arrays at 2^31-1
// elements), so 32-bit division decodes them.
#include <cufftXt.h>

#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "transforms/dct2d_callback_params.cuh"

namespace {

using efield::detail::Complex;
using efield::detail::Dct2dCallbackParams;

template <typename T>
__device__ __forceinline__ const Dct2dCallbackParams<T>& params(void* info) {
  return *static_cast<const Dct2dCallbackParams<T>*>(info);
}

// dct2 pass 1 load: R2C of length N over M rows, basic layout: offset = r N + c.
template <typename T>
__device__ __forceinline__ T fwd_rows_load(unsigned long long offset, void* info) {
  const auto& p = params<T>(info);
  const unsigned o = static_cast<unsigned>(offset), N = static_cast<unsigned>(p.cols);
  const unsigned r = o / N, c = o - r * N;
  const int m = efield::detail::makhoul_source(static_cast<int>(r), p.rows);
  const int n = efield::detail::makhoul_source(static_cast<int>(c), p.cols);
  return p.in[static_cast<unsigned long long>(m) * N + n];
}

// dct2 pass 1 store: offset = r (N/2+1) + k; scratch row r gets X[k] and X[N-k].
template <typename T>
__device__ __forceinline__ void fwd_rows_store(unsigned long long offset, Complex<T> v, void* info) {
  const auto& p = params<T>(info);
  const unsigned o = static_cast<unsigned>(offset), Nh = static_cast<unsigned>(p.cols / 2 + 1);
  const unsigned r = o / Nh;
  const int k = static_cast<int>(o - r * Nh);
  T* row = p.scratch + static_cast<unsigned long long>(r) * p.cols;
  const auto x = efield::detail::dct_axis_post(v, p.t_cols, k, p.cols);
  row[k] = x.k;
  if (efield::detail::has_distinct_mirror(k, p.cols)) row[p.cols - k] = x.Kk;
}

// dct2 pass 2 store: R2C of length M over the N columns (stride N, distance 1), so
// offset = u N + v, which is also the output index of X[u, v].
template <typename T>
__device__ __forceinline__ void fwd_cols_store(unsigned long long offset, Complex<T> v, void* info) {
  const auto& p = params<T>(info);
  const unsigned o = static_cast<unsigned>(offset), N = static_cast<unsigned>(p.cols);
  const unsigned u = o / N, col = o - u * N;
  const auto x = efield::detail::dct_axis_post(v, p.t_rows, static_cast<int>(u), p.rows);
  p.out[o] = efield::detail::threshold_coefficient(x.k, p.zero_below);
  if (efield::detail::has_distinct_mirror(static_cast<int>(u), p.rows)) {
    p.out[static_cast<unsigned long long>(p.rows - u) * N + col] =
        efield::detail::threshold_coefficient(x.Kk, p.zero_below);
  }
}

// X'[m, n] of the inverse pipelines, 0 <= m <= M, 0 <= n <= N (sine axes reversed, zeros at
// index 0 of a sine axis and at index M or N).
template <typename T>
__device__ __forceinline__ T input_prime(const Dct2dCallbackParams<T>& p, int m, int n) {
  if (p.sine_rows) return efield::detail::idct2_input<true, false>(p.in, m, n, p.rows, p.cols);
  if (p.sine_cols) return efield::detail::idct2_input<false, true>(p.in, m, n, p.rows, p.cols);
  return efield::detail::idct2_input<false, false>(p.in, m, n, p.rows, p.cols);
}

// Inverse pass 1 load: C2R of length M over the N columns, complex input (M/2+1) x N with
// stride N, distance 1: offset = m N + n.
template <typename T>
__device__ __forceinline__ Complex<T> inv_cols_load(unsigned long long offset, void* info) {
  const auto& p = params<T>(info);
  const unsigned o = static_cast<unsigned>(offset), N = static_cast<unsigned>(p.cols);
  const int m = static_cast<int>(o / N), n = static_cast<int>(o - (o / N) * N);
  const T a = input_prime(p, m, n);
  const T b = input_prime(p, p.rows - m, n);  // m == 0 reads index M: zero
  return efield::detail::idct_axis_pre(a, b, p.t_rows[m]);
}

// Inverse pass 2 load: C2R of length N over M rows, basic layout: offset = r (N/2+1) + l; the
// real row r of scratch is the column-inverted row at Makhoul position r.
template <typename T>
__device__ __forceinline__ Complex<T> inv_rows_load(unsigned long long offset, void* info) {
  const auto& p = params<T>(info);
  const unsigned o = static_cast<unsigned>(offset), Nh = static_cast<unsigned>(p.cols / 2 + 1);
  const unsigned r = o / Nh;
  const int l = static_cast<int>(o - r * Nh);
  const T* row = p.scratch + static_cast<unsigned long long>(r) * p.cols;
  return efield::detail::idct_axis_pre(row[l], l == 0 ? T(0) : row[p.cols - l], p.t_cols[l]);
}

// Inverse pass 2 store: offset = r N + c is Makhoul position (r, c); the sample goes to
// (makhoul_source(r), makhoul_source(c)) with the sine axes' (-1)^index.
template <typename T>
__device__ __forceinline__ void inv_rows_store(unsigned long long offset, T y, void* info) {
  const auto& p = params<T>(info);
  const unsigned o = static_cast<unsigned>(offset), N = static_cast<unsigned>(p.cols);
  const unsigned r = o / N, c = o - r * N;
  const int m = efield::detail::makhoul_source(static_cast<int>(r), p.rows);
  const int n = efield::detail::makhoul_source(static_cast<int>(c), p.cols);
  const bool negate = (p.sine_rows && (m & 1)) != (p.sine_cols && (n & 1));
  p.out[static_cast<unsigned long long>(m) * N + n] = negate ? -y : y;
}

template <typename C, typename T>
__device__ __forceinline__ C to_cufft(Complex<T> z) {
  return C{z.re, z.im};
}

}  // namespace

// The entry points cuFFT links against (signatures of cufftJITCallback* in cufftXt.h). cuFFT's
// own samples give the callbacks C++ linkage in the global namespace and pass the plain name;
// each callback also exists with C linkage (suffix _c), tried when planning with the first fails.
#define EFIELD_DCT2D_CALLBACK_SET(linkage, suffix, T, Real, Cplx)                                      \
  linkage __device__ Real efield_dct2d_fwd_rows_load_##suffix(void*, unsigned long long offset,       \
                                                               void* info, void*) {                  \
    return fwd_rows_load<T>(offset, info);                                                          \
  }                                                                                                 \
  linkage __device__ void efield_dct2d_fwd_rows_store_##suffix(void*, unsigned long long offset,      \
                                                                Cplx v, void* info, void*) {         \
    fwd_rows_store<T>(offset, Complex<T>{v.x, v.y}, info);                                          \
  }                                                                                                 \
  linkage __device__ void efield_dct2d_fwd_cols_store_##suffix(void*, unsigned long long offset,      \
                                                                Cplx v, void* info, void*) {         \
    fwd_cols_store<T>(offset, Complex<T>{v.x, v.y}, info);                                          \
  }                                                                                                 \
  linkage __device__ Cplx efield_dct2d_inv_cols_load_##suffix(void*, unsigned long long offset,       \
                                                               void* info, void*) {                  \
    return to_cufft<Cplx>(inv_cols_load<T>(offset, info));                                          \
  }                                                                                                 \
  linkage __device__ Cplx efield_dct2d_inv_rows_load_##suffix(void*, unsigned long long offset,       \
                                                               void* info, void*) {                  \
    return to_cufft<Cplx>(inv_rows_load<T>(offset, info));                                          \
  }                                                                                                 \
  linkage __device__ void efield_dct2d_inv_rows_store_##suffix(void*, unsigned long long offset,      \
                                                                Real y, void* info, void*) {         \
    inv_rows_store<T>(offset, y, info);                                                             \
  }

#define EFIELD_CXX_LINKAGE
EFIELD_DCT2D_CALLBACK_SET(EFIELD_CXX_LINKAGE, f, float, cufftReal, cufftComplex)
EFIELD_DCT2D_CALLBACK_SET(EFIELD_CXX_LINKAGE, d, double, cufftDoubleReal, cufftDoubleComplex)
EFIELD_DCT2D_CALLBACK_SET(extern "C", f_c, float, cufftReal, cufftComplex)
EFIELD_DCT2D_CALLBACK_SET(extern "C", d_c, double, cufftDoubleReal, cufftDoubleComplex)
