#pragma once
// Internal: how PlanEffort::Measure times a CUDA 2D plan (kernels/transforms/plan2d_timing.cu; a
// build without CUDA has a throwing stand-in in plan2d_timing_nocuda.cpp).
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {

// Runs `plan` on scratch device arrays of its size (made and freed here: plan time, not execute
// time) a few times after a warm-up, on a stream of its own, and returns the median time of one
// execute in milliseconds.
template <typename T>
double time_cuda_plan2d_ms(Plan2DImpl<T>& plan);

}  // namespace efield::detail
