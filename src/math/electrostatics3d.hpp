#pragma once
// The spectral step of the 3D electrostatic system (docs/math.md 4.5-4.8), shared by the CPU loop
// and the CUDA kernel. Input: X = dct3d(rho) (Plan3D's Dct, natural layout [M][N][L]). One call
// per coefficient (u, v, l) gives
//   - the energy term g_u g_v g_l a^2 inv at (u, v, l), a = 4 / (M N L) X (E = M N L / 4 times
//     the sum of the terms);
//   - the inputs of the three field transforms, each a plain idct3d (Plan3D's Idct) once the sine
//     axis reads its coefficients with the index reversed (docs/math.md "Sine axes by index
//     reversal"): the x input at (u, v, l) is (a wu inv / 2)[M-u, v, l] (0 at u = 0), and likewise
//     y with N-v and z with L-l. The output sign (-1)^m of the sine axis is applied where the
//     output is read (field_sign3d through field_sample3d), never to the transform's input;
//   - the potential's input (a inv)[u, v, l] (phi = idct3d of it).
#include <cstdint>

#include "math/host_device.hpp"

namespace efield::detail {

template <typename T>
struct SpectralGrid3D {
  int M = 0, N = 0, L = 0;
  T coef_scale = 0;  // 4 / (M N L)
  T wu_step = 0;     // 2 pi / M
  T wv_step = 0;     // (2 pi / N) (bx / by)
  T wl_step = 0;     // (2 pi / L) (bx / bz)
};

EFIELD_HD std::int64_t index3d(int m, int n, int k, int N, int L) {
  return (static_cast<std::int64_t>(m) * N + n) * L + k;
}

// docs/math.md 4.6: a inv at (u, v, l) and the frequency along the asked axis (0 = x, 1 = y, 2 = z).
template <typename T>
EFIELD_HD T inverse_wavenumber_sq3(T wu, T wv, T wl) {
  const T s = wu * wu + wv * wv + wl * wl;
  return s > T(0) ? T(1) / s : T(0);
}

template <typename T>
struct SpectralInputs3D {
  T ex, ey, ez;   // inputs of the three field idct3d's at (u, v, l), sine axes reversed
  T phi;          // input of the potential's idct3d at (u, v, l)
  double energy;  // g_u g_v g_l a^2 inv at (u, v, l)
};

// (a w_axis inv / 2) at (u, v, l) for the frequency of `axis`, x = X[u, v, l].
template <typename T>
EFIELD_HD T field_coefficient(T x, const SpectralGrid3D<T>& g, int u, int v, int l, int axis) {
  const T wu = g.wu_step * static_cast<T>(u), wv = g.wv_step * static_cast<T>(v), wl = g.wl_step * static_cast<T>(l);
  const T w = axis == 0 ? wu : axis == 1 ? wv : wl;
  const T a = g.coef_scale * x;
  return a * w * inverse_wavenumber_sq3(wu, wv, wl) * T(0.5);
}

// The coefficients one call reads: X at (u, v, l) and at its mirrors (M-u, v, l), (u, N-v, l),
// (u, v, L-l) (each read only where that index is not 0).
template <typename T>
struct SpectralCoefficients3D {
  T here, mirror_x, mirror_y, mirror_z;
};

template <typename T>
EFIELD_HD SpectralInputs3D<T> spectral_inputs3d(const SpectralCoefficients3D<T>& x, const SpectralGrid3D<T>& g,
                                                int u, int v, int l) {
  SpectralInputs3D<T> s;
  const T wu = g.wu_step * static_cast<T>(u), wv = g.wv_step * static_cast<T>(v), wl = g.wl_step * static_cast<T>(l);
  const T inv = inverse_wavenumber_sq3(wu, wv, wl);
  const T a = g.coef_scale * x.here;
  s.phi = a * inv;
  const double gw = (u == 0 ? 1.0 : 2.0) * (v == 0 ? 1.0 : 2.0) * (l == 0 ? 1.0 : 2.0);
  s.energy = gw * static_cast<double>(a) * a * inv;
  s.ex = u == 0 ? T(0) : field_coefficient(x.mirror_x, g, g.M - u, v, l, 0);
  s.ey = v == 0 ? T(0) : field_coefficient(x.mirror_y, g, u, g.N - v, l, 1);
  s.ez = l == 0 ? T(0) : field_coefficient(x.mirror_z, g, u, v, g.L - l, 2);
  return s;
}

// The same reading X [M][N][L].
template <typename T>
EFIELD_HD SpectralInputs3D<T> spectral_inputs3d(const T* X, const SpectralGrid3D<T>& g, int u, int v, int l) {
  SpectralCoefficients3D<T> x;
  x.here = X[index3d(u, v, l, g.N, g.L)];
  x.mirror_x = u == 0 ? T(0) : X[index3d(g.M - u, v, l, g.N, g.L)];
  x.mirror_y = v == 0 ? T(0) : X[index3d(u, g.N - v, l, g.N, g.L)];
  x.mirror_z = l == 0 ? T(0) : X[index3d(u, v, g.L - l, g.N, g.L)];
  return spectral_inputs3d(x, g, u, v, l);
}

// The sign of a sine axis' output sample: Ex[m,n,k] = (-1)^m y_x[m,n,k] (likewise n for Ey, k for Ez).
template <typename T>
EFIELD_HD T field_sign3d(int index) {
  return (index & 1) ? T(-1) : T(1);
}

}  // namespace efield::detail
