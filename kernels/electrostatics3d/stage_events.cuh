#pragma once
// Internal: the CUDA events of profile_stages (pipeline3d_cuda.cu): e[0..4] after each stage,
// e[6] before the first, e[5] and e[7] around one whole evaluate.
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"

namespace efield::detail {

struct StageEvents {
  cudaEvent_t e[8] = {};
  StageEvents() {
    for (cudaEvent_t& v : e) EFIELD_CUDA_CHECK(cudaEventCreate(&v));
  }
  ~StageEvents() {
    for (cudaEvent_t v : e) cudaEventDestroy(v);
  }
  StageEvents(const StageEvents&) = delete;
  StageEvents& operator=(const StageEvents&) = delete;
  double ms(cudaEvent_t a, cudaEvent_t b) const {
    float v = 0;
    EFIELD_CUDA_CHECK(cudaEventElapsedTime(&v, a, b));
    return v;
  }
};

}  // namespace efield::detail
