#pragma once
// Launch side of the row pass of Cuda2DMethod::TwoPasses (kernels in dct2d_row_pass.cuh,
// instantiated in dct2d_row_pass.cu): which kernel and block shape a row length gets. Chosen
// once at plan construction.
#include "efield/transforms.hpp"
#include "math/complex.hpp"
#include "transforms/pass_launch.hpp"

namespace efield::detail::cuda_nd {

// What the dct2 row pass writes for the pass after it.
enum class Dct2RowOutput {
  Spectrum,         // V, M x (N/2 + 1): the row R2C of the reordered x (TwoPasses)
  CompactSpectrum,  // V as M x N/2 (it fits in the output array), its column N/2 apart (TwoPasses)
  RowDct,           // y, M x N reals: the 1D dct of each row, its columns then transformed in
                    // packed pairs (ThreePasses, dct2_packed_column_pair)
};

template <typename T>
using Dct2RowKernel = void (*)(const T*, Complex<T>*, int, const Complex<T>*, const Complex<T>*, Complex<T>*,
                               const Complex<T>*);
template <typename T>
using Idct2RowKernel = void (*)(const Complex<T>*, int, T*, int, const Complex<T>*, const Complex<T>*, int);
template <typename T>
using Idct2InPlaceRowKernel = void (*)(T*, const Complex<T>*, int, const Complex<T>*, const Complex<T>*);

// The kernel for rows of `cols` values (a power of two in 64..8192) with its launch shape for
// `rows` rows; the kernel's shared-memory limit is raised here. output: what it writes
// (dct2_row_pass; CompactSpectrum is compiled in float only).
template <typename T>
Dct2RowKernel<T> dct2_row_kernel(int rows, int cols, PassLaunch& launch,
                                 Dct2RowOutput output = Dct2RowOutput::Spectrum);
template <typename T>
Idct2RowKernel<T> idct2_row_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);
// idct2_row_pass_in_place, compiled in float for rows of 512 columns on (the shapes with
// 2048^2 elements or more); nullptr otherwise. Same launch shape as idct2_row_kernel's.
template <typename T>
Idct2InPlaceRowKernel<T> idct2_row_in_place_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);

}  // namespace efield::detail::cuda_nd
