// The CUDA row-column baseline: batched cuFFT 1D N-point passes (the Plan1D CUDA backend) with
// tiled shared-memory transposes in between. Everything is allocated at construction.
#include <memory>

#include "common/cuda_check.cuh"
#include "common/host_staging.cuh"
#include "efield/error.hpp"
#include "common/device_buffer.cuh"
#include "transforms/plan1d_impl.hpp"
#include "transforms/row_column_impl.hpp"
#include "transforms/transpose.cuh"

namespace efield::detail {
namespace {

template <typename T>
class CudaRowColumn final : public RowColumnBackend<T> {
 public:
  explicit CudaRowColumn(const RowColumnSpec& spec)
      : spec_(spec),
        count_(static_cast<size_t>(spec.rows) * spec.cols),
        first_(count_),
        second_(count_),
        staging_(count_) {
    Plan1DSpec pass;
    pass.kind = spec.pass;
    pass.host_staging = false;
    pass.n = spec.cols;  // first pass: along each row (the last axis)
    pass.batch = spec.rows;
    along_rows_ = make_plan1d_cuda<T>(pass);
    pass.n = spec.rows;  // second pass: along each column, made contiguous by the transpose
    pass.batch = spec.cols;
    pass.zero_below = spec.zero_below;
    along_cols_ = make_plan1d_cuda<T>(pass);
  }

  void execute(const T* in, T* out, StreamHandle stream) override {
    const auto st = static_cast<cudaStream_t>(stream);
    along_rows_->execute(in, first_.get(), stream);
    transpose_cuda(first_.get(), second_.get(), spec_.rows, spec_.cols, st);
    along_cols_->execute(second_.get(), first_.get(), stream);
    transpose_cuda(first_.get(), out, spec_.cols, spec_.rows, st);
  }

  // Host memory: one staging array serves as both `in` and `out` (the first pass has consumed
  // `in` before the last transpose writes `out`).
  void execute_host(const T* in, T* out) override {
    execute_through_staging(staging_.get(), in, out, count_, nullptr,
                            [&](T* data) { execute(data, data, nullptr); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }

 private:
  RowColumnSpec spec_;
  size_t count_;
  DeviceBuffer<T> first_, second_, staging_;
  std::unique_ptr<Plan1DImpl<T>> along_rows_, along_cols_;
};

}  // namespace

template <typename T>
std::unique_ptr<RowColumnBackend<T>> make_row_column_cuda(const RowColumnSpec& spec) {
  return std::make_unique<CudaRowColumn<T>>(spec);
}

template std::unique_ptr<RowColumnBackend<float>> make_row_column_cuda<float>(const RowColumnSpec&);
template std::unique_ptr<RowColumnBackend<double>> make_row_column_cuda<double>(const RowColumnSpec&);

}  // namespace efield::detail
