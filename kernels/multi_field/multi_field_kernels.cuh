#pragma once
// Internal: the kernels of MultiFieldSystem's CUDA backend: gather the positions of every field's
// cells into the fields' contiguous slices, scatter the fields' gradients (times their weights)
// back to their entries, zero the entries no field owns.
#include <cstdint>

namespace efield::detail {

// Products rounded on their own (never fused into a following add), so that an accumulated
// gradient is grad + round(w g), as on the CPU.
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }

template <typename T>
__global__ void multi_field_gather(const std::int64_t* __restrict__ entry, std::int64_t slots, const T* __restrict__ x,
                                   const T* __restrict__ y, T* __restrict__ sx, T* __restrict__ sy) {
  for (std::int64_t s = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; s < slots;
       s += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t e = entry[s];
    sx[s] = x[e];
    sy[s] = y[e];
  }
}

// params: the fields' weights, then accumulate (nonzero) at params[num_fields].
template <typename T>
__global__ void multi_field_scatter(const std::int64_t* __restrict__ entry, const std::int32_t* __restrict__ field,
                                    std::int64_t slots, const double* __restrict__ params, int num_fields,
                                    const T* __restrict__ sgx, const T* __restrict__ sgy, T* __restrict__ gx,
                                    T* __restrict__ gy) {
  const bool accumulate = params[num_fields] != 0;
  for (std::int64_t s = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; s < slots;
       s += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t e = entry[s];
    const T w = static_cast<T>(params[field[s]]);
    const T ax = mul_rn(w, sgx[s]), ay = mul_rn(w, sgy[s]);
    gx[e] = accumulate ? gx[e] + ax : ax;
    gy[e] = accumulate ? gy[e] + ay : ay;
  }
}

template <typename T>
__global__ void multi_field_zero(const std::int64_t* __restrict__ entries, std::int64_t count,
                                 const double* __restrict__ params, int num_fields, T* __restrict__ gx,
                                 T* __restrict__ gy) {
  if (params[num_fields] != 0) return;  // accumulating: the entries stay as they are
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    gx[entries[i]] = T(0);
    gy[entries[i]] = T(0);
  }
}

}  // namespace efield::detail
