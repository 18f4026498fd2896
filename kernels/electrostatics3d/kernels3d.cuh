#pragma once
// The kernels of the CUDA 3D electrostatic pipeline (pipeline3d_cuda.cu). Every formula comes from
// the shared EFIELD_HD functions (src/electrostatics3d/footprint3d.hpp, src/math/electrostatics3d.hpp)
// that the CPU pipeline runs too. Reductions are deterministic: a fixed grid of kReduceBlocks
// blocks (for a given size) walks the array in grid-stride order, each block reduces its threads
// in a fixed tree, and finalize3d sums the blocks' partials in a fixed order. The density maps
// take 64-bit fixed-point atomics (integer sums do not depend on the order); the tile rasterize
// (tile_density3d.cuh) takes whole numbers in float or 64-bit tiles.
#include <cuda_runtime.h>

#include <cstdint>

#include "electrostatics/es_kernels.cuh"  // outside_slot, kEsTotalSlots
#include "electrostatics3d/footprint3d.hpp"

namespace efield::detail {

inline constexpr int kThreads3D = 256;
inline constexpr int kReduceBlocks3D = 1024;  // at most; fewer for small arrays

// Block-wide tree reduction of one double per thread (blockDim.x == kThreads3D); `max` picks max
// instead of sum. Thread 0 gets the result.
template <bool Max>
__device__ double block_reduce3d(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads3D / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const double a = shared[threadIdx.x], b = shared[threadIdx.x + s];
      shared[threadIdx.x] = Max ? (a > b ? a : b) : a + b;
    }
    __syncthreads();
  }
  return shared[0];
}

template <typename T>
__global__ void rasterize3d_kernel(Grid3D<T> g, const T* __restrict__ x, const T* __restrict__ y,
                                   const T* __restrict__ z, const T* __restrict__ w, const T* __restrict__ h,
                                   const T* __restrict__ d, unsigned long long* acc_movable,
                                   unsigned long long* acc_filler, unsigned long long* outside) {
  for (std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; c < g.num_cells;
       c += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t i = position_index3d(g, c);
    const Footprint3D<T> f = cell_footprint3d(g, c, x[i], y[i], z[i], w[c], h[c], d[c]);
    const bool movable = c < g.num_movable;
    unsigned long long* acc = movable ? acc_movable : acc_filler;
    for_each_bin3d(f, g, [&](std::int64_t b, T v) {
      atomicAdd(acc + b, static_cast<unsigned long long>(to_fixed_point(v, g.fixed_scale)));
    });
    const std::int64_t out = outside_fixed_point3d(f, g);
    if (out != 0) atomicAdd(outside + outside_slot(c, !movable), static_cast<unsigned long long>(out));
  }
}

// rho = (movable + filler) / 2^bits + F / (bx by bz); per block the overflow sum (bin volumes) and
// the largest movable density; clears the accumulators for the next evaluate.
template <typename T>
__global__ void density3d_kernel(std::int64_t bins, unsigned long long* acc_movable, unsigned long long* acc_filler,
                                 const T* __restrict__ fixed_rho, T* __restrict__ rho, T inv_scale, T td,
                                 double* partial_overflow, double* partial_max) {
  __shared__ double shared[kThreads3D];
  double overflow = 0, mx = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < bins;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const BinDensity<T> b = bin_density(static_cast<std::int64_t>(acc_movable[i]),
                                        static_cast<std::int64_t>(acc_filler[i]), fixed_rho[i], inv_scale);
    rho[i] = b.rho;
    overflow += static_cast<double>(bin_overflow(b.movable_rho, td));
    mx = mx > static_cast<double>(b.movable_rho) ? mx : static_cast<double>(b.movable_rho);
    acc_movable[i] = 0;
    acc_filler[i] = 0;
  }
  const double o = block_reduce3d<false>(overflow, shared);
  __syncthreads();
  const double m = block_reduce3d<true>(mx, shared);
  if (threadIdx.x == 0) {
    partial_overflow[blockIdx.x] = o;
    partial_max[blockIdx.x] = m;
  }
}

// The field transforms' inputs (and the potential's when `phi` is not null) and per block the
// energy terms' sum.
template <typename T>
__global__ void spectral3d_kernel(SpectralGrid3D<T> s, const T* __restrict__ coef, T* __restrict__ ex,
                                  T* __restrict__ ey, T* __restrict__ ez, T* __restrict__ phi,
                                  double* partial_energy) {
  __shared__ double shared[kThreads3D];
  const std::int64_t bins = static_cast<std::int64_t>(s.M) * s.N * s.L;
  double energy = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < bins;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int l = static_cast<int>(i % s.L);
    const std::int64_t mn = i / s.L;
    const int v = static_cast<int>(mn % s.N), u = static_cast<int>(mn / s.N);
    const SpectralInputs3D<T> in = spectral_inputs3d(coef, s, u, v, l);
    energy += in.energy;
    if (ex) {
      ex[i] = in.ex;
      ey[i] = in.ey;
      ez[i] = in.ez;
    }
    if (phi) phi[i] = in.phi;
  }
  const double e = block_reduce3d<false>(energy, shared);
  if (threadIdx.x == 0 && partial_energy) partial_energy[blockIdx.x] = e;
}

