// The CUDA backend of Plan3D (every dimension >= 2): Makhoul reorder on all three axes -> one
// cuFFT 3D R2C -> postprocess (dct3d); preprocess -> one cuFFT 3D C2R -> inverse reorder
// (idct3d). The pre/post passes run one thread per group of mirrored indices (math/dct3d.hpp:
// dct3_group, idct3_group), so each spectrum value or coefficient is read once; consecutive
// threads walk the last axis, so the reads and the writes at c and at K - c are coalesced.
// Flat indices are 32-bit: a plan holds at most 2^31 - 1 elements (plan_validation_2d3d.hpp).
#include <array>
#include <string>

#include "common/cuda_check.cuh"
#include "common/grid_stride.cuh"
#include "common/host_staging.cuh"
#include "math/dct2d.hpp"
#include "math/twiddle.hpp"
#include "transforms/dct2d_cufft.cuh"
#include "transforms/dct3d_kernels.cuh"
#include "transforms/plan3d_impl.hpp"

namespace efield::detail {
namespace {

using cuda_nd::RealFft;

template <typename T>
class CudaPlan3D final : public Plan3DImpl<T> {
 public:
  CudaPlan3D(Transform3D kind, std::array<int, 3> dims, const PlanOptions& options)
      : Plan3DImpl<T>(kind, dims),
        d_{dims[0], dims[1], dims[2]},
        zero_below_(static_cast<T>(options.zero_below)),
        real_(static_cast<std::size_t>(d_.M) * d_.N * d_.K),
        spectrum_(static_cast<std::size_t>(d_.M) * d_.N * (d_.K / 2 + 1)),
        io_(real_.size()),
        ta_(quarter_twiddles<T>(d_.M)),
        tb_(quarter_twiddles<T>(d_.N)),
        tc_(quarter_twiddles<T>(d_.K)),
        fft_(dims.data(), 3, kind == Transform3D::Dct) {}

  void execute(const T* in, T* out, Stream stream) override {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    constexpr int threads = 256;
    const unsigned blocks = grid_stride_blocks(static_cast<long long>(real_.size()), threads);
    const unsigned groups = group_count(d_);
    const unsigned group_blocks = grid_stride_blocks(groups, threads);
    if (this->kind() == Transform3D::Dct) {
      makhoul_reorder_3d<T><<<blocks, threads, 0, s>>>(in, real_.get(), d_);
      EFIELD_CUDA_CHECK_LAUNCH();
      fft_.run(real_.get(), spectrum_.get(), s);
      dct3_postprocess<T><<<group_blocks, threads, 0, s>>>(spectrum_.get(), out, d_, ta_.get(), tb_.get(),
                                                           tc_.get(), zero_below_, groups);
      EFIELD_CUDA_CHECK_LAUNCH();
      return;
    }
    idct3_preprocess<T><<<group_blocks, threads, 0, s>>>(in, spectrum_.get(), d_, ta_.get(), tb_.get(), tc_.get(),
                                                         groups);
    EFIELD_CUDA_CHECK_LAUNCH();
    fft_.run(real_.get(), spectrum_.get(), s);
    makhoul_gather_3d<T><<<blocks, threads, 0, s>>>(real_.get(), out, d_);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  void execute_host(const T* in, T* out) override {
    execute_through_staging(io_.get(), in, out, io_.size(), host_stream_.get(),
                            [&](T* data) { execute(data, data, reinterpret_cast<Stream>(host_stream_.get())); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }

 private:
  Dims3 d_;
  T zero_below_;
  DeviceBuffer<T> real_;
  DeviceBuffer<Complex<T>> spectrum_;
  DeviceBuffer<T> io_;
  DeviceBuffer<Complex<T>> ta_, tb_, tc_;
  RealFft<T> fft_;
  OwnedStream host_stream_;  // execute_host runs on it
};

}  // namespace

template <typename T>
std::unique_ptr<Plan3DImpl<T>> make_cuda_plan3d(Transform3D kind, std::array<int, 3> dims,
                                                const PlanOptions& options) {
  return std::make_unique<CudaPlan3D<T>>(kind, dims, options);
}

template std::unique_ptr<Plan3DImpl<float>> make_cuda_plan3d<float>(Transform3D, std::array<int, 3>, const PlanOptions&);
template std::unique_ptr<Plan3DImpl<double>> make_cuda_plan3d<double>(Transform3D, std::array<int, 3>, const PlanOptions&);

}  // namespace efield::detail
