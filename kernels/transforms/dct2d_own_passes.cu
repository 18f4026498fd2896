// The CUDA backend of Plan2D, Cuda2DMethod::TwoPasses and ThreePasses: Algorithm 2 with its 2D
// real FFT run as passes of our own, the pre/postprocess and the reorder folded into them:
//   dct2:     row pass (reorder + row real FFTs) -> column pass (column FFTs + quad postprocess)
//   inverses: column pass (quad preprocess + column IFFTs) -> row pass (row C2R + reorder, signs)
// ThreePasses runs the column FFT as two passes of short lines (four-step), for long columns:
//   dct2:     row pass (the rows' 1D dct) -> column_lines (first factor + twiddles, on the
//             columns in packed pairs) -> column groups (+ the columns' postprocess)
//   inverses: column groups (preprocess + first factor + twiddles) -> column_lines -> row pass
// Kernels: dct2d_row_pass.cuh, dct2d_column_pass.cuh, dct2d_column_four_step.cuh. The spectrum
// buffer, the twiddle tables and the kernel choice are made at construction; execute() enqueues
// two or three kernels on the caller's stream (capturable in a CUDA graph) and allocates
// nothing; on sm_90 each pass after the first is launched to overlap the end of the one before.
// TwoPasses dct2 in float from 2048^2 keeps the spectrum in the output array when the
// arrays allow (dct2_column_pass_in_place): 1.12x -> 1.01x of cuFFT's R2C at 2048^2, where
// three arrays of 16 MB no longer fit the L2 together (bench_ispd/results/transforms2d.md);
// the inverses likewise (idct2_column_pass_compact, idct2_row_pass_in_place).
#include <cstdint>

#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "common/device_buffer.cuh"
#include "common/host_staging.cuh"
#include "math/twiddle.hpp"
#include "transforms/dct2d_column_four_step.hpp"
#include "transforms/dct2d_column_pass.hpp"
#include "transforms/cuda2d_registry.hpp"
#include "transforms/dct2d_row_pass.hpp"
#include "transforms/register_fft.cuh"

