#pragma once
// Four consecutive T as one access: one 16-byte load or store in float, two in double. The
// address must be 16-byte aligned (callers check the array's base and row length at plan time).
#include <cuda_runtime.h>

namespace efield::detail::cuda_nd {

template <typename T>
struct Quad4 {
  T a, b, c, d;
};
__device__ __forceinline__ Quad4<float> load_quad4(const float* p) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  return {q.x, q.y, q.z, q.w};
}
__device__ __forceinline__ Quad4<double> load_quad4(const double* p) {
  const double2 lo = reinterpret_cast<const double2*>(p)[0], hi = reinterpret_cast<const double2*>(p)[1];
  return {lo.x, lo.y, hi.x, hi.y};
}
__device__ __forceinline__ void store_quad4(float* p, Quad4<float> q) {
  *reinterpret_cast<float4*>(p) = make_float4(q.a, q.b, q.c, q.d);
}
__device__ __forceinline__ void store_quad4(double* p, Quad4<double> q) {
  reinterpret_cast<double2*>(p)[0] = make_double2(q.a, q.b);
  reinterpret_cast<double2*>(p)[1] = make_double2(q.c, q.d);
}

}  // namespace efield::detail::cuda_nd
