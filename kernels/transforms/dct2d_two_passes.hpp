#pragma once
// Factory of the CUDA Plan2D's Cuda2DMethod::TwoPasses (dct2d_two_passes.cu). The caller
// checks two_passes_apply(kind, rows, cols) first.
#include <memory>

#include "efield/transforms.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_two_pass_plan2d(Transform2D kind, int rows, int cols,
                                                         const PlanOptions& options);

}  // namespace efield::detail
