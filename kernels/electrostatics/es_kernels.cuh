#pragma once
// Internal: the kernels of one CUDA evaluate, in order (each launcher checks its launch):
//   rasterize.cu  launch_rasterize     cells -> fixed-point maps (permuted layout)
//                 launch_density_pass  fixed-point maps + F -> rho, overflow/max partials
//   (cuFFT 2D R2C)
//   spectral.cu   launch_spectral_fields  -> both C2R inputs, energy partials
//   (cuFFT batched 2D C2R)
//   gather.cu     launch_gather        Ex/Ey in the C2R layout -> gradients
//   finalize.cu   launch_finalize      partials -> {energy, overflow, max density}
// Every reduction is fixed-order (per-block CUB reductions into per-block partials, then one
// block over the partials), so a run is bitwise reproducible.
#include <cuda_runtime.h>

#include <cstdint>

#include "electrostatics/cell_layout.hpp"
#include "math/complex.hpp"
#include "math/electrostatics.hpp"

namespace efield::detail {

inline constexpr int kEsThreads = 256;
// Upper bound on the blocks of the grid-stride reduction kernels (= number of partials).
inline constexpr int kEsMaxReduceBlocks = 1024;

using EsAccum = unsigned long long;

// Maximum for CUB block reductions (no dependence on CUB's operator names across versions).
struct EsMax {
  template <typename U>
  __host__ __device__ __forceinline__ U operator()(const U& a, const U& b) const { return a > b ? a : b; }
};  // fixed-point accumulator (density.hpp); values are >= 0

// cell_order.cu: sorts the small cells by bin (a schedule only; results do not depend on it).
template <typename T>
struct CellOrderArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
  const int* small_cells;  // the cells not in the large list, ascending (constant)
  int num_small;
  unsigned* keys;
  unsigned* keys_sorted;
  int* order;  // output: small_cells sorted by bin
  T* order_w;  // output: w[order[t]], h[order[t]] (sizes never change, so these stay valid)
  T* order_h;
  void* temp;
  std::size_t temp_bytes;
};
template <typename T>
std::size_t cell_order_temp_bytes(int num_small);
template <typename T>
void launch_cell_order(const CellOrderArgs<T>& a, cudaStream_t stream);

template <typename T>
struct RasterizeArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;  // per cell (movable, then fillers)
  const T* h;
  EsAccum* acc_movable;
  EsAccum* acc_filler;
  T to_fixed;               // 2^bits / (bx by)
  const int* order;         // the small cells, in the order the threads take them
  const T* order_w;         // their sizes in that order (coalesced reads)
  const T* order_h;
  int num_small;
  const int* large_cells;   // cells handled by a block each
  int num_large;
};
template <typename T>
void launch_rasterize(const RasterizeArgs<T>& a, cudaStream_t stream);

template <typename T>
struct DensityPassArgs {
  std::int64_t bins;
  const T* fixed_rho;   // F / (bx by), permuted
  EsAccum* acc_movable;  // read, then cleared for the next evaluate
  EsAccum* acc_filler;
  T* rho;               // permuted: the R2C input
  T inv_scale;          // 2^-bits
  T target_density;
  double* part_overflow;  // [blocks]
  T* part_max;            // [blocks]
  int blocks;
};
template <typename T>
void launch_density_pass(const DensityPassArgs<T>& a, cudaStream_t stream);

template <typename T>
struct SpectralArgs {
  SpectralGrid<T> g;  // twiddle pointers are device pointers
  const Complex<T>* spectrum;
  Complex<T>* w_x;  // [M][half]
  Complex<T>* w_y;  // [M][half], right after w_x (one batched C2R)
  double* part_energy;
  int blocks;
};
template <typename T>
void launch_spectral_fields(const SpectralArgs<T>& a, cudaStream_t stream);
// phi on request: writes a.w_x (as w_phi); no energy.
template <typename T>
void launch_spectral_potential(const SpectralArgs<T>& a, cudaStream_t stream);

template <typename T>
struct GatherArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
  // C2R output, Ex and Ey interleaved (output stride 2): element k of the permuted layout is
  // y_xy[2k] = y_x, y_xy[2k+1] = y_y with Ex = (-1)^m y_x[p(m), q(n)], Ey = (-1)^n y_y[p(m), q(n)].
  const T* y_xy;
  T* grad_x;
  T* grad_y;
  const int* order;
  const T* order_w;
  const T* order_h;
  int num_small;
  const int* large_cells;
  int num_large;
};
template <typename T>
void launch_gather(const GatherArgs<T>& a, cudaStream_t stream);

template <typename T>
struct FinalizeArgs {
  const double* part_overflow;
  const T* part_max;
  int density_blocks;
  const double* part_energy;
  int spectral_blocks;
  double energy_scale;    // M N / 4
  double overflow_scale;  // bx by / movable area
  double* result;         // device: {energy, overflow, max_density}
};
template <typename T>
void launch_finalize(const FinalizeArgs<T>& a, cudaStream_t stream);

inline int es_blocks_for(std::int64_t items) {
  const std::int64_t b = (items + kEsThreads - 1) / kEsThreads;
  return static_cast<int>(b < 1 ? 1 : b);
}
inline int es_reduce_blocks(std::int64_t items) {
  const int b = es_blocks_for(items);
  return b < kEsMaxReduceBlocks ? b : kEsMaxReduceBlocks;
}

}  // namespace efield::detail
