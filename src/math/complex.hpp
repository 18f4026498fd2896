#pragma once
// A plain complex value usable on host and device. Its layout (two T, real first) equals
// cufftComplex/cufftDoubleComplex and fftw_complex/fftwf_complex, so spectra from either FFT
// library are read through it by reinterpret_cast.
#include "math/host_device.hpp"

namespace efield::detail {

template <typename T>
struct Complex {
  T re;
  T im;
};

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
