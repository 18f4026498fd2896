#pragma once
// The float64 reference of docs/math.md section 1, by plain sums with dense cosine/sine matrices.
// Independent of every fast path: no FFT, no reordering, no twiddle tables.
#include <cmath>
#include <cstdint>
#include <vector>

#include "efield/transforms.hpp"

namespace efield::test {

// The accuracy contract for every transform against this reference: relative L2 error
// <= 1e-5 in float, <= 1e-12 in double.
template <typename T>
constexpr double tolerance() {
  return sizeof(T) == sizeof(float) ? 1e-5 : 1e-12;
}

// cos/sin(pi * k * (2j+1) / (2K)) with the angle reduced exactly in integers first.
inline double dense_cos(long k, long j, long K) {
  const long r = (k * (2 * j + 1)) % (4 * K);
  return std::cos(3.14159265358979323846 * static_cast<double>(r) / (2.0 * K));
}
inline double dense_sin(long k, long j, long K) {
  const long r = (k * (2 * j + 1)) % (4 * K);
  return std::sin(3.14159265358979323846 * static_cast<double>(r) / (2.0 * K));
}

// Matrix A (K x K, row-major) with out[i] = sum_j A[i][j] in[j] for the 1D transform `kind`.
inline std::vector<double> dense_matrix(Transform1D kind, int K) {
  std::vector<double> A(static_cast<size_t>(K) * K);
  for (long i = 0; i < K; ++i) {
    for (long j = 0; j < K; ++j) {
      double a = 0;
      switch (kind) {
        case Transform1D::Dct: a = dense_cos(i, j, K); break;                          // X[i] from x[j]
        case Transform1D::Idct: a = (j == 0 ? 1.0 : 2.0) * dense_cos(j, i, K); break;  // x[i] from X[j]
        case Transform1D::Idxst: a = 2.0 * dense_sin(j, i, K); break;
      }
      A[i * K + j] = a;
    }
  }
  return A;
}

// Applies the 1D transform `kind` along `axis` of a row-major array with dimensions `dims`.
inline std::vector<double> dense_along_axis(Transform1D kind, const std::vector<double>& x,
                                            const std::vector<int>& dims, int axis) {
  long outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= dims[a];
  for (size_t a = axis + 1; a < dims.size(); ++a) inner *= dims[a];
  const long K = dims[axis];
  const std::vector<double> A = dense_matrix(kind, static_cast<int>(K));
  std::vector<double> y(x.size());
  for (long o = 0; o < outer; ++o) {
    for (long i = 0; i < K; ++i) {
      for (long in = 0; in < inner; ++in) {
        double s = 0;
        for (long j = 0; j < K; ++j) s += A[i * K + j] * x[(o * K + j) * inner + in];
        y[(o * K + i) * inner + in] = s;
      }
    }
  }
  return y;
}

template <typename T>
std::vector<double> to_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// 1D: `batch` rows of length n.
inline std::vector<double> dense_1d(Transform1D kind, const std::vector<double>& x, int n, int batch) {
  return dense_along_axis(kind, x, {batch, n}, 1);
}

inline std::vector<double> dense_2d(Transform2D kind, const std::vector<double>& x, int rows, int cols) {
  Transform1D first = Transform1D::Dct, second = Transform1D::Dct;
  switch (kind) {
    case Transform2D::Dct2: break;
    case Transform2D::Idct2: first = second = Transform1D::Idct; break;
    case Transform2D::IdctIdxst: first = Transform1D::Idct; second = Transform1D::Idxst; break;
    case Transform2D::IdxstIdct: first = Transform1D::Idxst; second = Transform1D::Idct; break;
  }
  const std::vector<int> dims{rows, cols};
  return dense_along_axis(first, dense_along_axis(second, x, dims, 1), dims, 0);
}

inline std::vector<double> dense_3d(Transform3D kind, const std::vector<double>& x, int d0, int d1, int d2) {
  const Transform1D k = kind == Transform3D::Dct3 ? Transform1D::Dct : Transform1D::Idct;
  const std::vector<int> dims{d0, d1, d2};
  return dense_along_axis(k, dense_along_axis(k, dense_along_axis(k, x, dims, 2), dims, 1), dims, 0);
}

}  // namespace efield::test
