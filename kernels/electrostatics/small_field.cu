// The one-block field kernel of small grids (small_field.cuh): the whole spectral part of an
// evaluate in shared memory, so that a small design's evaluate is rasterize, the density pass
// (with 64-bit bins in two maps taken here too), this kernel and the gather. Every sum runs in a
// fixed order: bitwise reproducible.
#include <cub/block/block_reduce.cuh>

#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "electrostatics/finalize_block.cuh"
#include "electrostatics/small_field.cuh"
#include "electrostatics/small_grid_fft.cuh"
#include "math/dct2d.hpp"
#include "math/density.hpp"
#include "math/makhoul.hpp"

namespace efield::detail {
namespace {

// The density pass of 64-bit bins in two maps (rasterize.cu's density_combined, the same per-bin
// code) by the block: rho into z (and the global rho the density map is read from), the maps
// cleared, the overflow and max partials of the one block. Every thread calls it.
template <typename T>
__device__ __forceinline__ void fold_density_pass(const DensityPassArgs<T>& p, Complex<T>* z, int log_n, int M,
                                                  int N) {
  double overflow = 0;
  T mx = T(0);
  for (int k = static_cast<int>(threadIdx.x); k < M * N; k += static_cast<int>(blockDim.x)) {
    const BinDensity<T> b = bin_density(static_cast<std::int64_t>(p.acc[k]), static_cast<std::int64_t>(p.acc_filler[k]),
                                        p.fixed_rho[k], p.inv_scale);
    overflow += static_cast<double>(bin_overflow(b.movable_rho, p.target_density));
    mx = b.movable_rho > mx ? b.movable_rho : mx;
    const std::int64_t r = permuted_index(k >> log_n, k & (N - 1), M, N);
    z[r] = {b.rho, T(0)};
    p.rho[r] = b.rho;
    p.acc[k] = 0;
    p.acc_filler[k] = 0;
  }
  using ReduceD = cub::BlockReduce<double, kEsSmallFieldThreads>;
  using ReduceT = cub::BlockReduce<T, kEsSmallFieldThreads>;
  __shared__ typename ReduceD::TempStorage sd;
  __shared__ typename ReduceT::TempStorage st;
  const double block_overflow = ReduceD(sd).Sum(overflow);
  const T block_max = ReduceT(st).Reduce(mx, EsMax());
  if (threadIdx.x == 0) {
    p.part_overflow[0] = block_overflow;
    p.part_max[0] = block_max;
  }
}

template <typename T>
__global__ void __launch_bounds__(kEsSmallFieldThreads) small_field(SmallFieldArgs<T> a) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int M = a.g.M, N = a.g.N, half = a.g.half;
  const int log_m = __ffs(M) - 1, log_n = __ffs(N) - 1;  // powers of two (the policy's condition)
  const int bins = M * N, threads = static_cast<int>(blockDim.x);
  Complex<T>* z = reinterpret_cast<Complex<T>*>(shared_raw);  // [M][N]
  Complex<T>* spec = z + bins;                                 // [M][half]
  Complex<T>* tw_m = spec + M * half;                          // [M / 2] line roots
  Complex<T>* tw_n = tw_m + M / 2;                             // [N / 2]
  Complex<T>* quarter_m = tw_n + N / 2;                        // [M + 1] the spectral step's twiddles
  Complex<T>* quarter_n = quarter_m + M + 1;                   // [N + 1]
  const int tid = static_cast<int>(threadIdx.x);
  // Constant tables (no kernel writes them): read before the wait.
  for (int k = tid; k < M / 2; k += threads) tw_m[k] = a.line_tw_m[k];
  for (int k = tid; k < N / 2; k += threads) tw_n[k] = a.line_tw_n[k];
  for (int k = tid; k <= M; k += threads) quarter_m[k] = a.g.tw_m[k];
  for (int k = tid; k <= N; k += threads) quarter_n[k] = a.g.tw_n[k];
  SpectralGrid<T> g = a.g;
  g.tw_m = quarter_m;
  g.tw_n = quarter_n;
  wait_for_previous_kernel();  // launched with overlap after the density pass
  let_next_kernel_start();     // the gather reads its cells until it waits for this grid
  if (a.fold.acc != nullptr) {
    fold_density_pass(a.fold, z, log_n, M, N);
  } else {
    for (int k = tid; k < bins; k += threads) z[k] = {a.rho[k], T(0)};
  }
  __syncthreads();
  block_fft_2d<false>(z, log_m, log_n, tw_m, tw_n);
  for (int k = tid; k < M * half; k += threads) {
    const int u = k / half, v = k - u * half;
    spec[k] = z[u * N + v];
    a.spectrum[k] = spec[k];
  }
  __syncthreads();
  double energy = 0;
  const int items = (M / 2 + 1) * half;  // (u, v), u <= M/2, v <= N/2
  for (int k = tid; k < items; k += threads) {
    const int u = k / half, v = k - u * half;
    const SpectrumRows r = spectrum_rows(g, u, v);
    energy += spectral_field_step_packed(spec[r.u], spec[r.Mu], z, g, u, v);
  }
  __syncthreads();
  block_fft_2d<true>(z, log_m, log_n, tw_m, tw_n);
  const T w = *a.weight;
  for (int k = tid; k < bins; k += threads) {
    a.fields[k] = z[k];
    const int m = k >> log_n, n = k & (N - 1);  // natural bin (m, n): z at its permuted place
    const Complex<T> v = z[permuted_index(m, 0, M, N) + makhoul_position(n, N)];
    a.e[es_tile_index(m, n, N)] = {w * (alternating_sign<T>(m) * v.re), w * (alternating_sign<T>(n) * v.im)};
  }
  using Reduce = cub::BlockReduce<double, kEsSmallFieldThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const double total = Reduce(storage).Sum(energy);
  if (tid == 0) a.part_energy[0] = total;
  __syncthreads();  // the partial is visible to the block (finalize reads it)
  finalize_block<T, kEsSmallFieldThreads>(a.finalize);
}

}  // namespace

template <typename T>
bool prepare_small_field(int M, int N) {
  int device = 0, optin = 0;
  EFIELD_CUDA_CHECK(cudaGetDevice(&device));
  EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attributes{};
  EFIELD_CUDA_CHECK(cudaFuncGetAttributes(&attributes, small_field<T>));
  const std::size_t dynamic = small_field_shared_bytes<T>(M, N);
  if (attributes.sharedSizeBytes + dynamic > static_cast<std::size_t>(optin)) return false;
  // The most the device allows, not this grid's size: the attribute belongs to the kernel, shared
  // by every system of the process (a smaller grid's system must not shrink a larger one's).
  const int most = optin - static_cast<int>(attributes.sharedSizeBytes);
  EFIELD_CUDA_CHECK(cudaFuncSetAttribute(small_field<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, most));
  return true;
}

template <typename T>
void launch_small_field(const SmallFieldArgs<T>& a, cudaStream_t stream, bool overlap) {
  launch_kernel(overlap, small_field<T>, 1, kEsSmallFieldThreads, small_field_shared_bytes<T>(a.g.M, a.g.N), stream,
                a);
}

template bool prepare_small_field<float>(int, int);
template bool prepare_small_field<double>(int, int);
template void launch_small_field<float>(const SmallFieldArgs<float>&, cudaStream_t, bool);
template void launch_small_field<double>(const SmallFieldArgs<double>&, cudaStream_t, bool);

}  // namespace efield::detail
