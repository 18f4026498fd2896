#pragma once
// The 8-point DCT-II of Loeffler, Ligtenberg and Moschytz (1989): 11 multiplications and 29
// additions (docs/math.md section 3). Shared by the CPU loop (src/cpu/blocked_dct8_cpu.cpp) and the
// CUDA kernel (kernels/blocked_dct8/blocked_dct8.cu).
//
// Scale. The network L returns Y[0] = X[0] and Y[k] = sqrt(2) X[k] for k >= 1, where X is
// docs/math.md's `dct`. Its rows are orthogonal with squared norm 8 (L^T L = 8 I), so the transposed
// network L^T (same blocks in reverse order, every rotation angle negated) gives docs/math.md's
// `idct` when fed Y'[0] = X[0], Y'[k] = sqrt(2) X[k]:  idct(X) = L^T D X,  D = diag(1, sqrt2, ...),
// because idct = C^T diag(1, 2, ..., 2) and L^T = C^T D. Hence:
//   dct(x)  = D^-1 (loeffler8_forward(x))   -> multiply coefficient k by dct_scale(k)
//   idct(X) = loeffler8_inverse(D X)        -> multiply coefficient k by idct_scale(k) first
// and idct(dct(x)) = 8 x as in docs/math.md. In 2D the two per-axis scales multiply, so a blocked
// transform applies one 8x8 table (one multiplication per coefficient) instead of two.
#include "math/host_device.hpp"

// Full unrolling keeps a block in registers in the CUDA kernel (indices become constants);
// g++ unrolls these fixed 8-trip loops on its own at -O2/-O3.
#if defined(__CUDA_ARCH__)
#define EFIELD_LOEFFLER8_UNROLL _Pragma("unroll")
#else
#define EFIELD_LOEFFLER8_UNROLL
#endif

