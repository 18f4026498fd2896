#pragma once
// Factory of the CUDA Plan2D's Cuda2DMethod::TwoPasses and ThreePasses (dct2d_own_passes.cu).
// The caller checks two_passes_apply (four_step = false) or three_passes_apply (four_step =
// true) first.
#include <memory>

#include "efield/transforms.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_own_pass_plan2d(Transform2D kind, int rows, int cols, bool four_step,
                                                         const PlanOptions& options);

}  // namespace efield::detail
