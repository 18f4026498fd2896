#pragma once
// Factory of the CUDA Plan2D's Cuda2DMethod::PrimeFactorFft (dct2d_prime_factor.cu). The caller
// checks prime_factor_fft_applies first.
#include <memory>

#include "efield/transforms.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_prime_factor_plan2d(Transform2D kind, int rows, int cols,
                                                             const PlanOptions& options);

}  // namespace efield::detail
