// Rasterization: every movable and filler cell's stretched footprint (MATH.md 2.1-2.3) is added
// as fixed-point integers (density.hpp) straight into the Makhoul-permuted layout the forward
// R2C reads; movable and filler charge go to separate maps because overflow counts movable
// cells only. Then one pass converts to rho (adding the fixed map), computes the overflow and
// max-density partials, and clears the accumulators for the next evaluate.
#include <cub/block/block_reduce.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {
namespace {

template <typename T>
__device__ __forceinline__ void add_bin(const RasterizeArgs<T>& a, const Footprint<T>& f, EsAccum* acc, int m, int n) {
  const std::int64_t q = to_fixed_point(footprint_weight(f, a.g, m, n), a.to_fixed);
  if (q > 0) atomicAdd(acc + permuted_index(m, n, a.g.M, a.g.N), static_cast<EsAccum>(q));
}

// One thread per small cell, in the order of a.order (cell_order.cu).
template <typename T>
__global__ void rasterize_small(RasterizeArgs<T> a) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.num_small) return;
  const int c = a.order[t];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.order_w[t], a.order_h[t]);
  EsAccum* acc = c < a.g.num_movable ? a.acc_movable : a.acc_filler;
  for (int m = f.m0; m <= f.m1; ++m)
    for (int n = f.n0; n <= f.n1; ++n) add_bin(a, f, acc, m, n);
}

// One block per large cell, its threads striding over the cell's bins.
template <typename T>
__global__ void rasterize_large(RasterizeArgs<T> a) {
  const int c = a.large_cells[blockIdx.x];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.w[c], a.h[c]);
  EsAccum* acc = c < a.g.num_movable ? a.acc_movable : a.acc_filler;
  const int cols = f.n1 - f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.m1 - f.m0 + 1) * cols;
  for (std::int64_t k = threadIdx.x; k < count; k += blockDim.x)
    add_bin(a, f, acc, f.m0 + static_cast<int>(k / cols), f.n0 + static_cast<int>(k % cols));
}

template <typename T>
__global__ void density_pass(DensityPassArgs<T> a) {
  double overflow = 0;
  T mx = T(0);
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bins;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const BinDensity<T> b = bin_density(static_cast<std::int64_t>(a.acc_movable[k]),
                                        static_cast<std::int64_t>(a.acc_filler[k]), a.fixed_rho[k], a.inv_scale);
    a.acc_movable[k] = 0;
    a.acc_filler[k] = 0;
    a.rho[k] = b.rho;
    overflow += static_cast<double>(bin_overflow(b.movable_rho, a.target_density));
    mx = b.movable_rho > mx ? b.movable_rho : mx;
  }
  using ReduceD = cub::BlockReduce<double, kEsThreads>;
  using ReduceT = cub::BlockReduce<T, kEsThreads>;
  __shared__ typename ReduceD::TempStorage sd;
  __shared__ typename ReduceT::TempStorage st;
  const double block_overflow = ReduceD(sd).Sum(overflow);
  const T block_max = ReduceT(st).Reduce(mx, EsMax());
  if (threadIdx.x == 0) {
    a.part_overflow[blockIdx.x] = block_overflow;
    a.part_max[blockIdx.x] = block_max;
  }
}

}  // namespace

template <typename T>
void launch_rasterize(const RasterizeArgs<T>& a, cudaStream_t stream) {
  if (a.num_small > 0) {
    rasterize_small<T><<<es_blocks_for(a.num_small), kEsThreads, 0, stream>>>(a);
    EFIELD_CUDA_CHECK_LAUNCH();
  }
  if (a.num_large > 0) {
    rasterize_large<T><<<a.num_large, kEsThreads, 0, stream>>>(a);
    EFIELD_CUDA_CHECK_LAUNCH();
  }
}

template <typename T>
void launch_density_pass(const DensityPassArgs<T>& a, cudaStream_t stream) {
  density_pass<T><<<a.blocks, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_rasterize<float>(const RasterizeArgs<float>&, cudaStream_t);
template void launch_rasterize<double>(const RasterizeArgs<double>&, cudaStream_t);
template void launch_density_pass<float>(const DensityPassArgs<float>&, cudaStream_t);
template void launch_density_pass<double>(const DensityPassArgs<double>&, cudaStream_t);

}  // namespace efield::detail
