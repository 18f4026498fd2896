#pragma once
// cuFFT's real-transform types and calls for float and double behind one template, for every
// CUDA plan (1D, 2D, 3D transforms and the electrostatic pipeline), and the complex transforms
// (the inverse gives the electrostatic field pair; both run Plan2D's PackedFft). Spectra are
// passed as the library's Complex<T>, whose layout equals cufftComplex / cufftDoubleComplex.
#include <cufft.h>

#include "math/complex.hpp"

namespace efield::detail {

template <typename T>
struct CufftReal;

template <>
struct CufftReal<float> {
  static constexpr cufftType r2c = CUFFT_R2C;
  static constexpr cufftType c2r = CUFFT_C2R;
  static constexpr cufftType c2c = CUFFT_C2C;
  static cufftResult exec_c2c(cufftHandle p, Complex<float>* in, Complex<float>* out, int direction) {
    return cufftExecC2C(p, reinterpret_cast<cufftComplex*>(in), reinterpret_cast<cufftComplex*>(out), direction);
  }
  static cufftResult exec_r2c(cufftHandle p, float* in, Complex<float>* out) {
    return cufftExecR2C(p, in, reinterpret_cast<cufftComplex*>(out));
  }
  static cufftResult exec_c2r(cufftHandle p, Complex<float>* in, float* out) {
    return cufftExecC2R(p, reinterpret_cast<cufftComplex*>(in), out);
  }
};

template <>
struct CufftReal<double> {
  static constexpr cufftType r2c = CUFFT_D2Z;
  static constexpr cufftType c2r = CUFFT_Z2D;
  static constexpr cufftType c2c = CUFFT_Z2Z;
  static cufftResult exec_c2c(cufftHandle p, Complex<double>* in, Complex<double>* out, int direction) {
    return cufftExecZ2Z(p, reinterpret_cast<cufftDoubleComplex*>(in), reinterpret_cast<cufftDoubleComplex*>(out),
                        direction);
  }
  static cufftResult exec_r2c(cufftHandle p, double* in, Complex<double>* out) {
    return cufftExecD2Z(p, in, reinterpret_cast<cufftDoubleComplex*>(out));
  }
  static cufftResult exec_c2r(cufftHandle p, Complex<double>* in, double* out) {
    return cufftExecZ2D(p, reinterpret_cast<cufftDoubleComplex*>(in), out);
  }
};

}  // namespace efield::detail