namespace efield::detail {

// cos(n pi / 16) and sin(n pi / 16), and the constants of the three rotations, in double; the
// networks round them to T once.
namespace loeffler8_const {
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kC1 = 0.98078528040323044913;  // cos(pi/16)
constexpr double kS1 = 0.19509032201612826785;  // sin(pi/16)
constexpr double kC3 = 0.83146961230254523708;  // cos(3pi/16)
constexpr double kS3 = 0.55557023301960222474;  // sin(3pi/16)
constexpr double kC6 = 0.38268343236508977173;  // cos(6pi/16)
constexpr double kS6 = 0.92387953251128675613;  // sin(6pi/16)
}  // namespace loeffler8_const

// The rotation block with parameters (k, n): (a, b) -> (a kc + b ks, -a ks + b kc) with
// kc = k cos(n pi/16), ks = k sin(n pi/16), in 3 multiplications and 3 additions:
//   z = kc (a + b);  first = z + b (ks - kc);  second = z - a (kc + ks).
// `kc`, `ks_minus_kc` and `kc_plus_ks` are passed precomputed. The inverse network uses the
// transposed block (angle negated): (a, b) -> (a kc - b ks, a ks + b kc), same cost.
template <typename T>
EFIELD_HD void loeffler8_rotate(T a, T b, T kc, T ks_minus_kc, T kc_plus_ks, T& first, T& second) {
  const T z = kc * (a + b);
  first = z + b * ks_minus_kc;
  second = z - a * kc_plus_ks;
}
template <typename T>
EFIELD_HD void loeffler8_rotate_back(T a, T b, T kc, T ks_minus_kc, T kc_plus_ks, T& first, T& second) {
  // Transpose of [[kc, ks], [-ks, kc]]: first = a kc - b ks, second = a ks + b kc.
  const T z = kc * (a + b);
  first = z - b * kc_plus_ks;
  second = z + a * ks_minus_kc;
}

// Forward network, in place: v[k] <- Y[k] (Y[0] = X[0], Y[k] = sqrt(2) X[k], X = docs/math.md dct).
// Stage 1: butterflies (x[i] + x[7-i], x[i] - x[7-i]).
// Even half (a 4-point DCT): butterflies, X0/X4 by one more butterfly, X2/X6 by the rotation
//   (sqrt(2), 6) of (d1, d0) -- the paper's figure prints sqrt(2) c1 here, a misprint.
// Odd half: rotations (1, 3) of (b3, b0) and (1, 1) of (b2, b1), butterflies, then
//   sqrt(2) X1 = (P + S) + (Q + R), sqrt(2) X7 = (P + S) - (Q + R),
//   sqrt(2) X3 = sqrt(2) (P - S),   sqrt(2) X5 = sqrt(2) (Q - R).
// Count: 3 rotations x 3 + 2 = 11 multiplications; 8 + 9 + 12 = 29 additions.
template <typename T>
EFIELD_HD void loeffler8_forward(T (&v)[8]) {
  namespace c = loeffler8_const;
  // Stage 1.
  const T a0 = v[0] + v[7], b0 = v[0] - v[7];
  const T a1 = v[1] + v[6], b1 = v[1] - v[6];
  const T a2 = v[2] + v[5], b2 = v[2] - v[5];
  const T a3 = v[3] + v[4], b3 = v[3] - v[4];
  // Even half.
  const T s0 = a0 + a3, d0 = a0 - a3;
  const T s1 = a1 + a2, d1 = a1 - a2;
  v[0] = s0 + s1;
  v[4] = s0 - s1;
  loeffler8_rotate(d1, d0, T(c::kSqrt2 * c::kC6), T(c::kSqrt2 * (c::kS6 - c::kC6)),
                   T(c::kSqrt2 * (c::kC6 + c::kS6)), v[2], v[6]);
  // Odd half: P = b0 c3 - b3 s3, Q = b3 c3 + b0 s3, R = b1 c1 - b2 s1, S = b2 c1 + b1 s1.
  T q, p, s, r;
  loeffler8_rotate(b3, b0, T(c::kC3), T(c::kS3 - c::kC3), T(c::kC3 + c::kS3), q, p);
  loeffler8_rotate(b2, b1, T(c::kC1), T(c::kS1 - c::kC1), T(c::kC1 + c::kS1), s, r);
  const T ps = p + s, p_s = p - s;
  const T qr = q + r, q_r = q - r;
  v[1] = ps + qr;
  v[7] = ps - qr;
  v[3] = T(c::kSqrt2) * p_s;
  v[5] = T(c::kSqrt2) * q_r;
}

// Inverse network L^T, in place: every block of loeffler8_forward transposed, in reverse order.
// Fed Y'[0] = X[0], Y'[k] = sqrt(2) X[k] it returns docs/math.md's idct(X); loeffler8_inverse applied
// to loeffler8_forward(x) returns 8 x.
template <typename T>
EFIELD_HD void loeffler8_inverse(T (&v)[8]) {
  namespace c = loeffler8_const;
  // Odd half, reversed: the output butterflies and sqrt(2) factors are symmetric.
  const T ps = v[1] + v[7], qr = v[1] - v[7];
  const T p_s = T(c::kSqrt2) * v[3];
  const T q_r = T(c::kSqrt2) * v[5];
  const T p = ps + p_s, s = ps - p_s;
  const T q = qr + q_r, r = qr - q_r;
  T b0, b1, b2, b3;
  loeffler8_rotate_back(q, p, T(c::kC3), T(c::kS3 - c::kC3), T(c::kC3 + c::kS3), b3, b0);
  loeffler8_rotate_back(s, r, T(c::kC1), T(c::kS1 - c::kC1), T(c::kC1 + c::kS1), b2, b1);
  // Even half, reversed.
  T d1, d0;
  loeffler8_rotate_back(v[2], v[6], T(c::kSqrt2 * c::kC6), T(c::kSqrt2 * (c::kS6 - c::kC6)),
                        T(c::kSqrt2 * (c::kC6 + c::kS6)), d1, d0);
  const T s0 = v[0] + v[4], s1 = v[0] - v[4];
  const T a0 = s0 + d0, a3 = s0 - d0;
  const T a1 = s1 + d1, a2 = s1 - d1;
  // Stage 1, reversed.
  v[0] = a0 + b0; v[7] = a0 - b0;
  v[1] = a1 + b1; v[6] = a1 - b1;
  v[2] = a2 + b2; v[5] = a2 - b2;
  v[3] = a3 + b3; v[4] = a3 - b3;
}

// Per-coefficient factors that turn the network into docs/math.md's definitions (see the top).
template <typename T>
EFIELD_HD T loeffler8_dct_scale(int k) { return k == 0 ? T(1) : T(0.70710678118654752440); }
template <typename T>
EFIELD_HD T loeffler8_idct_scale(int k) { return k == 0 ? T(1) : T(loeffler8_const::kSqrt2); }

// The fused thresholding of the DCT compression (DCT paper, Eq. 20): |b| < eps becomes 0.
template <typename T>
EFIELD_HD T zero_below(T b, T eps) { return (b < eps && b > -eps) ? T(0) : b; }

// A whole 8x8 block in a local array, row-major b[8*r + c]: docs/math.md dct2 of the block with
// coefficients |B| < eps zeroed (eps = 0 keeps all). The body of both the CPU loop and the CUDA
// kernel (one thread per block; fully unrolled, the block lives in registers).
template <typename T>
EFIELD_HD void loeffler8_block_forward(T (&b)[64], T eps) {
  T v[8];
  EFIELD_LOEFFLER8_UNROLL
  for (int r = 0; r < 8; ++r) {
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) v[i] = b[8 * r + i];
    loeffler8_forward(v);
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) b[8 * r + i] = v[i];
  }
  EFIELD_LOEFFLER8_UNROLL
  for (int col = 0; col < 8; ++col) {
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) v[i] = b[8 * i + col];
    loeffler8_forward(v);
    const T sv = loeffler8_dct_scale<T>(col);
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) b[8 * i + col] = zero_below(v[i] * (loeffler8_dct_scale<T>(i) * sv), eps);
  }
}

// docs/math.md idct2 of an 8x8 block, every output multiplied by `out_scale` (1/64 makes it the exact
// inverse of loeffler8_block_forward).
template <typename T>
EFIELD_HD void loeffler8_block_inverse(T (&b)[64], T out_scale) {
  T v[8];
  EFIELD_LOEFFLER8_UNROLL
  for (int r = 0; r < 8; ++r) {
    const T su = loeffler8_idct_scale<T>(r) * out_scale;
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) v[i] = b[8 * r + i] * (su * loeffler8_idct_scale<T>(i));
    loeffler8_inverse(v);
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) b[8 * r + i] = v[i];
  }
  EFIELD_LOEFFLER8_UNROLL
  for (int col = 0; col < 8; ++col) {
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) v[i] = b[8 * i + col];
    loeffler8_inverse(v);
    EFIELD_LOEFFLER8_UNROLL
    for (int i = 0; i < 8; ++i) b[8 * i + col] = v[i];
  }
}

}  // namespace efield::detail
