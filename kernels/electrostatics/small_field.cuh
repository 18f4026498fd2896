#pragma once
// Internal: the one-block field kernel of small grids (small_field.cu; when it applies:
// small_field_stage.cuh). Between the density pass and the gather it does, in shared memory,
// what the general path does in six to eight launches: rho -> forward 2D FFT -> the spectral step
// (math/electrostatics.hpp, the same per-element code as spectral.cu) -> inverse 2D FFT (Ex + i Ey)
// -> the tiled (Ex, Ey) map with the weight folded in (as field_tiles) -> finalize
// (finalize_block.cuh); with 64-bit bins in two maps also the density pass before it. It also
// stores the half spectrum and Ex + i Ey where the general path keeps them, so the potential and
// field maps read the same buffers.
#include <cstddef>

#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

template <typename T>
struct SmallFieldArgs {
  SpectralGrid<T> g;          // twiddle pointers: the spectral stage's device tables
  const T* rho;               // [M][N] permuted: the density pass's output
  const Complex<T>* line_tw_m;  // exp(-2 pi i q / M), q < M / 2
  const Complex<T>* line_tw_n;  // exp(-2 pi i q / N), q < N / 2
  Complex<T>* spectrum;       // [M][N/2 + 1]: the forward transform's half (the R2C output)
  Complex<T>* fields;         // [M][N]: Ex + i Ey, permuted (the C2C output)
  EsVec2<T>* e;               // the gather's tiled map (es_tile_index), weight folded in
  const T* weight;            // device: EvaluateOptions::weight
  double* part_energy;        // [1]: the energy partial (finalize.part_energy)
  FinalizeArgs<T> finalize;   // spectral_blocks = 1
  // 64-bit bins in two maps: the density pass's arguments (DensityStage::enqueue's fold; the
  // kernel then forms rho itself, writing its overflow and max partials as one block:
  // finalize.density_blocks = 1); else fold.acc is nullptr and rho is read.
  DensityPassArgs<T> fold;
};

// Dynamic shared memory of the kernel for an M x N grid.
template <typename T>
std::size_t small_field_shared_bytes(int M, int N) {
  // The map, the half spectrum, the FFT's line roots, the spectral step's quarter twiddles.
  const std::size_t cells = static_cast<std::size_t>(M) * N + static_cast<std::size_t>(M) * (N / 2 + 1) + M / 2 +
                            N / 2 + (M + 1) + (N + 1);
  return cells * sizeof(Complex<T>);
}

// Whether the kernel fits the current device for an M x N grid (its static and dynamic shared
// memory); if so, lets it take up to the device's limit (at construction).
template <typename T>
bool prepare_small_field(int M, int N);
// One block of kEsSmallFieldThreads; overlap: launched with programmatic dependent launch.
template <typename T>
void launch_small_field(const SmallFieldArgs<T>& a, cudaStream_t stream, bool overlap);

}  // namespace efield::detail
