#pragma once
// Launch side of the four-step column passes of Cuda2DMethod::ThreePasses (kernels in
// dct2d_column_four_step.cuh, instantiated in dct2d_column_four_step.cu): which kernels and
// grids a column length gets. Chosen once at plan construction.
#include "efield/transforms.hpp"
#include "math/complex.hpp"
#include "transforms/dct2d_column_pass.hpp"
#include "transforms/pass_launch.hpp"

namespace efield::detail::cuda_nd {

// The split's M1 for `rows` (a power of two in 1024..8192): the line length of the forward
// column_lines and of the inverse groups (FourStepSplit). The inverse's row pass reads its rows
// where the column passes left them (four_step_stored_row) with it.
int four_step_m1(bool inverse, int rows);

// The inverse spectrum's row pitch (complex values), its N/2 + 1 columns padded to a whole
// number of the pieces the passes move (kFourStepPieceBytes).
template <typename T>
int four_step_spectrum_pitch(int cols);

template <typename T>
using ColumnLinesKernel = void (*)(Complex<T>*, int, int, const Complex<T>*, const Complex<T>*);
template <typename T>
using Idct2GroupsKernel = void (*)(const T*, Complex<T>*, int, int, const Complex<T>*, const Complex<T>*,
                                   const Complex<T>*, const Complex<T>*);

// For `rows` a power of two in 1024..8192 (ThreePasses' rule in transforms/cuda2d_registry.cpp)
// and `cols` columns of real data; each raises its kernel's shared-memory limit. The line lengths are
// M1 = four_step_m1(inverse, rows) and M2 = rows / M1; column_lines_kernel's line length is M1
// forward, M2 inverse.
template <typename T>
ColumnLinesKernel<T> column_lines_kernel(bool inverse, int rows, int cols, PassLaunch& launch);
template <typename T>
Dct2ColumnKernel<T> dct2_column_groups_kernel(int rows, int cols, bool threshold, PassLaunch& launch);
template <typename T>
Idct2GroupsKernel<T> idct2_column_groups_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch);

}  // namespace efield::detail::cuda_nd
