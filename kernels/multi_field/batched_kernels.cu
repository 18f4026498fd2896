// The kernels of the batched multi-field pipeline (batched_kernels.cuh). The rasterize and the
// gather are written for slots of many fields (a cell's field picks its geometry, its maps and
// its weight) and call the 2D pipeline's device functions for every formula: cell_footprint,
// small_footprint, footprint_weight, to_fixed_point, outside_fixed_point (cell_layout.hpp,
// math/density.hpp) and footprint_field_sum (field_map.cuh). The density, spectral, field-tiles
// and finalize kernels run the 2D passes themselves (density_pass.cuh, spectral_pass.cuh,
// field_map.cuh, finalize_pass.cuh), a field per blockIdx.y (z, x), so every field's partials
// are the one-map pipeline's. Large cells (is_large_cell) take a block each.
#include "common/cuda_check.cuh"
#include "electrostatics/density_pass.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/field_map.cuh"
#include "electrostatics/finalize_pass.cuh"
#include "electrostatics/spectral_pass.cuh"
#include "multi_field/batched_kernels.cuh"
#include "multi_field/multi_field_kernels.cuh"

namespace efield::detail {
namespace {

// Slot s as its field sees it: the field, the cell's index in the field, its entry, its
// footprint; false for a large cell when kSkipLarge (those have a block each).
template <typename T>
struct SlotCell {
  int k;
  std::int64_t c, e;
  CellGeometry<T> g;
  Footprint<T> f;
};
template <typename T, bool kSkipLarge>
__device__ __forceinline__ bool load_slot(const BatchedCells<T>& a, std::int64_t s, SlotCell<T>* cell) {
  const T w = __ldg(a.w + s), h = __ldg(a.h + s);
  cell->k = __ldg(a.field + s);
  cell->g = field_geometry(a, cell->k);
  if (kSkipLarge && is_large_cell(cell->g, w, h)) return false;
  cell->c = s - __ldg(a.offset + cell->k);
  cell->e = __ldg(a.entry + s);
  cell->f = cell_footprint(cell->g, cell->c, a.x[cell->e], a.y[cell->e], w, h);
  return true;
}

// The cell's charge in bin (m, n) into its map, as 64-bit fixed point (the 2D pipeline's unit).
template <typename T>
__device__ __forceinline__ void add_fixed(EsAccum* map, T weight, T to_fixed, int m, int n, int N) {
  const std::int64_t q = to_fixed_point(weight, to_fixed);
  if (q > 0) atomicAdd(map + static_cast<std::int64_t>(m) * N + n, static_cast<EsAccum>(q));
}

// The cell's movable or filler map, and its area outside the region into its field's slots (the
// 2D pipeline's slot of the same cell index).
template <typename T>
__device__ __forceinline__ EsAccum* slot_map(const BatchedRasterizeArgs<T>& a, const SlotCell<T>& s) {
  const bool filler = s.c >= s.g.num_movable;
  return a.maps + (2 * static_cast<std::int64_t>(s.k) + (filler ? 1 : 0)) * a.bins;
}
template <typename T>
__device__ __forceinline__ void add_slot_outside(const BatchedRasterizeArgs<T>& a, const SlotCell<T>& s) {
  const std::int64_t q = outside_fixed_point(s.f, s.g);
  if (q != 0)
    atomicAdd(a.outside + 2 * static_cast<std::int64_t>(s.k) * kEsTotalSlots + outside_slot(s.c, s.c >= s.g.num_movable),
              static_cast<EsAccum>(q));
}

// Blocks [0, small_blocks): a slot per thread; then a large cell per block.
template <typename T>
__global__ void __launch_bounds__(kEsThreads) batched_rasterize(BatchedRasterizeArgs<T> a, int small_blocks) {
  const int b = static_cast<int>(blockIdx.x);
  SlotCell<T> s;
  if (b < small_blocks) {
    const std::int64_t slot = static_cast<std::int64_t>(b) * blockDim.x + threadIdx.x;
    if (slot >= a.cells.slots || !load_slot<T, true>(a.cells, slot, &s)) return;
    add_slot_outside(a, s);
    EsAccum* map = slot_map(a, s);
    const Footprint<T>& f = s.f;
    const int N = s.g.N;
    if (is_small_footprint(f)) {
      const SmallFootprint<T> sf = small_footprint(f, s.g);
#pragma unroll
      for (int p = 0; p < 3; ++p) {
        if (f.m0 + p > f.m1) continue;
#pragma unroll
        for (int q = 0; q < 3; ++q)
          if (f.n0 + q <= f.n1) add_fixed(map, sf.weight(p, q), a.to_fixed, f.m0 + p, f.n0 + q, N);
      }
      return;
    }
    for (int m = f.m0; m <= f.m1; ++m)
      for (int n = f.n0; n <= f.n1; ++n) add_fixed(map, footprint_weight(f, s.g, m, n), a.to_fixed, m, n, N);
    return;
  }
  load_slot<T, false>(a.cells, a.cells.large[b - small_blocks], &s);
  if (threadIdx.x == 0) add_slot_outside(a, s);
  EsAccum* map = slot_map(a, s);
  const Footprint<T>& f = s.f;
  const int cols = f.n1 - f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.m1 - f.m0 + 1) * cols;
  for (std::int64_t i = threadIdx.x; i < count; i += blockDim.x) {
    const int m = f.m0 + static_cast<int>(i / cols), n = f.n0 + static_cast<int>(i % cols);
    add_fixed(map, footprint_weight(f, s.g, m, n), a.to_fixed, m, n, s.g.N);
  }
}

// w_k g at the cell's entry, or added there; the product rounded on its own as in the per-field
// pipeline's scatter (multi_field_kernels.cuh), so both give grad + round(w g).
template <typename T>
__device__ __forceinline__ void store_weighted(const BatchedGatherArgs<T>& a, const SlotCell<T>& s, T gx, T gy) {
  const T w = static_cast<T>(a.params[s.k]);
  const T vx = mul_rn(w, gx), vy = mul_rn(w, gy);
  if (a.params[a.num_fields] != 0) {
    a.grad_x[s.e] += vx;
    a.grad_y[s.e] += vy;
  } else {
    a.grad_x[s.e] = vx;
    a.grad_y[s.e] = vy;
  }
}

template <typename T>
__global__ void __launch_bounds__(kEsThreads) batched_gather(BatchedGatherArgs<T> a, int small_blocks) {
  const int b = static_cast<int>(blockIdx.x);
  SlotCell<T> s;
  T sx = 0, sy = 0;
  if (b < small_blocks) {
    const std::int64_t slot = static_cast<std::int64_t>(b) * blockDim.x + threadIdx.x;
    if (slot >= a.cells.slots || !load_slot<T, true>(a.cells, slot, &s)) return;
    footprint_field_sum(a.e + s.k * a.tile_map, s.g, s.f, &sx, &sy);
    store_weighted(a, s, -sx, -sy);
    return;
  }
  // A large cell: its bins split among the block's threads, a fixed-order CUB reduction.
  load_slot<T, false>(a.cells, a.cells.large[b - small_blocks], &s);
  footprint_field_share(a.e + s.k * a.tile_map, s.g, s.f, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x),
                        &sx, &sy);
  const EsVec2<T> sum = block_field_sum(sx, sy);
  if (threadIdx.x == 0) store_weighted(a, s, -sum.x, -sum.y);
}

