#pragma once
// Internal: the three field inverses of the CUDA 3D pipeline as one batched transform (the layout
// hook selects it, src/electrostatics3d/pipeline3d_layout.hpp; every bin count >= 2).
//
// Each field's inverse is Plan3D's Idct (kernels/transforms/dct3d_cuda.cu): the mirrored-group
// preprocess, a cuFFT 3D C2R and the inverse Makhoul reorder. The three share their shape, so here
// they are one preprocess launch over the three inputs (blockIdx.y picks the field), one cuFFT C2R
// plan of batch 3, and one pass that reads the three outputs at their reordered positions and
// writes the gather's packed {Ex, Ey, Ez, 0} map directly, the sine axes' signs applied
// (field_sample3d): seven launches and the three inverse reorders' writes and reads fewer than
// three Plan3D runs and the pack pass. The arithmetic per element is the same; only cuFFT's batched
// plan may round differently from its single one.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/grid_stride.cuh"
#include "electrostatics3d/kernels3d.cuh"
#include "math/twiddle.hpp"
#include "transforms/dct2d_cufft.cuh"
#include "transforms/dct3d_kernels.cuh"

namespace efield::detail {

// Bin (m, n, k) of the packed map from the three batched C2R outputs y (each `size` values, in the
// Makhoul order on every axis).
template <typename T>
__global__ void pack_reordered_fields3d_kernel(const T* __restrict__ y, long long size, Dims3 d,
                                               PackedField3D<T>* __restrict__ out) {
  const unsigned total = static_cast<unsigned>(d.M) * d.N * d.K;
  for (unsigned i = first_index(); i < total; i += index_stride()) {
    int m, n, k;
    split_index(i, d.N, d.K, m, n, k);
    const FieldSample3D<T> e = field_sample3d(y, y + size, y + 2 * size, m, n, k, reordered_index(m, n, k, d));
    out[i] = PackedField3D<T>{e.x, e.y, e.z, T(0)};
  }
}

template <typename T>
class FieldInverse3D {
 public:
  FieldInverse3D() = default;
  // M, N, L >= 2 (Plan3D hands shapes with a dimension of 1 to a Plan2D; the pipeline keeps its
  // three Plan3D runs there).
  FieldInverse3D(int M, int N, int L)
      : d_{M, N, L}, size_(static_cast<long long>(M) * N * L), half_(static_cast<long long>(M) * N * (L / 2 + 1)),
        real_(static_cast<std::size_t>(3 * size_)), spectrum_(static_cast<std::size_t>(3 * half_)),
        ta_(quarter_twiddles<T>(M)), tb_(quarter_twiddles<T>(N)), tc_(quarter_twiddles<T>(L)) {
    const int dims[3] = {M, N, L};
    fft_ = std::make_unique<cuda_nd::RealFft<T>>(dims, 3, false, 3);
  }

  // inputs: the spectral pass's three field inputs [3][M][N][L], one after another.
  void execute(const T* inputs, PackedField3D<T>* out, cudaStream_t s) {
    constexpr int threads = 256;
    const unsigned groups = group_count(d_);
    const dim3 pre(grid_stride_blocks(groups, threads), 3);
    idct3_preprocess<T><<<pre, threads, 0, s>>>(inputs, spectrum_.get(), d_, ta_.get(), tb_.get(), tc_.get(), groups,
                                                size_, half_);
    EFIELD_CUDA_CHECK_LAUNCH();
    fft_->run(real_.get(), spectrum_.get(), s);
    pack_reordered_fields3d_kernel<T><<<grid_stride_blocks(size_, threads), threads, 0, s>>>(real_.get(), size_, d_,
                                                                                             out);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

 private:
  Dims3 d_{};
  long long size_ = 0, half_ = 0;  // elements of one field's real map and of its half spectrum
  DeviceBuffer<T> real_;
  DeviceBuffer<Complex<T>> spectrum_;
  DeviceBuffer<Complex<T>> ta_, tb_, tc_;
  std::unique_ptr<cuda_nd::RealFft<T>> fft_;
};

}  // namespace efield::detail
