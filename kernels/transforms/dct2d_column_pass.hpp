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
using Dct2InPlaceColumnKernel = void (*)(T*, const Complex<T>*, int, const Complex<T>*, const Complex<T>*,
                                         const Complex<T>*, T);
template <typename T>
using Idct2ColumnKernel = void (*)(const T*, Complex<T>*, int, const Complex<T>*, const Complex<T>*,
                                   const Complex<T>*);
template <typename T>
using Idct2CompactColumnKernel = void (*)(const T*, Complex<T>*, Complex<T>*, int, const Complex<T>*,
                                          const Complex<T>*, const Complex<T>*);

// The kernel for `rows` (RowFftColumnPass' rule in transforms/cuda2d_registry.cpp must hold)
// with its launch shape for `cols` columns; the kernel's shared-memory limit is raised here.
// threshold: the dct2 kernel applies PlanOptions::zero_below (a plan passes zero_below > 0).
template <typename T>
Dct2ColumnKernel<T> dct2_column_kernel(int rows, int cols, bool threshold, PassLaunch& launch);
template <typename T>
Idct2ColumnKernel<T> idct2_column_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);
// idct2_column_pass_compact, compiled in float for columns of 512 rows up to 4096 (the quad
// preprocess's range from 2048^2 elements); nullptr otherwise, and where `cols` takes no quad
// preprocess. Reads its input in quads (launch.quad_input).
template <typename T>
Idct2CompactColumnKernel<T> idct2_column_compact_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);

// dct2_column_pass_in_place for `rows` x `cols` in float, with its launch shape, or nullptr where
// the current device cannot hold all of its blocks at once (or runs no cooperative launches), and
// for double.
template <typename T>
Dct2InPlaceColumnKernel<T> dct2_column_in_place_kernel(int rows, int cols, bool threshold, PassLaunch& launch);
// Enqueues it as a cooperative launch on `stream`: X holds the M x N/2 spectrum on entry and the
// dct2 on exit; nyquist holds the spectrum's column N/2.
template <typename T>
void launch_dct2_column_in_place(Dct2InPlaceColumnKernel<T> kernel, const PassLaunch& launch, T* X,
                                 const Complex<T>* nyquist, int N, const Complex<T>* tu, const Complex<T>* tv,
                                 const Complex<T>* twiddles, T zero_below, cudaStream_t stream);

}  // namespace efield::detail::cuda_nd
