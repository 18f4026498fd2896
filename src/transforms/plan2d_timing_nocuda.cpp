// Stand-in for a build without the CUDA backend (see kernels/transforms/plan2d_timing.cu).
#include "efield/error.hpp"
#include "transforms/plan2d_timing.hpp"

namespace efield::detail {

template <typename T>
double time_cuda_plan2d_ms(Plan2DImpl<T>&) {
  throw Error("PlanEffort::Measure: efield was built without CUDA");
}

template double time_cuda_plan2d_ms<float>(Plan2DImpl<float>&);
template double time_cuda_plan2d_ms<double>(Plan2DImpl<double>&);

}  // namespace efield::detail
