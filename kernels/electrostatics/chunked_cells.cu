// Movable large cells in chunks (large_cells.cuh): a block per kEsChunkBins bins of a footprint,
// so a cell of 10^4 bins or more is spread over many SMs instead of one block's serial loop
// (bench_ispd/results/electrostatics.md, "Issue 41: large cells"). Rasterize rounds each bin as
// rasterize.cu does, so the density is the same integers (bitwise); the gather sums a chunk in a
// fixed-order block reduction and a cell's chunks in index order, so every sum is reproducible.
#include <cub/block/block_reduce.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/large_cells.cuh"

namespace efield::detail {
namespace {

// The chunk's cell, footprint and bin range [first, end) in row-major footprint order.
template <typename T>
struct Chunk {
  int c;
  std::int64_t i;  // position index
  Footprint<T> f;
  int cols;
  std::int64_t first, end;
};
template <typename T>
__device__ __forceinline__ Chunk<T> load_chunk(const LargeCellInputs<T>& in, const int* cells, int2 item) {
  Chunk<T> k;
  k.c = cells[item.x];
  k.i = position_index(in.g, static_cast<std::int64_t>(k.c));
  k.f = cell_footprint(in.g, k.c, in.x[k.i], in.y[k.i], in.w[k.c], in.h[k.c]);
  k.cols = k.f.n1 - k.f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(k.f.m1 - k.f.m0 + 1) * k.cols;
  k.first = item.y;
  k.end = k.first + kEsChunkBins < count ? k.first + kEsChunkBins : count;
  return k;
}

template <typename T>
__global__ void chunk_rasterize(ChunkRasterArgs<T> a) {
  const int2 item = a.items[blockIdx.x];
  const Chunk<T> k = load_chunk(a.in, a.cells, item);
  if (item.y == 0 && threadIdx.x == 0) add_movable_outside(a.outside, k.f, a.in.g, k.c);
  for (std::int64_t b = k.first + threadIdx.x; b < k.end; b += kEsThreads) {
    const int m = k.f.m0 + static_cast<int>(b / k.cols), n = k.f.n0 + static_cast<int>(b % k.cols);
    add_bin_weight(a.target, m, n, footprint_weight(k.f, a.in.g, m, n));
  }
}

// A chunk's sums of weight times (Ex, Ey) into partials[chunk].
template <typename T>
__global__ void chunk_partials(ChunkGatherArgs<T> a) {
  if (es_gather_skipped(a)) return;
  const Chunk<T> k = load_chunk(a.in, a.cells, a.items[blockIdx.x]);
  T sx = 0, sy = 0;
  for (std::int64_t b = k.first + threadIdx.x; b < k.end; b += kEsThreads) {
    const int m = k.f.m0 + static_cast<int>(b / k.cols), n = k.f.n0 + static_cast<int>(b % k.cols);
    const T wgt = footprint_weight(k.f, a.in.g, m, n);
    const EsVec2<T> e = a.e[es_tile_index(m, n, a.in.g.N)];
    sx += wgt * e.x;
    sy += wgt * e.y;
  }
  using Reduce = cub::BlockReduce<T, kEsThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const T bx = Reduce(storage).Sum(sx);
  __syncthreads();  // storage is reused
  const T by = Reduce(storage).Sum(sy);
  if (threadIdx.x == 0) a.partials[blockIdx.x] = {bx, by};
}

// One thread per cell: its chunks' partials in order.
template <typename T>
__global__ void chunk_finish(ChunkGatherArgs<T> a) {
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j >= a.count || es_gather_skipped(a)) return;
  T sx = 0, sy = 0;
  for (int k = a.first_chunk[j]; k < a.first_chunk[j + 1]; ++k) {
    sx += a.partials[k].x;
    sy += a.partials[k].y;
  }
  store_large_gradient(a.out, position_index(a.in.g, static_cast<std::int64_t>(a.cells[j])), sx, sy);
}

}  // namespace

template <typename T>
void launch_chunk_rasterize(const ChunkRasterArgs<T>& a, cudaStream_t stream) {
  if (a.chunks == 0) return;
  chunk_rasterize<T><<<a.chunks, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_chunk_gather(const ChunkGatherArgs<T>& a, cudaStream_t stream) {
  if (a.chunks == 0) return;
  chunk_partials<T><<<a.chunks, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
  chunk_finish<T><<<es_blocks_for(a.count), kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_chunk_rasterize<float>(const ChunkRasterArgs<float>&, cudaStream_t);
template void launch_chunk_rasterize<double>(const ChunkRasterArgs<double>&, cudaStream_t);
template void launch_chunk_gather<float>(const ChunkGatherArgs<float>&, cudaStream_t);
template void launch_chunk_gather<double>(const ChunkGatherArgs<double>&, cudaStream_t);

}  // namespace efield::detail
