#pragma once
// Internal: the CUDA 3D pipeline's maps brought to the host for its map accessors (not per
// iteration): a plain copy, a map in the Makhoul order back in the natural layout, and one
// component of the packed field map.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/cuda_check.cuh"
#include "electrostatics3d/kernels3d.cuh"  // PackedField3D
#include "math/electrostatics3d.hpp"       // index3d
#include "math/makhoul.hpp"

namespace efield::detail {

// `count` values of a device map, after the stream's work so far.
template <typename T>
std::vector<T> download_map3d(const T* map, std::int64_t count, cudaStream_t stream) {
  std::vector<T> host(static_cast<std::size_t>(count));
  EFIELD_CUDA_CHECK(cudaMemcpyAsync(host.data(), map, host.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
  EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// A [M][N][L] map stored in the Makhoul order on every axis, in the natural layout.
template <typename T>
std::vector<T> natural_from_makhoul3d(const std::vector<T>& reordered, int M, int N, int L) {
  std::vector<T> natural(reordered.size());
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < L; ++k)
        natural[static_cast<std::size_t>(index3d(m, n, k, N, L))] = reordered[static_cast<std::size_t>(
            index3d(makhoul_position(m, M), makhoul_position(n, N), makhoul_position(k, L), N, L))];
  return natural;
}

// Component `axis` (0: Ex, 1: Ey, 2: Ez) of the packed field map.
template <typename T>
std::vector<T> packed_component3d(const PackedField3D<T>* packed, std::int64_t bins, int axis, cudaStream_t stream) {
  const std::vector<PackedField3D<T>> host = download_map3d(packed, bins, stream);
  std::vector<T> component(host.size());
  for (std::size_t i = 0; i < host.size(); ++i)
    component[i] = axis == 0 ? host[i].x : axis == 1 ? host[i].y : host[i].z;
  return component;
}

}  // namespace efield::detail
