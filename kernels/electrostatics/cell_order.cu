// Cell order for the one-thread-per-cell kernels: the small cells sorted by the bin of their
// stretched footprint's lower-left corner (row-major), so that the threads of a warp rasterize
// into, and gather from, neighbouring bins (shared cache sectors instead of one DRAM sector per
// bin access). The order only schedules work: the fixed-point sums and the per-cell gradients
// are bitwise the same in any order. Sorting is a CUB radix sort over ceil(log2(M N)) key bits
// with temporary storage sized at construction.
#include <cub/device/device_radix_sort.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {
namespace {

template <typename T>
__global__ void cell_bin_keys(CellOrderArgs<T> a) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.num_small) return;
  const int c = a.small_cells[t];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.w[c], a.h[c]);
  a.keys[t] = static_cast<unsigned>(f.m0) * static_cast<unsigned>(a.g.N) + static_cast<unsigned>(f.n0);
}

template <typename T>
__global__ void sizes_in_order(CellOrderArgs<T> a) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.num_small) return;
  const int c = a.order[t];
  a.order_w[t] = a.w[c];
  a.order_h[t] = a.h[c];
}

int key_bits(int M, int N) {
  const unsigned long long top = static_cast<unsigned long long>(M) * N;
  int bits = 1;
  while ((1ULL << bits) < top) ++bits;
  return bits;
}

}  // namespace

template <typename T>
std::size_t cell_order_temp_bytes(int num_small) {
  std::size_t bytes = 0;
  EFIELD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const unsigned*>(nullptr),
                                                    static_cast<unsigned*>(nullptr), static_cast<const int*>(nullptr),
                                                    static_cast<int*>(nullptr), num_small));
  return bytes;
}

template <typename T>
void launch_cell_order(const CellOrderArgs<T>& a, cudaStream_t stream) {
  if (a.num_small == 0) return;
  cell_bin_keys<T><<<es_blocks_for(a.num_small), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  std::size_t bytes = a.temp_bytes;
  EFIELD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(a.temp, bytes, a.keys, a.keys_sorted, a.small_cells, a.order,
                                                    a.num_small, 0, key_bits(a.g.M, a.g.N), stream));
  sizes_in_order<T><<<es_blocks_for(a.num_small), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template std::size_t cell_order_temp_bytes<float>(int);
template std::size_t cell_order_temp_bytes<double>(int);
template void launch_cell_order<float>(const CellOrderArgs<float>&, cudaStream_t);
template void launch_cell_order<double>(const CellOrderArgs<double>&, cudaStream_t);

}  // namespace efield::detail
