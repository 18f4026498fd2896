#pragma once
// Internal: the spectral kernel's work as a device function, so that the one-map kernel
// (spectral.cu) and the batched multi-field pass (kernels/multi_field/) run the same code and give
// the same energy partials for the same spectrum.
#include "common/dependent_launch.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// A spectrum value, read for the last time (it leaves L2 before the C2C input that this kernel
// writes).
template <typename T>
__device__ __forceinline__ Complex<T> load_spectrum(const Complex<T>* p) {
  const EsNativePair<T> v = es_load_pair_last_use(&p->re);
  return {v.x, v.y};
}

// Blocks stride over the rows u <= M/2 by blockIdx.x and gridDim.x, threads over the columns
// v <= N/2 (no 64-bit divisions); the block's energy terms into a.part_energy[blockIdx.x].
template <typename T>
__device__ __forceinline__ void spectral_fields_pass(const SpectralArgs<T>& a) {
  wait_for_previous_kernel();  // launched with overlap after the R2C
  const int u_count = a.g.M / 2 + 1, v_count = a.g.N / 2 + 1;
  double energy = 0;
  for (int u = static_cast<int>(blockIdx.x); u < u_count; u += static_cast<int>(gridDim.x))
    for (int v = static_cast<int>(threadIdx.x); v < v_count; v += static_cast<int>(blockDim.x)) {
      const SpectrumRows r = spectrum_rows(a.g, u, v);
      energy += spectral_field_step_packed(load_spectrum(a.spectrum + r.u),
                                           load_spectrum(a.spectrum + r.Mu), a.z, a.g, u, v);
    }
  es_write_block_sum(energy, a.part_energy);
}

}  // namespace efield::detail
