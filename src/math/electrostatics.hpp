#pragma once
// The spectral step of the electrostatic system (docs/math.md 2.5-2.8), shared by the CPU loop and
// the CUDA spectral kernel. One call handles the four coefficients (u,v), (M-u,v), (u,N-v),
// (M-u,N-v) for 0 <= u <= M/2, 0 <= v <= N/2:
//   1. DCT postprocess of the forward real FFT of the Makhoul-permuted rho (dct2d.hpp),
//      scaled by 4/(MN): a = 4/(MN) dct2(rho);
//   2. the energy terms g_u g_v a^2 inv of the distinct coefficients among the four;
//   3. the preprocess of idxst_idct(a wu inv / 2) (Ex) and idct_idxst(a wv inv / 2) (Ey): a sine
//      axis reads the cosine input with its index reversed (X'[k] = X[K-k], X'[0] = 0), which
//      within the four owned coefficients is a swap; the output sign (-1)^m is applied by the
//      reader of the inverse FFT's output (field_sign below);
//   4. writes the Hermitian-half inputs w(u,v) and w(M-u,v) of both inverse real FFTs (CPU), or
//      (CUDA) the input w_x + i w_y of one complex inverse FFT whose output is Ex + i Ey, at the
//      four points (u,v), (M-u,v), (u,N-v), (M-u,N-v) of the Hermitian extensions.
// Together the calls cover every coefficient once and every inverse FFT input once.
#include "math/complex.hpp"
#include "math/dct2d.hpp"
#include "math/host_device.hpp"

