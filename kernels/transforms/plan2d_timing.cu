// PlanEffort::Measure's timing of one CUDA 2D plan (plan2d_timing.hpp). The data are zeros: the
// transforms' work does not depend on the values.
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/median_time.cuh"
#include "transforms/plan2d_timing.hpp"

namespace efield::detail {

template <typename T>
double time_cuda_plan2d_ms(Plan2DImpl<T>& plan) {
  const std::size_t n = static_cast<std::size_t>(plan.rows()) * plan.cols();
  DeviceBuffer<T> in(n), out(n);
  EFIELD_CUDA_CHECK(cudaMemset(in.get(), 0, in.bytes()));
  return median_enqueue_ms([&](cudaStream_t s) { plan.execute(in.get(), out.get(), reinterpret_cast<Stream>(s)); });
}

template double time_cuda_plan2d_ms<float>(Plan2DImpl<float>&);
template double time_cuda_plan2d_ms<double>(Plan2DImpl<double>&);

}  // namespace efield::detail
