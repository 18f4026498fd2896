// The CUDA backend of Plan2D, Cuda2DMethod::OneFft: Makhoul reorder -> one cuFFT R2C -> quad
// postprocess (dct2), and quad preprocess -> one cuFFT C2R -> inverse reorder (idct2,
// idct_idxst, idxst_idct). Cuda2DMethod::RowFftColumnPass is the same plan with the 2D FFT
// split: cuFFT's batched row FFTs, and the column FFTs done in our own pass that also runs the
// postprocess or preprocess (dct2d_column_pass.cuh), so one pass fewer. Cuda2DMethod::PackedFft
// is OneFft with the real FFT taken as one complex FFT of the M x N/2 packed pairs (no copy: the
// reordered array read as complex), the real FFT's split fused into the postprocess and its
// merge into the preprocess (dct2d_kernels.cuh): cuFFT runs a separate split pass after the
// complex FFT of a long non-power-of-two row. Cuda2DMethod::TransposedPackedFft is PackedFft
// planned for the transpose of the caller's array, the transposition folded into the reorder
// (inverses: the gather), tiled in shared memory, and into the postprocess's stores (inverses:
// the preprocess's loads): cuFFT's 2D FFT of a tall array of short rows runs few long columns.
// Buffers, twiddle tables and the cuFFT plan are made at construction; execute() only enqueues
// three operations on the caller's stream (capturable in a CUDA graph).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "common/cuda_check.cuh"
#include "common/host_staging.cuh"
#include "math/twiddle.hpp"
#include "transforms/cuda2d_registry.hpp"
#include "transforms/dct2d_column_pass.hpp"
#include "transforms/dct2d_cufft.cuh"
#include "transforms/dct2d_kernels.cuh"
#include "transforms/plan2d_impl.hpp"
#include "transforms/register_fft.cuh"

namespace efield::detail {
namespace {

using cuda_nd::ComplexFft;
using cuda_nd::launch_2d;
using cuda_nd::RealFft;

// Pairs of T can move as one vector access when the row length is even and the base pointer
// is aligned to two elements.
template <typename T>
bool pair_aligned(const void* p, int N) {
  return (N % 2 == 0) && (reinterpret_cast<std::uintptr_t>(p) % (2 * sizeof(T)) == 0);
}

// float rows move four at a time when N % 4 == 0 and the array is 16-byte aligned.
inline bool quad_aligned(const void* p, int N) { return N % 4 == 0 && quad_aligned_pointer(p); }

template <typename T>
class CudaPlan2D final : public Plan2DImpl<T> {
 public:
  // method: OneFft, RowFftColumnPass, PackedFft or TransposedPackedFft (the caller checked that
  // it applies).
  CudaPlan2D(Cuda2DMethod method, Transform2D kind, int rows, int cols, const PlanOptions& options)
      : Plan2DImpl<T>(kind, rows, cols),
        method_(method),
        shape_(transposed() ? transposed_2d_shape(kind, rows, cols) : canonical_2d_shape(kind, rows, cols)),
        zero_below_(static_cast<T>(options.zero_below)),
        real_(static_cast<std::size_t>(shape_.rows) * shape_.cols),
        spectrum_(static_cast<std::size_t>(shape_.rows) * shape_.half_cols()),
        io_(static_cast<std::size_t>(rows) * cols),
        tu_(quarter_twiddles<T>(shape_.rows)),
        tv_(quarter_twiddles<T>(shape_.cols)) {
    if (packed()) {
      // Z is M x N/2 (rank 1 for a single row); split: W^k = exp(-2 pi i k / N), k <= N/4.
      const int dims[2] = {shape_.rows, shape_.cols / 2};
      const int rank = shape_.rows == 1 ? 1 : 2;
      packed_fft_.emplace(rank == 1 ? dims + 1 : dims, rank, shape_.forward());
      split_twiddles_ = DeviceBuffer<Complex<T>>(root_twiddles<T>(shape_.cols, shape_.cols / 4 + 1));
    } else {
      fft_.emplace(fft_dims(), fft_rank(), shape_.forward(), column_pass() ? shape_.rows : 1);
    }
    if (column_pass()) {
      const int M = shape_.rows, N = shape_.cols;
      fft_twiddles_ = DeviceBuffer<Complex<T>>(cuda_nd::line_twiddles<T>(M));
      if (shape_.forward()) {
        dct2_column_ = cuda_nd::dct2_column_kernel<T>(M, N, zero_below_ > T(0), column_launch_);
      } else {
        idct2_column_ = cuda_nd::idct2_column_kernel<T>(shape_.kind, M, N, column_launch_);
      }
    }
  }

