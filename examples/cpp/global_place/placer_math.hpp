#pragma once
// The per-net and per-cell formulas of the placer, written once for the CPU loops and the CUDA
// kernels (compiled as __host__ __device__ by nvcc).
//
// Layout of every position and gradient buffer: 2n values, x of the n cells then their y; cells
// are the movable cells then the fillers. Positions are lower-left corners, as efield takes them.
#include <math.h>

#if defined(__CUDACC__)
#define GP_HD __host__ __device__
#else
#define GP_HD
#endif

namespace global_place {

// ::expf and ::exp exist in host and device code alike (std::exp is host-only).
GP_HD inline float exp_of(float x) { return ::expf(x); }
GP_HD inline double exp_of(double x) { return ::exp(x); }

// Weighted-average wirelength (ePlace's WA model) of one net along one axis, and its gradient.
// With pin coordinates p_i and smoothing gamma:
//   WA = sum p_i e^{p_i/gamma} / sum e^{p_i/gamma}  -  sum p_i e^{-p_i/gamma} / sum e^{-p_i/gamma}
//   dWA/dp_i = a_i/A (1 + (p_i - P+)/gamma)  -  b_i/B (1 - (p_i - P-)/gamma)
// where a_i = e^{(p_i - max)/gamma}, A = sum a, P+ = sum p a / A (b, B, P- likewise with
// e^{(min - p_i)/gamma}); shifting by max and min keeps every exponent <= 0.
// Pin i of the net is pin `begin + i`; its coordinate is pos[cell[pin]] + offset[pin], or just
// offset[pin] when cell[pin] < 0 (a pin of a fixed node: the offset is its absolute coordinate).
// Writes weight * dWA/dp into grad[pin] when the net counts (2 <= degree <= max_degree; zeros
// otherwise) and returns weight * (max - min), the net's half-perimeter share along this axis.
template <class T>
GP_HD double wa_net_axis(int begin, int end, const int* cell, const T* pos, const T* offset, T weight, T inv_gamma,
                         int max_degree, T* grad) {
  if (end <= begin) return 0;
  T lo = 0, hi = 0;
  for (int p = begin; p < end; ++p) {
    const T c = (cell[p] >= 0 ? pos[cell[p]] : T(0)) + offset[p];
    lo = p == begin ? c : (c < lo ? c : lo);
    hi = p == begin ? c : (c > hi ? c : hi);
  }
  const int degree = end - begin;
  if (degree < 2 || degree > max_degree) {
    for (int p = begin; p < end; ++p) grad[p] = 0;
    return static_cast<double>(weight) * (static_cast<double>(hi) - static_cast<double>(lo));
  }
  T a_sum = 0, ap_sum = 0, b_sum = 0, bp_sum = 0;
  for (int p = begin; p < end; ++p) {
    const T c = (cell[p] >= 0 ? pos[cell[p]] : T(0)) + offset[p];
    const T a = exp_of((c - hi) * inv_gamma), b = exp_of((lo - c) * inv_gamma);
    a_sum += a, ap_sum += a * c, b_sum += b, bp_sum += b * c;
  }
  const T p_plus = ap_sum / a_sum, p_minus = bp_sum / b_sum;
  for (int p = begin; p < end; ++p) {
    const T c = (cell[p] >= 0 ? pos[cell[p]] : T(0)) + offset[p];
    const T a = exp_of((c - hi) * inv_gamma), b = exp_of((lo - c) * inv_gamma);
    grad[p] = weight * (a / a_sum * (T(1) + (c - p_plus) * inv_gamma) - b / b_sum * (T(1) - (c - p_minus) * inv_gamma));
  }
  return static_cast<double>(weight) * (static_cast<double>(hi) - static_cast<double>(lo));
}

// DREAMPlace's smoothing schedule of the wirelength: 10x the base at overflow 1, 0.1x at 0.1.
inline double wirelength_gamma(double base_gamma, double overflow) {
  return base_gamma * ::pow(10.0, (overflow - 0.1) * 20.0 / 9.0 - 1.0);
}

// DREAMPlace's preconditioner: the gradient of a cell is divided by max(1, pins + lambda * area),
// an estimate of the diagonal of the objective's Hessian (wirelength: about one per pin;
// density: about lambda times the cell's charge).
GP_HD inline double precondition_factor(double pins, double lambda, double area) {
  const double p = pins + lambda * area;
  return p > 1 ? 1 / p : 1;
}

// One coordinate of ePlace's Nesterov step (Algorithm 2 of the ePlace paper):
//   u_{k+1} = v_k - alpha g_k,   v_{k+1} = u_{k+1} + coef (u_{k+1} - u_k),
// v_{k+1} clamped to [lo, hi] (the region, minus the cell's size at the high end).
template <class T>
GP_HD void nesterov_coordinate(T v_k, T g_k, T u_k, T alpha, T coef, T lo, T hi, T* u_next, T* v_next) {
  const T u = v_k - alpha * g_k;
  T v = u + coef * (u - u_k);
  v = v > hi ? hi : v;
  v = v < lo ? lo : v;
  *u_next = u;
  *v_next = v;
}

}  // namespace global_place