namespace efield::detail {
namespace {

constexpr long long kInPlaceMinElements = 2048LL * 2048;

// Whether [a, a + bytes) and [b, b + bytes) share memory.
inline bool overlapping(const void* a, const void* b, std::size_t bytes) {
  const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + bytes && pb < pa + bytes;
}

template <typename T>
class OwnPassPlan2D final : public Plan2DImpl<T> {
 public:
  // four_step: ThreePasses, else TwoPasses (the caller checked that the method applies).
  OwnPassPlan2D(Transform2D kind, int rows, int cols, bool four_step, const PlanOptions& options)
      : Plan2DImpl<T>(kind, rows, cols),
        four_step_(four_step),
        overlap_(dependent_launch_supported()),
        zero_below_(static_cast<T>(options.zero_below)),
        pitch_(four_step && kind != Transform2D::Dct2 ? cuda_nd::four_step_spectrum_pitch<T>(cols) : cols / 2 + 1),
        spectrum_(static_cast<std::size_t>(rows) * pitch_),
        io_(static_cast<std::size_t>(rows) * cols),
        tu_(quarter_twiddles<T>(rows)),
        tv_(quarter_twiddles<T>(cols)),
        column_twiddles_(cuda_nd::line_twiddles<T>(rows)),
        row_twiddles_(cuda_nd::line_twiddles<T>(cols / 2)),
        split_twiddles_(root_twiddles<T>(cols, cols / 4 + 1)) {
    const bool inverse = kind != Transform2D::Dct2;
    const bool threshold = zero_below_ > T(0);  // the dct2 column kernels without zero_below otherwise
    if (inverse) {
      idct2_row_ = cuda_nd::idct2_row_kernel<T>(kind, rows, cols, row_launch_);
    } else {
      // ThreePasses transforms the rows first and the columns in packed pairs
      // (dct2d_column_four_step.cuh).
      dct2_row_ = cuda_nd::dct2_row_kernel<T>(
          rows, cols, row_launch_, four_step_ ? cuda_nd::Dct2RowOutput::RowDct : cuda_nd::Dct2RowOutput::Spectrum);
    }
    if (four_step_) {
      const int m1 = cuda_nd::four_step_m1(inverse, rows);
      if (inverse) row_m1_ = m1;
      m1_twiddles_ = DeviceBuffer<Complex<T>>(cuda_nd::line_twiddles<T>(m1));
      m2_twiddles_ = DeviceBuffer<Complex<T>>(cuda_nd::line_twiddles<T>(rows / m1));
      column_lines_ = cuda_nd::column_lines_kernel<T>(inverse, rows, cols, lines_launch_);
      if (inverse) {
        idct2_groups_ = cuda_nd::idct2_column_groups_kernel<T>(kind, rows, cols, column_launch_);
      } else {
        dct2_column_ = cuda_nd::dct2_column_groups_kernel<T>(rows, cols, threshold, column_launch_);
      }
    } else if (inverse) {
      idct2_column_ = cuda_nd::idct2_column_kernel<T>(kind, rows, cols, column_launch_);
      // From 2048^2 elements, as for the dct2: the spectrum in the output array, the row pass
      // in place. No grid-wide wait, so every GPU takes it.
      if (static_cast<long long>(rows) * cols >= kInPlaceMinElements) {
        cuda_nd::PassLaunch same_as_column_launch, same_as_row_launch;
        compact_column_ = cuda_nd::idct2_column_compact_kernel<T>(kind, rows, cols, same_as_column_launch);
        in_place_row_ = cuda_nd::idct2_row_in_place_kernel<T>(kind, rows, cols, same_as_row_launch);
        if (!compact_column_ || !in_place_row_) {
          compact_column_ = nullptr;
          in_place_row_ = nullptr;
        }
      }
    } else {
      dct2_column_ = cuda_nd::dct2_column_kernel<T>(rows, cols, threshold, column_launch_);
      // From 2048^2 elements, where input, spectrum and output together fill the L2: the
      // spectrum in the output array when the GPU holds every column-pass block at once.
      if (static_cast<long long>(rows) * cols >= kInPlaceMinElements) {
        cuda_nd::PassLaunch same_as_column_launch;
        in_place_column_ = cuda_nd::dct2_column_in_place_kernel<T>(rows, cols, threshold, same_as_column_launch);
      }
      if (in_place_column_) {
        cuda_nd::PassLaunch same_as_row_launch;
        compact_row_ = cuda_nd::dct2_row_kernel<T>(rows, cols, same_as_row_launch,
                                                   cuda_nd::Dct2RowOutput::CompactSpectrum);
      }
    }
    if (in_place_column_ || compact_column_) nyquist_ = DeviceBuffer<Complex<T>>(static_cast<std::size_t>(rows));
  }