  void execute(const T* in, T* out, Stream stream) override {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    if (shape_.forward()) {
      forward(in, out, s);
    } else if (shape_.sine_rows()) {
      inverse<true, false>(in, out, s);
    } else if (shape_.sine_cols()) {
      inverse<false, true>(in, out, s);
    } else {
      inverse<false, false>(in, out, s);
    }
  }

  void execute_host(const T* in, T* out) override {
    execute_through_staging(io_.get(), in, out, io_.size(), host_stream_.get(),
                            [&](T* data) { execute(data, data, reinterpret_cast<Stream>(host_stream_.get())); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }
  Cuda2DMethod cuda_2d_method() const noexcept override { return method_; }

 private:
  bool transposed() const { return method_ == Cuda2DMethod::TransposedPackedFft; }  // shape_ is the transpose's
  bool packed() const { return method_ == Cuda2DMethod::PackedFft || transposed(); }
  bool column_pass() const { return method_ == Cuda2DMethod::RowFftColumnPass; }

  // The cuFFT plan: 2D over the whole array; 1D along the row when there is one row, or when the
  // column pass does the columns (then batched over the rows).
  const int* fft_dims() {
    dims_[0] = shape_.rows == 1 || column_pass() ? shape_.cols : shape_.rows;
    dims_[1] = shape_.cols;
    return dims_;
  }
  int fft_rank() const { return shape_.rows == 1 || column_pass() ? 1 : 2; }

  // TransposedPackedFft's reorder and gather: one block a 32 x 32 tile of the planned shape.
  dim3 transpose_tiles() const {
    const auto tiles = [](int n, int cap) {
      return static_cast<unsigned>(std::min((n + cuda_nd::kTransposeTile - 1) / cuda_nd::kTransposeTile, cap));
    };
    return dim3(tiles(shape_.rows, 1 << 20), tiles(shape_.cols, 65535));
  }
  static dim3 transpose_block() { return dim3(cuda_nd::kTransposeTile, 8); }

  // The reordered array read as the packed M x N/2 complex array (N even).
  Complex<T>* packed_real() { return reinterpret_cast<Complex<T>*>(real_.get()); }

  void forward(const T* in, T* out, cudaStream_t s) {
    reorder(in, s);
    if (packed()) {
      packed_fft_->run(packed_real(), spectrum_.get(), s);
    } else {
      fft_->run(real_.get(), spectrum_.get(), s);
    }
    postprocess(out, s);
  }

  void reorder(const T* in, cudaStream_t s) {
    const int M = shape_.rows, N = shape_.cols;
    if (transposed()) {
      const dim3 tiles = transpose_tiles();
      cuda_nd::makhoul_reorder_2d_transposed<T><<<tiles, transpose_block(), 0, s>>>(in, real_.get(), M, N);
      EFIELD_CUDA_CHECK_LAUNCH();
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (quad_aligned(in, N)) {
        const auto wide = launch_2d(N / 4, M);
        cuda_nd::makhoul_reorder_2d_float4<<<wide.grid, wide.block, 0, s>>>(in, real_.get(), M, N);
        EFIELD_CUDA_CHECK_LAUNCH();
        return;
      }
    }
    const auto pre = launch_2d((N + 1) / 2, M);
    if (pair_aligned<T>(in, N)) {
      cuda_nd::makhoul_reorder_2d<T, true><<<pre.grid, pre.block, 0, s>>>(in, real_.get(), M, N);
    } else {
      cuda_nd::makhoul_reorder_2d<T, false><<<pre.grid, pre.block, 0, s>>>(in, real_.get(), M, N);
    }
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  void postprocess(T* out, cudaStream_t s) {
    const int M = shape_.rows, N = shape_.cols;
    if (packed()) {  // transposed: lanes along u (dct2_packed_postprocess)
      const auto post = transposed() ? launch_2d(M / 2 + 1, N / 4 + 1) : launch_2d(N / 4 + 1, M / 2 + 1);
      const auto kernel =
          transposed() ? cuda_nd::dct2_packed_postprocess<T, true> : cuda_nd::dct2_packed_postprocess<T, false>;
      kernel<<<post.grid, post.block, 0, s>>>(spectrum_.get(), out, M, N, tu_.get(), tv_.get(), split_twiddles_.get(),
                                              zero_below_);
      EFIELD_CUDA_CHECK_LAUNCH();
      return;
    }
    if (column_pass()) {
      dct2_column_<<<column_launch_.blocks, column_launch_.threads, column_launch_.shared_bytes, s>>>(
          spectrum_.get(), out, N, tu_.get(), tv_.get(), fft_twiddles_.get(), zero_below_);
      EFIELD_CUDA_CHECK_LAUNCH();
      return;
    }
    const auto post = launch_2d(N / 2 + 1, M / 2 + 1);
    cuda_nd::dct2_postprocess<T><<<post.grid, post.block, 0, s>>>(spectrum_.get(), out, M, N, tu_.get(),
                                                                  tv_.get(), zero_below_);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  template <bool SineRows, bool SineCols>
  void inverse(const T* in, T* out, cudaStream_t s) {
    const int M = shape_.rows, N = shape_.cols;
    if (column_pass()) {
      if (column_launch_.quad_input) in = quad_aligned_input(in, io_.get(), io_.size(), s);
      idct2_column_<<<column_launch_.blocks, column_launch_.threads, column_launch_.shared_bytes, s>>>(
          in, spectrum_.get(), N, tu_.get(), tv_.get(), fft_twiddles_.get());
    } else if (packed()) {
      const auto pre = launch_2d(N / 4 + 1, M / 2 + 1);
      const auto kernel = transposed() ? cuda_nd::idct2_packed_preprocess<T, SineRows, SineCols, true>
                                       : cuda_nd::idct2_packed_preprocess<T, SineRows, SineCols, false>;
      kernel<<<pre.grid, pre.block, 0, s>>>(in, spectrum_.get(), M, N, tu_.get(), tv_.get(), split_twiddles_.get());
    } else {
      const auto pre = launch_2d(N / 2 + 1, M / 2 + 1);
      cuda_nd::idct2_preprocess<T, SineRows, SineCols>
          <<<pre.grid, pre.block, 0, s>>>(in, spectrum_.get(), M, N, tu_.get(), tv_.get());
    }
    EFIELD_CUDA_CHECK_LAUNCH();
    if (packed()) {
      packed_fft_->run(spectrum_.get(), packed_real(), s);
    } else {
      fft_->run(real_.get(), spectrum_.get(), s);
    }
    if (transposed()) {
      const dim3 tiles = transpose_tiles();
      cuda_nd::makhoul_gather_2d_transposed<T, SineRows, SineCols><<<tiles, transpose_block(), 0, s>>>(
          real_.get(), out, M, N);
      EFIELD_CUDA_CHECK_LAUNCH();
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (quad_aligned(out, N)) {
        const auto wide = launch_2d(N / 4, M);
        cuda_nd::makhoul_gather_2d_float4<SineRows, SineCols><<<wide.grid, wide.block, 0, s>>>(real_.get(), out, M, N);
        EFIELD_CUDA_CHECK_LAUNCH();
        return;
      }
    }
    const auto post = launch_2d((N + 1) / 2, M);
    if (pair_aligned<T>(out, N)) {
      cuda_nd::makhoul_gather_2d<T, SineRows, SineCols, true><<<post.grid, post.block, 0, s>>>(real_.get(), out, M, N);
    } else {
      cuda_nd::makhoul_gather_2d<T, SineRows, SineCols, false><<<post.grid, post.block, 0, s>>>(real_.get(), out, M, N);
    }
    EFIELD_CUDA_CHECK_LAUNCH();
  }

  Cuda2DMethod method_;
  Dct2dShape shape_;
  T zero_below_;
  int dims_[2] = {0, 0};
  DeviceBuffer<T> real_;
  DeviceBuffer<Complex<T>> spectrum_;
  DeviceBuffer<T> io_;
  DeviceBuffer<Complex<T>> tu_;
  DeviceBuffer<Complex<T>> tv_;
  std::optional<RealFft<T>> fft_;            // OneFft, RowFftColumnPass
  std::optional<ComplexFft<T>> packed_fft_;  // PackedFft
  DeviceBuffer<Complex<T>> split_twiddles_;  // PackedFft: the real FFT's split, W^k for k <= N/4
  // The column pass: its shared FFT's twiddles, its kernel (one of the two) and launch shape.
  DeviceBuffer<Complex<T>> fft_twiddles_;
  cuda_nd::Dct2ColumnKernel<T> dct2_column_ = nullptr;
  cuda_nd::Idct2ColumnKernel<T> idct2_column_ = nullptr;
  cuda_nd::PassLaunch column_launch_;
  OwnedStream host_stream_;  // execute_host runs on it
};

}  // namespace

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_fft_plan2d(Cuda2DMethod method, Transform2D kind, int rows, int cols,
                                                    const PlanOptions& options) {
  return std::make_unique<CudaPlan2D<T>>(method, kind, rows, cols, options);
}

template std::unique_ptr<Plan2DImpl<float>> make_cuda_fft_plan2d<float>(Cuda2DMethod, Transform2D, int, int,
                                                                        const PlanOptions&);
template std::unique_ptr<Plan2DImpl<double>> make_cuda_fft_plan2d<double>(Cuda2DMethod, Transform2D, int, int,
                                                                          const PlanOptions&);

}  // namespace efield::detail
