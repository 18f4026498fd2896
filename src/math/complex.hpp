#pragma once
// A plain complex value usable on host and device. Its layout (two T, real first) equals
// cufftComplex/cufftDoubleComplex and fftw_complex/fftwf_complex, so spectra from either FFT
// library are read through it by reinterpret_cast.
#include "math/host_device.hpp"

namespace efield::detail {

// Aligned to its size, as cufftComplex (float2) and cufftDoubleComplex (double2) are, so that a
// kernel moves one value with one 8- or 16-byte access instead of two of T: without it nvcc
// splits every global load and store of a Complex<float> in two, and the narrow stores queue up
// (bench_ispd/results/transforms2d.md, "Complex values in one access"). Arrays
// of Complex come from cudaMalloc, fftw_malloc or std::vector, all aligned at least that far.
template <typename T>
struct alignas(2 * sizeof(T)) Complex {
  T re;
  T im;
};
static_assert(sizeof(Complex<float>) == 2 * sizeof(float) && sizeof(Complex<double>) == 2 * sizeof(double),
              "Complex<T> keeps the layout of two T");

template <typename T>
EFIELD_HD Complex<T> operator+(Complex<T> a, Complex<T> b) { return {a.re + b.re, a.im + b.im}; }
template <typename T>
EFIELD_HD Complex<T> operator-(Complex<T> a, Complex<T> b) { return {a.re - b.re, a.im - b.im}; }
template <typename T>
EFIELD_HD Complex<T> operator*(Complex<T> a, Complex<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename T>
EFIELD_HD Complex<T> operator*(T s, Complex<T> a) { return {s * a.re, s * a.im}; }
template <typename T>
EFIELD_HD Complex<T> conj(Complex<T> a) { return {a.re, -a.im}; }
// Real part of a*b without forming the imaginary part.
template <typename T>
EFIELD_HD T re_mul(Complex<T> a, Complex<T> b) { return a.re * b.re - a.im * b.im; }

}  // namespace efield::detail
