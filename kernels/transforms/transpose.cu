// Tiled shared-memory transpose: a 32 x 32 tile is read with coalesced row loads and written
// with coalesced row stores of the transposed tile. The tile row is padded by one element so
// that the column-wise reads of shared memory fall in 32 different banks (for double, a warp's
// 64-bit accesses are served per half-warp and the same padding suffices).
#include "common/cuda_check.cuh"
#include "transforms/transpose.cuh"

namespace efield::detail {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // a 32 x 8 block copies the tile in four passes

template <typename T>
__global__ void transpose_tiled(const T* __restrict__ src, T* __restrict__ dst, int rows, int cols) {
  __shared__ T tile[kTile][kTile + 1];
  // Tiles along the rows axis may exceed gridDim.y's limit: loop over them.
  const int row_tiles = (rows + kTile - 1) / kTile;
  for (int tr = blockIdx.y; tr < row_tiles; tr += gridDim.y) {
    const int c = blockIdx.x * kTile + threadIdx.x;
    for (int dy = threadIdx.y; dy < kTile; dy += kRowsPerPass) {
      const int r = tr * kTile + dy;
      if (r < rows && c < cols) tile[dy][threadIdx.x] = src[static_cast<size_t>(r) * cols + c];
    }
    __syncthreads();
    const int r = tr * kTile + threadIdx.x;  // the destination row index runs over src columns
    for (int dy = threadIdx.y; dy < kTile; dy += kRowsPerPass) {
      const int cc = blockIdx.x * kTile + dy;
      if (cc < cols && r < rows) dst[static_cast<size_t>(cc) * rows + r] = tile[threadIdx.x][dy];
    }
    __syncthreads();
  }
}

}  // namespace

template <typename T>
void transpose_cuda(const T* src, T* dst, int rows, int cols, cudaStream_t stream) {
  const int col_tiles = (cols + kTile - 1) / kTile;
  const int row_tiles = (rows + kTile - 1) / kTile;
  const dim3 grid(col_tiles, row_tiles < 65535 ? row_tiles : 65535);
  const dim3 block(kTile, kRowsPerPass);
  transpose_tiled<T><<<grid, block, 0, stream>>>(src, dst, rows, cols);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void transpose_cuda<float>(const float*, float*, int, int, cudaStream_t);
template void transpose_cuda<double>(const double*, double*, int, int, cudaStream_t);

}  // namespace efield::detail
