// The cells in bin order (cell_order.cuh): one key per cell from its footprint's first bin, then
// CUB's radix sort of the cell indices by key.
#include <cub/device/device_radix_sort.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/cell_order.cuh"

namespace efield::detail {
namespace {

// The bits of v spread to the even positions (v < 2^15).
__device__ __forceinline__ unsigned int spread_bits(unsigned int v) {
  v = (v | (v << 8)) & 0x00ff00ffu;
  v = (v | (v << 4)) & 0x0f0f0f0fu;
  v = (v | (v << 2)) & 0x33333333u;
  v = (v | (v << 1)) & 0x55555555u;
  return v;
}

// Movable cells first, then fillers (the part bit above the code); in each part, a large cell
// (a warp or a block of its own, not in the windows) after every small one.
template <typename T>
__global__ void cell_order_keys(CellOrderArgs<T> a) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= a.g.num_cells) return;
  const unsigned int part = c >= a.g.num_movable ? 1u : 0u;
  unsigned int code = (1u << a.code_bits) - 1u;
  std::int64_t i;
  Footprint<T> f;
  if (load_small_cell(a, c, &i, &f)) {
    const unsigned int m = static_cast<unsigned int>(max(f.m0, 0)) >> a.shift;
    const unsigned int n = static_cast<unsigned int>(max(f.n0, 0)) >> a.shift;
    code = spread_bits(m) | (spread_bits(n) << 1);
  }
  a.keys[c] = (part << a.code_bits) | code;
}

}  // namespace

template <typename T>
void launch_cell_order_keys(const CellOrderArgs<T>& a, cudaStream_t stream) {
  cell_order_keys<T><<<es_blocks_for(a.g.num_cells), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

std::size_t cell_order_sort_bytes(int n) {
  std::size_t bytes = 0;
  EFIELD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const unsigned int*>(nullptr),
                                                    static_cast<unsigned int*>(nullptr),
                                                    static_cast<const int*>(nullptr), static_cast<int*>(nullptr), n));
  return bytes;
}

void sort_cell_order(void* temp, std::size_t temp_bytes, const unsigned int* keys, unsigned int* keys_sorted,
                     const int* identity, int* order, int n, int end_bit, cudaStream_t stream) {
  EFIELD_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, keys_sorted, identity, order, n, 0, end_bit, stream));
}

template void launch_cell_order_keys<float>(const CellOrderArgs<float>&, cudaStream_t);
template void launch_cell_order_keys<double>(const CellOrderArgs<double>&, cudaStream_t);

}  // namespace efield::detail
