#pragma once
// Internal: which implementation the CUDA Plan2D uses.
//   kernels    Makhoul reorder kernel -> one cuFFT 2D R2C/C2R -> postprocess kernel (three passes)
//   callbacks  two batched 1D cuFFT R2C/C2R (rows, then columns), every pre/postprocess fused
//              into cuFFT LTO load/store callbacks (kernels/transforms/dct2d_callbacks*.cu/cuh)
// The environment variable EFIELD_DCT2D_PATH=kernels|callbacks|auto forces one (tests and
// benchmarks use it); auto (the default) picks per plan (plan2d_callbacks.cpp).
#include <memory>

#include "efield/transforms.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {

enum class Dct2dPath { Auto, Kernels, Callbacks };

// EFIELD_DCT2D_PATH read now (unset or unknown: Auto, with a warning for unknown values).
Dct2dPath requested_dct2d_path();

// Whether the callback path handles this (canonical) shape: both sizes >= 2.
bool callbacks_support(const Dct2dShape& shape);

// Auto's choice for a (canonical) shape that callbacks_support().
bool callbacks_preferred(const Dct2dShape& shape);

// How many Plan2D objects were built on the callback path in this process (tests check that a
// forced path was really taken).
long long callback_plans_made();
void count_callback_plan();

// The callback implementation; throws efield::Error when cuFFT cannot make the plans (e.g. no
// nvJitLink at run time). Defined in kernels/transforms/dct2d_callbacks.cu.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_callback_plan2d(Transform2D kind, int rows, int cols,
                                                         const PlanOptions& options);

}  // namespace efield::detail
