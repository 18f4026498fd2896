// The one spectral kernel between the forward R2C and the inverse C2C: each thread owns the
// coefficients (u,v), (M-u,v), (u,N-v), (M-u,N-v) and runs spectral_field_step_packed
// (math/electrostatics.hpp): DCT postprocess, 4/(MN) scaling, inv, wu, wv, the energy terms,
// and the preprocess of both inverse transforms (sine axes folded in), packed as the input of one
// complex inverse FFT whose output is Ex + i Ey (one 2D C2C costs less than the batched pair of
// C2R: bench_ispd/results/electrostatics.md). The energy terms are reduced per block (fixed
// order) into partials.
#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/spectral_pass.cuh"

namespace efield::detail {
namespace {

template <typename T>
__global__ void spectral_fields(SpectralArgs<T> a) {
  spectral_fields_pass(a);
}

template <typename T>
__global__ void spectral_potential(SpectralArgs<T> a) {
  const int v_count = a.g.N / 2 + 1;
  const std::int64_t items = static_cast<std::int64_t>(a.g.M / 2 + 1) * v_count;
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < items)
    spectral_potential_step(a.spectrum, a.w_phi, a.g, static_cast<int>(k / v_count), static_cast<int>(k % v_count));
}

}  // namespace

template <typename T>
void launch_spectral_fields(const SpectralArgs<T>& a, cudaStream_t stream, bool overlap) {
  launch_kernel(overlap, spectral_fields<T>, a.blocks, kEsThreads, 0, stream, a);
}

template <typename T>
void launch_spectral_potential(const SpectralArgs<T>& a, cudaStream_t stream) {
  spectral_potential<T><<<es_blocks_for(static_cast<std::int64_t>(a.g.M / 2 + 1) * (a.g.N / 2 + 1)), kEsThreads, 0,
                          stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_spectral_fields<float>(const SpectralArgs<float>&, cudaStream_t, bool);
template void launch_spectral_fields<double>(const SpectralArgs<double>&, cudaStream_t, bool);
template void launch_spectral_potential<float>(const SpectralArgs<float>&, cudaStream_t);
template void launch_spectral_potential<double>(const SpectralArgs<double>&, cudaStream_t);

}  // namespace efield::detail