template <typename T>
__global__ void set_weight3d_kernel(T* weight, T value) {
  *weight = value;
}

// One bin of the interleaved field map {Ex, Ey, Ez, 0} (signs applied): a cell's gather reads a
// bin with one 16-byte load (float; two for double) instead of three from separate maps, and the
// z-neighbours of a column lie in consecutive 16/32 bytes.
template <typename T>
struct alignas(4 * sizeof(T)) PackedField3D {
  T x, y, z, unused;
};

__device__ inline FieldSample3D<float> load_field3d(const PackedField3D<float>* p, std::int64_t i) {
  const float4 v = __ldg(reinterpret_cast<const float4*>(p + i));
  return {v.x, v.y, v.z};
}
__device__ inline FieldSample3D<double> load_field3d(const PackedField3D<double>* p, std::int64_t i) {
  const double2* q = reinterpret_cast<const double2*>(p + i);
  const double2 a = __ldg(q), b = __ldg(q + 1);
  return {a.x, a.y, b.x};
}

// The idct3d outputs y_x, y_y, y_z into the interleaved map, field_sample3d's signs applied.
template <typename T>
__global__ void pack_fields3d_kernel(int N, int L, std::int64_t bins, const T* __restrict__ yx,
                                     const T* __restrict__ yy, const T* __restrict__ yz,
                                     PackedField3D<T>* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < bins;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(i % L);
    const std::int64_t mn = i / L;
    const int n = static_cast<int>(mn % N), m = static_cast<int>(mn / N);
    const FieldSample3D<T> e = field_sample3d(yx, yy, yz, m, n, k, i);
    out[i] = PackedField3D<T>{e.x, e.y, e.z, T(0)};
  }
}

// One thread per cell: DreamPlace's field estimate from the interleaved map or (phi not null) the
// Exact gradient. skip (not null): the tile rasterize's check flag; when set, this run is repeated
// with wider bins and writes nothing (an accumulating evaluate adds once).
template <typename T>
__global__ void gather3d_kernel(Grid3D<T> g, const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ z,
                                const T* __restrict__ w, const T* __restrict__ h, const T* __restrict__ d,
                                const PackedField3D<T>* __restrict__ field, const T* __restrict__ phi,
                                const T* __restrict__ weight, bool accumulate, const unsigned long long* skip, T* gx,
                                T* gy, T* gz) {
  if (skip != nullptr && *skip != 0) return;
  const GradientWrite<T> write{*weight, accumulate};
  const auto sample = [field](int, int, int, std::int64_t i) { return load_field3d(field, i); };
  for (std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; c < g.num_cells;
       c += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t i = position_index3d(g, c);
    const Footprint3D<T> f = cell_footprint3d(g, c, x[i], y[i], z[i], w[c], h[c], d[c]);
    const Gradient3D<T> q = phi ? exact_gradient3d(f, g, phi) : field_gradient3d(f, g, sample);
    gx[i] = write.value(gx + i, q.x);
    gy[i] = write.value(gy + i, q.y);
    gz[i] = write.value(gz + i, q.z);
  }
}

// The scales finalize3d applies (finish_result3d's, in the same order of operations).
struct ResultScales3D {
  double energy;          // M N L / 4
  double volume;          // bx by bz
  double movable_volume;  // the overflow's denominator (0: overflow 0)
  double outside;         // bx by bz 2^-kOutsideFractionBits
};

// outside: the kEsTotalSlots [movable, filler] pairs of outside volumes (outside_slot), then the
// tile rasterize's check flag at kOutsideFlag3D.
inline constexpr int kOutsideFlag3D = 2 * kEsTotalSlots;
// One block: sums the partials in a fixed order into result = {energy, overflow, max_density,
// movable_area_outside, filler_area_outside} (device_result), then result[5] = the check flag as
// 0 or 1; resets the outside slots and the flag.
__global__ void finalize3d_kernel(const double* partial_overflow, const double* partial_max, int density_blocks,
                                  const double* partial_energy, int spectral_blocks, unsigned long long* outside,
                                  ResultScales3D scales, double* result);

}  // namespace efield::detail