namespace efield::detail {

template <typename T>
struct SpectralGrid {
  int M = 0, N = 0;   // bins along x (rows) and y (columns)
  int half = 0;       // N/2 + 1, the row length of a Hermitian-half spectrum
  T coef_scale = 0;   // 4 / (M N)
  T wu_step = 0;      // 2 pi / M
  T wv_step = 0;      // (2 pi / N) (bx / by)
  const Complex<T>* tw_m = nullptr;  // exp(-j pi k / 2M), k = 0..M
  const Complex<T>* tw_n = nullptr;  // exp(-j pi k / 2N), k = 0..N
};

// docs/math.md 2.6: inv = 1 / (wu^2 + wv^2), 0 at (0,0).
template <typename T>
EFIELD_HD T inverse_wavenumber_sq(T wu, T wv) {
  const T s = wu * wu + wv * wv;
  return s > T(0) ? T(1) / s : T(0);
}

// Four coefficients: (u,v), (M-u,v), (u,N-v), (M-u,N-v); an index equal to M or N reads 0.
template <typename T>
struct CoefQuad {
  T uv, Mu_v, u_Nv, Mu_Nv;
};

// Step 1: a = 4/(MN) dct2(rho) at the four points, from the two values of the R2C spectrum
// V [M][half] that the quad reads: va = V[u, v] and vb = V[(M-u) mod M, v] (spectrum_rows).
struct SpectrumRows {
  long long u, Mu;  // offsets of V[u, v] and V[(M-u) mod M, v]
};
template <typename T>
EFIELD_HD SpectrumRows spectrum_rows(const SpectralGrid<T>& g, int u, int v) {
  return {static_cast<long long>(u) * g.half + v, static_cast<long long>(u == 0 ? 0 : g.M - u) * g.half + v};
}
template <typename T>
EFIELD_HD CoefQuad<T> dct2_quad(Complex<T> va, Complex<T> vb, const SpectralGrid<T>& g, int u, int v) {
  // The four postprocesses share their products (dct2_post_quad: 4 complex products, not 16).
  const Dct2Quad<T> d = dct2_post_quad(va, vb, g.tw_m[u], g.tw_n[v]);
  CoefQuad<T> q;
  q.uv = g.coef_scale * d.uv;
  q.Mu_v = (u == 0) ? T(0) : g.coef_scale * d.Mu_v;  // row M is out of range: 0
  q.u_Nv = (v == 0) ? T(0) : g.coef_scale * d.u_Nv;
  q.Mu_Nv = (u == 0 || v == 0) ? T(0) : g.coef_scale * d.Mu_Nv;
  return q;
}
template <typename T>
EFIELD_HD CoefQuad<T> dct2_quad(const Complex<T>* V, const SpectralGrid<T>& g, int u, int v) {
  const SpectrumRows r = spectrum_rows(g, u, v);
  return dct2_quad(V[r.u], V[r.Mu], g, u, v);
}

// The four values scaled pointwise by f(row, col) (used for inv, wu inv / 2, wv inv / 2).
template <typename T>
struct QuadFactors {
  T uv, Mu_v, u_Nv, Mu_Nv;
};

template <typename T>
EFIELD_HD CoefQuad<T> scale_quad(const CoefQuad<T>& a, const QuadFactors<T>& f) {
  return {a.uv * f.uv, a.Mu_v * f.Mu_v, a.u_Nv * f.u_Nv, a.Mu_Nv * f.Mu_Nv};
}

// Step 2: sum of g_u g_v a^2 inv over the distinct points among the four (g_0 = 1, g_k = 2).
// E = (M N / 4) * (sum of these over all calls).
template <typename T>
EFIELD_HD double energy_terms(const CoefQuad<T>& a, const QuadFactors<T>& inv, const SpectralGrid<T>& g,
                              int u, int v) {
  const int Mu = g.M - u, Nv = g.N - v;
  const bool row2 = (u != 0) && (Mu != u);  // (M-u, .) is a different, valid row
  const bool col2 = (v != 0) && (Nv != v);
  const double gu = (u == 0) ? 1.0 : 2.0, gMu = 2.0;
  const double gv = (v == 0) ? 1.0 : 2.0, gNv = 2.0;
  double e = gu * gv * static_cast<double>(a.uv) * a.uv * inv.uv;
  if (row2) e += gMu * gv * static_cast<double>(a.Mu_v) * a.Mu_v * inv.Mu_v;
  if (col2) e += gu * gNv * static_cast<double>(a.u_Nv) * a.u_Nv * inv.u_Nv;
  if (row2 && col2) e += gMu * gNv * static_cast<double>(a.Mu_Nv) * a.Mu_Nv * inv.Mu_Nv;
  return e;
}

// The inputs w(u,v) and w(M-u,v) of one inverse real FFT (Hermitian half), from the four
// coefficients X of the cosine-cosine transform: idct2 preprocess (dct2d.hpp idct2_pre).
// w(M-u,v) is a distinct input only if u != 0 and M-u != u.
template <typename T>
struct HalfPair {
  Complex<T> u, Mu;
};
template <typename T>
EFIELD_HD HalfPair<T> idct2_inputs(const CoefQuad<T>& x, const SpectralGrid<T>& g, int u, int v) {
  return {idct2_pre(x.uv, x.Mu_Nv, x.Mu_v, x.u_Nv, g.tw_m[u], g.tw_n[v]),
          idct2_pre(x.Mu_v, x.u_Nv, x.uv, x.Mu_Nv, g.tw_m[g.M - u], g.tw_n[v])};
}
// ... written into w [M][half].
template <typename T>
EFIELD_HD void write_half_pair(const HalfPair<T>& p, const SpectralGrid<T>& g, int u, int v, Complex<T>* w) {
  const int Mu = g.M - u;
  w[static_cast<long long>(u) * g.half + v] = p.u;
  if (u != 0 && Mu != u) w[static_cast<long long>(Mu) * g.half + v] = p.Mu;
}
template <typename T>
EFIELD_HD void write_idct2_inputs(const CoefQuad<T>& x, const SpectralGrid<T>& g, int u, int v, Complex<T>* w) {
  write_half_pair(idct2_inputs(x, g, u, v), g, u, v, w);
}

// Sine along the first axis: X'[u,.] = X[M-u,.] for u >= 1, X'[0,.] = 0 (and X'[M,.] = 0).
template <typename T>
EFIELD_HD CoefQuad<T> sine_rows(const CoefQuad<T>& x, int u) {
  if (u == 0) return {T(0), T(0), T(0), T(0)};
  return {x.Mu_v, x.uv, x.Mu_Nv, x.u_Nv};
}
// Sine along the second axis: X'[.,v] = X[.,N-v] for v >= 1, X'[.,0] = 0.
template <typename T>
EFIELD_HD CoefQuad<T> sine_cols(const CoefQuad<T>& x, int v) {
  if (v == 0) return {T(0), T(0), T(0), T(0)};
  return {x.u_Nv, x.Mu_Nv, x.uv, x.Mu_v};
}

// docs/math.md 2.6 at the four points.
template <typename T>
EFIELD_HD void quad_frequencies(const SpectralGrid<T>& g, int u, int v, QuadFactors<T>* wu, QuadFactors<T>* wv,
                                QuadFactors<T>* inv) {
  const T wu0 = g.wu_step * static_cast<T>(u), wu1 = g.wu_step * static_cast<T>(g.M - u);
  const T wv0 = g.wv_step * static_cast<T>(v), wv1 = g.wv_step * static_cast<T>(g.N - v);
  *wu = {wu0, wu1, wu0, wu1};
  *wv = {wv0, wv0, wv1, wv1};
  *inv = {inverse_wavenumber_sq(wu0, wv0), inverse_wavenumber_sq(wu1, wv0), inverse_wavenumber_sq(wu0, wv1),
          inverse_wavenumber_sq(wu1, wv1)};
}

// Steps 1-3 for one thread: the inverse real FFTs' inputs w_x(u,v), w_x(M-u,v) (Ex) and w_y
// likewise (Ey), and the energy terms.
template <typename T>
struct FieldInputs {
  HalfPair<T> x, y;
  double energy;
};
template <typename T>
EFIELD_HD FieldInputs<T> spectral_field_inputs(const CoefQuad<T>& a, const SpectralGrid<T>& g, int u, int v) {
  QuadFactors<T> wu, wv, inv;
  quad_frequencies(g, u, v, &wu, &wv, &inv);
  const CoefQuad<T> a_inv = scale_quad(a, inv);
  const QuadFactors<T> half{T(0.5), T(0.5), T(0.5), T(0.5)};
  const CoefQuad<T> ex = scale_quad(scale_quad(a_inv, wu), half);  // a wu inv / 2
  const CoefQuad<T> ey = scale_quad(scale_quad(a_inv, wv), half);  // a wv inv / 2
  return {idct2_inputs(sine_rows(ex, u), g, u, v), idct2_inputs(sine_cols(ey, v), g, u, v),
          energy_terms(a, inv, g, u, v)};
}

// Step 4 for two inverse real FFTs (Hermitian halves w_x, w_y [M][half]); returns the energy terms.
template <typename T>
EFIELD_HD double spectral_field_step(const Complex<T>* V, Complex<T>* w_x, Complex<T>* w_y,
                                     const SpectralGrid<T>& g, int u, int v) {
  const FieldInputs<T> f = spectral_field_inputs(dct2_quad(V, g, u, v), g, u, v);
  write_half_pair(f.x, g, u, v, w_x);
  write_half_pair(f.y, g, u, v, w_y);
  return f.energy;
}

// a + j b for complex a, b: the input of one complex inverse FFT whose output's real part is the
// inverse of a and its imaginary part the inverse of b (both inverses real).
template <typename T>
EFIELD_HD Complex<T> pack_pair(Complex<T> a, Complex<T> b) {
  return {a.re - b.im, a.im + b.re};
}

// Step 4 for one complex inverse FFT of z [M][N] = w_x + j w_y over the full grid, from the quad's
// two spectrum values (spectrum_rows): the Hermitian extension w(-u mod M, N-v) = conj(w(u,v))
// fills the columns past the half. Returns the energy terms. (At v = 0 and v = N/2 the extension
// is in the half itself; a rounding difference from exact symmetry there leaks into the other
// part at the level of the rounding error.)
template <typename T>
EFIELD_HD double spectral_field_step_packed(Complex<T> va, Complex<T> vb, Complex<T>* z, const SpectralGrid<T>& g,
                                            int u, int v) {
  const FieldInputs<T> f = spectral_field_inputs(dct2_quad(va, vb, g, u, v), g, u, v);
  const int Mu = g.M - u, Nv = g.N - v;
  const bool row2 = u != 0 && Mu != u, col2 = v != 0 && Nv != v;
  const long long N = g.N, ru = u, rMu = u == 0 ? 0 : Mu;  // rMu: row -u mod M
  z[ru * N + v] = pack_pair(f.x.u, f.y.u);
  if (row2) z[rMu * N + v] = pack_pair(f.x.Mu, f.y.Mu);
  if (col2) {
    z[rMu * N + Nv] = pack_pair(conj(f.x.u), conj(f.y.u));
    if (row2) z[ru * N + Nv] = pack_pair(conj(f.x.Mu), conj(f.y.Mu));
  }
  return f.energy;
}

// The potential phi = idct2(a inv) (docs/math.md 2.7), only on request: writes w_phi(u,v), w_phi(M-u,v).
template <typename T>
EFIELD_HD void spectral_potential_step(const Complex<T>* V, Complex<T>* w_phi, const SpectralGrid<T>& g, int u,
                                       int v) {
  const CoefQuad<T> a = dct2_quad(V, g, u, v);
  QuadFactors<T> wu, wv, inv;
  quad_frequencies(g, u, v, &wu, &wv, &inv);
  write_idct2_inputs(scale_quad(a, inv), g, u, v, w_phi);
}

// Readers of an inverse real FFT's output y [M][N] (Makhoul-permuted on both axes):
//   phi[m,n] = y[p(m), q(n)];  Ex[m,n] = (-1)^m y_x[p(m), q(n)];  Ey[m,n] = (-1)^n y_y[p(m), q(n)].
// The sign of the sine axis is folded into the reader, so no pass fixes it up.

}  // namespace efield::detail
