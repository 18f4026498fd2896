#pragma once
// The float64 reference of docs/math.md section 1: dense cosine/sine matrices (Eigen) applied
// along each axis.
// Independent of every fast path: no FFT, no reordering, no twiddle tables.
#include <Eigen/Dense>
#include <cmath>
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

// Matrix A with out = A in for the 1D transform `kind` of length K.
inline Eigen::MatrixXd dense_matrix(Transform1D kind, int K) {
  return Eigen::MatrixXd::NullaryExpr(K, K, [kind, K](Eigen::Index i, Eigen::Index j) {
    switch (kind) {
      case Transform1D::Dct: return dense_cos(i, j, K);                          // X[i] from x[j]
      case Transform1D::Idct: return (j == 0 ? 1.0 : 2.0) * dense_cos(j, i, K);  // x[i] from X[j]
      case Transform1D::Idxst: return 2.0 * dense_sin(j, i, K);
    }
    return 0.0;
  });
}

// Applies the 1D transform `kind` along `axis` of a row-major array with dimensions `dims`: for
// each index of the axes before it, the (axis x later axes) slab is a row-major matrix that A
// multiplies from the left.
inline std::vector<double> dense_along_axis(Transform1D kind, const std::vector<double>& x,
                                            const std::vector<int>& dims, int axis) {
  using Slab = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Index outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= dims[a];
  for (size_t a = axis + 1; a < dims.size(); ++a) inner *= dims[a];
  const Eigen::Index K = dims[axis];
  const Eigen::MatrixXd A = dense_matrix(kind, static_cast<int>(K));
  std::vector<double> y(x.size());
  for (Eigen::Index o = 0; o < outer; ++o) {
    Eigen::Map<Slab>(y.data() + o * K * inner, K, inner).noalias() =
        A * Eigen::Map<const Slab>(x.data() + o * K * inner, K, inner);
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
  const Transform1D k = kind == Transform3D::Dct ? Transform1D::Dct : Transform1D::Idct;
  const std::vector<int> dims{d0, d1, d2};
  return dense_along_axis(k, dense_along_axis(k, dense_along_axis(k, x, dims, 2), dims, 1), dims, 0);
}

}  // namespace efield::test