template <typename T>
__global__ void batched_density(const DensityPassArgs<T>* args, int N) {
  const DensityPassArgs<T> a = args[blockIdx.y];
  density_combined_pass(a, N);
}

template <typename T>
__global__ void batched_spectral(const SpectralArgs<T>* args) {
  const SpectralArgs<T> a = args[blockIdx.y];
  spectral_fields_pass(a);
}

template <typename T>
__global__ void batched_field_tiles(const EsVec2<T>* z, EsVec2<T>* e, int M, int N, const T* one) {
  const std::int64_t k = blockIdx.z;
  field_tiles_pass(z + k * M * N, e + k * es_tile_map_size(M, N), M, N, one);
}

template <typename T>
__global__ void batched_finalize(const FinalizeArgs<T>* args) {
  const FinalizeArgs<T> a = args[blockIdx.x];
  finalize_pass(a);
}

}  // namespace

template <typename T>
void launch_batched_rasterize(const BatchedRasterizeArgs<T>& a, cudaStream_t stream) {
  const int small_blocks = a.cells.slots > 0 ? es_blocks_for(a.cells.slots) : 0;
  const int blocks = small_blocks + a.cells.num_large;
  if (blocks == 0) return;
  batched_rasterize<T><<<blocks, kEsThreads, 0, stream>>>(a, small_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_batched_density(const DensityPassArgs<T>* args, int num_fields, int blocks, int N, cudaStream_t stream) {
  batched_density<T><<<dim3(blocks, num_fields), kEsThreads, 0, stream>>>(args, N);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_batched_spectral(const SpectralArgs<T>* args, int num_fields, int blocks, cudaStream_t stream) {
  batched_spectral<T><<<dim3(blocks, num_fields), kEsThreads, 0, stream>>>(args);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_batched_field_tiles(const EsVec2<T>* z, EsVec2<T>* e, int num_fields, int M, int N, const T* one,
                                cudaStream_t stream) {
  const int tiles_m = (M + 1) / 2;
  const int row_blocks = tiles_m < kEsMaxRowBlocks ? tiles_m : kEsMaxRowBlocks;  // as launch_field_tiles
  const dim3 grid(row_blocks, es_blocks_for(2 * static_cast<std::int64_t>(es_tiles_n(N))), num_fields);
  batched_field_tiles<T><<<grid, kEsThreads, 0, stream>>>(z, e, M, N, one);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_batched_gather(const BatchedGatherArgs<T>& a, cudaStream_t stream) {
  const int small_blocks = a.cells.slots > 0 ? es_blocks_for(a.cells.slots) : 0;
  const int blocks = small_blocks + a.cells.num_large;
  if (blocks == 0) return;
  batched_gather<T><<<blocks, kEsThreads, 0, stream>>>(a, small_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_batched_finalize(const FinalizeArgs<T>* args, int num_fields, cudaStream_t stream) {
  batched_finalize<T><<<num_fields, kEsThreads, 0, stream>>>(args);
  EFIELD_CUDA_CHECK_LAUNCH();
}

#define EFIELD_BATCHED_KERNELS(T)                                                                             \
  template void launch_batched_rasterize<T>(const BatchedRasterizeArgs<T>&, cudaStream_t);                    \
  template void launch_batched_density<T>(const DensityPassArgs<T>*, int, int, int, cudaStream_t);            \
  template void launch_batched_spectral<T>(const SpectralArgs<T>*, int, int, cudaStream_t);                   \
  template void launch_batched_field_tiles<T>(const EsVec2<T>*, EsVec2<T>*, int, int, int, const T*,          \
                                              cudaStream_t);                                                  \
  template void launch_batched_gather<T>(const BatchedGatherArgs<T>&, cudaStream_t);                          \
  template void launch_batched_finalize<T>(const FinalizeArgs<T>*, int, cudaStream_t);
EFIELD_BATCHED_KERNELS(float)
EFIELD_BATCHED_KERNELS(double)
#undef EFIELD_BATCHED_KERNELS

}  // namespace efield::detail
