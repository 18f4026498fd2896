#pragma once
// Launch side of the row pass of Cuda2DMethod::TwoPasses (kernels in dct2d_row_pass.cuh,
// instantiated in dct2d_row_pass.cu): which kernel and block shape a row length gets. Chosen
// once at plan construction.
#include "efield/transforms.hpp"
#include "math/complex.hpp"
#include "transforms/pass_launch.hpp"

namespace efield::detail::cuda_nd {

template <typename T>
using Dct2RowKernel = void (*)(const T*, Complex<T>*, int, const Complex<T>*, const Complex<T>*, Complex<T>*);
template <typename T>
using Idct2RowKernel = void (*)(const Complex<T>*, T*, int, const Complex<T>*, const Complex<T>*, int);
template <typename T>
using Idct2InPlaceRowKernel = void (*)(T*, const Complex<T>*, int, const Complex<T>*, const Complex<T>*);

// The kernel for rows of `cols` values (a power of two in 64..8192) with its launch shape for
// `rows` rows; the kernel's shared-memory limit is raised here. compact: the variant that writes
// the spectrum as M x N/2 plus its last column apart (dct2_row_pass).
template <typename T>
Dct2RowKernel<T> dct2_row_kernel(int rows, int cols, PassLaunch& launch, bool compact = false);
template <typename T>
Idct2RowKernel<T> idct2_row_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);
// idct2_row_pass_in_place, compiled in float for rows of 512 columns on (the shapes with
// 2048^2 elements or more); nullptr otherwise. Same launch shape as idct2_row_kernel's.
template <typename T>
Idct2InPlaceRowKernel<T> idct2_row_in_place_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);

}  // namespace efield::detail::cuda_nd