  void execute(const T* in, T* out, Stream stream) override {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const int M = this->rows(), N = this->cols(), H = N / 2 + 1;
    const std::size_t bytes = io_.size() * sizeof(T);
    Complex<T>* V = spectrum_.get();
    const dim3 row_grid = row_launch_.grid(), column_grid = column_launch_.grid(), lines_grid = lines_launch_.grid();
    if (this->kind() == Transform2D::Dct2) {
      in = quad_aligned_input(in, io_.get(), io_.size(), s);  // the row pass reads 16-byte quads
      if (in_place_column_ && quad_aligned_pointer(out) && !overlapping(in, out, bytes)) {
        compact_row_<<<row_grid, row_launch_.threads, row_launch_.shared_bytes, s>>>(
            in, reinterpret_cast<Complex<T>*>(out), M, row_twiddles_.get(), split_twiddles_.get(), nyquist_.get(),
            nullptr);
        EFIELD_CUDA_CHECK_LAUNCH();
        cuda_nd::launch_dct2_column_in_place<T>(in_place_column_, column_launch_, out, nyquist_.get(), N, tu_.get(),
                                                tv_.get(), column_twiddles_.get(), zero_below_, s);
        return;
      }
      dct2_row_<<<row_grid, row_launch_.threads, row_launch_.shared_bytes, s>>>(
          in, V, M, row_twiddles_.get(), split_twiddles_.get(), nullptr, tv_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
      if (four_step_) {  // on the packed column pairs: N/2 complex columns
        launch_kernel(overlap_, column_lines_, lines_grid, lines_launch_.threads, lines_launch_.shared_bytes, s, V,
                      N / 2, N / 2, m1_twiddles_.get(), column_twiddles_.get());
      }
      // The four-step group pass writes its outputs in pairs (Complex<T>); io_ is free again
      // once the row pass has read `in`.
      T* column_out = !four_step_ || quad_aligned_pointer(out) ? out : io_.get();
      const Complex<T>* column_twiddles = four_step_ ? m2_twiddles_.get() : column_twiddles_.get();
      launch_kernel(overlap_, dct2_column_, column_grid, column_launch_.threads, column_launch_.shared_bytes, s, V,
                    column_out, N, tu_.get(), tv_.get(), column_twiddles, zero_below_);
      if (column_out != out) EFIELD_CUDA_CHECK(cudaMemcpyAsync(out, column_out, bytes, cudaMemcpyDeviceToDevice, s));
      return;
    }
    // The compact column pass, where there is one, reads quads too (same launch as idct2_column_).
    if (column_launch_.quad_input) in = quad_aligned_input(in, io_.get(), io_.size(), s);
    if (compact_column_ && quad_aligned_pointer(out) && !overlapping(in, out, bytes)) {
      auto* W = reinterpret_cast<Complex<T>*>(out);
      compact_column_<<<column_grid, column_launch_.threads, column_launch_.shared_bytes, s>>>(
          in, W, nyquist_.get(), N, tu_.get(), tv_.get(), column_twiddles_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
      launch_kernel(overlap_, in_place_row_, row_grid, row_launch_.threads, row_launch_.shared_bytes, s, out,
                    nyquist_.get(), M, row_twiddles_.get(), split_twiddles_.get());
      return;
    }
    if (four_step_) {
      idct2_groups_<<<column_grid, column_launch_.threads, column_launch_.shared_bytes, s>>>(
          in, V, N, pitch_, tu_.get(), tv_.get(), m1_twiddles_.get(), column_twiddles_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
      launch_kernel(overlap_, column_lines_, lines_grid, lines_launch_.threads, lines_launch_.shared_bytes, s, V, H,
                    pitch_, m2_twiddles_.get(), nullptr);
    } else {
      idct2_column_<<<column_grid, column_launch_.threads, column_launch_.shared_bytes, s>>>(
          in, V, N, tu_.get(), tv_.get(), column_twiddles_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
    }
    // The row pass writes 16-byte quads; io_ is free again once the column pass has read `in`.
    T* row_out = quad_aligned_pointer(out) ? out : io_.get();
    launch_kernel(overlap_, idct2_row_, row_grid, row_launch_.threads, row_launch_.shared_bytes, s, V, pitch_,
                  row_out, M, row_twiddles_.get(), split_twiddles_.get(), row_m1_);
    if (row_out != out) EFIELD_CUDA_CHECK(cudaMemcpyAsync(out, row_out, bytes, cudaMemcpyDeviceToDevice, s));
  }

  void execute_host(const T* in, T* out) override {
    execute_through_staging(io_.get(), in, out, io_.size(), host_stream_.get(),
                            [&](T* data) { execute(data, data, reinterpret_cast<Stream>(host_stream_.get())); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }
  Cuda2DMethod cuda_2d_method() const noexcept override {
    return four_step_ ? Cuda2DMethod::ThreePasses : Cuda2DMethod::TwoPasses;
  }

 private:
  bool four_step_;
  // The passes after the first start while the one before finishes (common/dependent_launch.cuh).
  bool overlap_;
  T zero_below_;
  int pitch_;  // complex values from one spectrum row to the next
  // Between the passes: M rows of N/2 + 1 values (of N/2 packed column pairs in the four-step
  // dct2), `pitch_` apart.
  DeviceBuffer<Complex<T>> spectrum_;
  DeviceBuffer<T> io_;                 // host staging, and unaligned callers' arrays
  DeviceBuffer<Complex<T>> tu_;
  DeviceBuffer<Complex<T>> tv_;
  DeviceBuffer<Complex<T>> column_twiddles_;  // the column FFT's roots, length M (four-step: its twiddles)
  DeviceBuffer<Complex<T>> m1_twiddles_;      // four-step only: the roots of its two line lengths
  DeviceBuffer<Complex<T>> m2_twiddles_;
  DeviceBuffer<Complex<T>> row_twiddles_;     // the row FFT's roots, length N/2
  DeviceBuffer<Complex<T>> split_twiddles_;   // the real-FFT split's W^k, k <= N/4
  cuda_nd::Dct2ColumnKernel<T> dct2_column_ = nullptr;
  cuda_nd::Idct2ColumnKernel<T> idct2_column_ = nullptr;
  cuda_nd::Dct2RowKernel<T> dct2_row_ = nullptr;
  cuda_nd::Idct2RowKernel<T> idct2_row_ = nullptr;
  cuda_nd::ColumnLinesKernel<T> column_lines_ = nullptr;    // four-step only
  cuda_nd::Idct2GroupsKernel<T> idct2_groups_ = nullptr;  // four-step only
  int row_m1_ = 0;  // the inverse row pass: where the four-step left its rows (four_step_m1), or 0
  cuda_nd::PassLaunch column_launch_;  // the column pass, or the four-step's group pass
  cuda_nd::PassLaunch lines_launch_;
  cuda_nd::PassLaunch row_launch_;
  // TwoPasses dct2 in float from kInPlaceMinElements: the row pass writes the spectrum into the
  // output array (M x N/2, its last column in nyquist_) and the column pass works in place.
  // Same launch shapes as dct2_column_ and dct2_row_.
  cuda_nd::Dct2InPlaceColumnKernel<T> in_place_column_ = nullptr;
  cuda_nd::Dct2RowKernel<T> compact_row_ = nullptr;
  // TwoPasses inverses in float from kInPlaceMinElements: the column pass writes the spectrum
  // into the output array (M x N/2, its last column in nyquist_), the row pass works in place.
  // Same launch shapes as idct2_column_ and idct2_row_.
  cuda_nd::Idct2CompactColumnKernel<T> compact_column_ = nullptr;
  cuda_nd::Idct2InPlaceRowKernel<T> in_place_row_ = nullptr;
  DeviceBuffer<Complex<T>> nyquist_;  // the spectrum's column N/2 in the in-place paths
  OwnedStream host_stream_;  // execute_host runs on it
};

}  // namespace

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_own_pass_plan2d(Cuda2DMethod method, Transform2D kind, int rows, int cols,
                                                         const PlanOptions& options) {
  return std::make_unique<OwnPassPlan2D<T>>(kind, rows, cols, method == Cuda2DMethod::ThreePasses, options);
}

template std::unique_ptr<Plan2DImpl<float>> make_cuda_own_pass_plan2d<float>(Cuda2DMethod, Transform2D, int, int,
                                                                             const PlanOptions&);
template std::unique_ptr<Plan2DImpl<double>> make_cuda_own_pass_plan2d<double>(Cuda2DMethod, Transform2D, int, int,
                                                                               const PlanOptions&);

}  // namespace efield::detail
