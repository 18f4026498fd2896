#pragma once
// Launch side of the column pass of Cuda2DMethod::RowFftColumnPass (kernels in
// dct2d_column_pass.cuh, instantiated in dct2d_column_pass.cu): which kernel and block shape a
// column length gets. Chosen once at plan construction.
#include <cuda_runtime.h>

#include <cstddef>

#include "efield/transforms.hpp"
#include "math/complex.hpp"
#include "transforms/pass_launch.hpp"

namespace efield::detail::cuda_nd {

template <typename T>
using Dct2ColumnKernel = void (*)(const Complex<T>*, T*, int, const Complex<T>*, const Complex<T>*,
                                  const Complex<T>*, T);
template <typename T>
using Idct2ColumnKernel = void (*)(const T*, Complex<T>*, int, const Complex<T>*, const Complex<T>*,
                                   const Complex<T>*);

// The kernel for `rows` (column_pass_applies in plan2d_impl.hpp must hold) with its launch shape for `cols`
// columns; the kernel's shared-memory limit is raised here.
template <typename T>
Dct2ColumnKernel<T> dct2_column_kernel(int rows, int cols, PassLaunch& launch);
template <typename T>
Idct2ColumnKernel<T> idct2_column_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);

}  // namespace efield::detail::cuda_nd
