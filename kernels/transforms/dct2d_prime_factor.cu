// The CUDA backend of Plan2D, Cuda2DMethod::PrimeFactorFft: TransposedPackedFft's plan (the
// caller's tall array of short rows planned as its transpose, packed along the long axis) with
// the long axis's complex FFT of length L = P Q split by the prime-factor map (P the power of
// two in L, Q odd): the length-P DFTs run in registers inside our reorder (the inverses: the
// gather), and cuFFT runs P batched 2D FFTs of Q x M. Why: cuFFT's FFT of a few long lines
// (10000 x 100 double: 100 lines of 5000) runs one line a block, 100 blocks; P x Q x M splits it
// into many short lines. Kernels: dct2d_prime_factor_kernels.cuh. Buffers, twiddle tables, the
// cuFFT plan and the kernels are chosen at construction; execute() enqueues three operations.
#include <array>

#include "common/cuda_check.cuh"
#include "common/grid_stride.cuh"
#include "common/host_staging.cuh"
#include "math/twiddle.hpp"
#include "transforms/cuda2d_registry.hpp"
#include "transforms/dct2d_cufft.cuh"
#include "transforms/dct2d_prime_factor_kernels.cuh"
#include "transforms/pass_launch.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {
namespace {

using cuda_nd::ComplexFft;

template <typename T>
using PrimeFactorReorder = void (*)(const T*, Complex<T>*, int, int, int);
template <typename T>
using PrimeFactorGather = void (*)(const Complex<T>*, T*, int, int, int);
template <typename T>
using PrimeFactorPreprocess = void (*)(const T*, Complex<T>*, int, int, PrimeFactorSplit, const Complex<T>*,
                                       const Complex<T>*, const Complex<T>*);

template <typename T>
class PrimeFactorPlan2D final : public Plan2DImpl<T> {
 public:
  PrimeFactorPlan2D(Transform2D kind, int rows, int cols, const PlanOptions& options)
      : Plan2DImpl<T>(kind, rows, cols),
        shape_(transposed_2d_shape(kind, rows, cols)),
        split_(prime_factor_split(shape_.cols / 2)),
        zero_below_(static_cast<T>(options.zero_below)),
        packed_(static_cast<std::size_t>(shape_.rows) * (shape_.cols / 2)),
        spectrum_(packed_.size()),
        io_(static_cast<std::size_t>(rows) * cols),
        tu_(quarter_twiddles<T>(shape_.rows)),
        tv_(quarter_twiddles<T>(shape_.cols)),
        split_twiddles_(root_twiddles<T>(shape_.cols, shape_.cols / 4 + 1)),
        line_blocks_(grid_stride_blocks(static_cast<long long>(split_.Q) * shape_.rows, kThreads)),
        quad_blocks_(grid_stride_blocks(static_cast<long long>(shape_.cols / 4 + 1) * (shape_.rows / 2 + 1),
                                                 kThreads)),
        // P slices of Q x M (slot, then m fastest); a single caller column (M = 1) is P lines of Q.
        fft_(std::array<int, 2>{split_.Q, shape_.rows}.data(), shape_.rows == 1 ? 1 : 2, shape_.forward(), split_.P) {
    switch (split_.P) {
      case 2: choose_kernels<2>(); break;
      case 4: choose_kernels<4>(); break;
      case 8: choose_kernels<8>(); break;
      default: choose_kernels<16>(); break;  // the registry admits P <= kPrimeFactorMaxP = 16
    }
  }

  void execute(const T* in, T* out, Stream stream) override {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const int M = shape_.rows, N = shape_.cols;
    if (shape_.forward()) {
      reorder_<<<line_blocks_, kThreads, 0, s>>>(in, packed_.get(), M, N, split_.Q);
      EFIELD_CUDA_CHECK_LAUNCH();
      fft_.run(packed_.get(), spectrum_.get(), s);
      cuda_nd::dct2_prime_factor_postprocess<T><<<quad_blocks_, kThreads, 0, s>>>(
          spectrum_.get(), out, M, N, split_, tu_.get(), tv_.get(), split_twiddles_.get(), zero_below_);
      EFIELD_CUDA_CHECK_LAUNCH();
      return;
    }
    preprocess_<<<quad_blocks_, kThreads, 0, s>>>(in, spectrum_.get(), M, N, split_, tu_.get(), tv_.get(),
                                                  split_twiddles_.get());
    EFIELD_CUDA_CHECK_LAUNCH();
    fft_.run(spectrum_.get(), packed_.get(), s);
    gather_<<<line_blocks_, kThreads, 0, s>>>(packed_.get(), out, M, N, split_.Q);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  void execute_host(const T* in, T* out) override {
    execute_through_staging(io_.get(), in, out, io_.size(), host_stream_.get(),
                            [&](T* data) { execute(data, data, reinterpret_cast<Stream>(host_stream_.get())); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }
  Cuda2DMethod cuda_2d_method() const noexcept override { return Cuda2DMethod::PrimeFactorFft; }

 private:
  static constexpr int kThreads = 256;

  // The kernels for the split's P and the planned kind's sine axes (for the dct2, the cosine
  // instances, which it does not run).
  template <int P>
  void choose_kernels() {
    reorder_ = cuda_nd::prime_factor_reorder<T, P>;
    gather_ = cuda_nd::for_kind(shape_.kind, [](auto sine_rows, auto sine_cols) {
      return cuda_nd::prime_factor_gather<T, P, decltype(sine_rows)::value, decltype(sine_cols)::value>;
    });
    preprocess_ = cuda_nd::for_kind(shape_.kind, [](auto sine_rows, auto sine_cols) {
      return cuda_nd::idct2_prime_factor_preprocess<T, decltype(sine_rows)::value, decltype(sine_cols)::value>;
    });
  }

  Dct2dShape shape_;  // the transposed array's (transposed_2d_shape)
  PrimeFactorSplit split_;
  T zero_below_;
  DeviceBuffer<Complex<T>> packed_;    // the packed array z, P slices of Q x M after the reorder
  DeviceBuffer<Complex<T>> spectrum_;  // Z(u, k) at [slot(k)][u]
  DeviceBuffer<T> io_;                 // execute_host's staging array
  DeviceBuffer<Complex<T>> tu_;
  DeviceBuffer<Complex<T>> tv_;
  DeviceBuffer<Complex<T>> split_twiddles_;  // the real FFT's split, W^k = exp(-2 pi i k / N), k <= N/4
  unsigned line_blocks_;  // the reorder and gather: one thread a (b, column), Q M of them
  unsigned quad_blocks_;  // the post/preprocess: one thread a quad, (L/2 + 1)(M/2 + 1) of them
  ComplexFft<T> fft_;
  PrimeFactorReorder<T> reorder_ = nullptr;
  PrimeFactorGather<T> gather_ = nullptr;
  PrimeFactorPreprocess<T> preprocess_ = nullptr;
  OwnedStream host_stream_;  // execute_host runs on it
};

}  // namespace

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_prime_factor_plan2d(Cuda2DMethod, Transform2D kind, int rows, int cols,
                                                             const PlanOptions& options) {
  return std::make_unique<PrimeFactorPlan2D<T>>(kind, rows, cols, options);
}

template std::unique_ptr<Plan2DImpl<float>> make_cuda_prime_factor_plan2d<float>(Cuda2DMethod, Transform2D, int,
                                                                                 int, const PlanOptions&);
template std::unique_ptr<Plan2DImpl<double>> make_cuda_prime_factor_plan2d<double>(Cuda2DMethod, Transform2D, int,
                                                                                   int, const PlanOptions&);

}  // namespace efield::detail
