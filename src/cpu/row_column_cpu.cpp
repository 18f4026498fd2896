// The CPU row-column baseline: FFTW 1D passes (the Plan1D CPU backend) with blocked transposes.
#include <omp.h>

#include <vector>

#include "cpu/transpose_cpu.hpp"
#include "transforms/plan1d_impl.hpp"
#include "transforms/row_column_impl.hpp"

namespace efield::detail {
namespace {

template <typename T>
class CpuRowColumn final : public RowColumnBackend<T> {
 public:
  explicit CpuRowColumn(const RowColumnSpec& spec)
      : spec_(spec),
        threads_(spec.cpu_threads > 0 ? spec.cpu_threads : omp_get_max_threads()),
        first_(static_cast<size_t>(spec.rows) * spec.cols),
        second_(static_cast<size_t>(spec.rows) * spec.cols) {
    Plan1DSpec pass;
    pass.kind = spec.pass;
    pass.cpu_threads = spec.cpu_threads;
    pass.n = spec.cols;  // first pass: along each row (the last axis)
    pass.batch = spec.rows;
    along_rows_ = make_plan1d_cpu<T>(pass);
    pass.n = spec.rows;  // second pass: along each column, made contiguous by the transpose
    pass.batch = spec.cols;
    pass.zero_below = spec.zero_below;
    along_cols_ = make_plan1d_cpu<T>(pass);
  }

  void execute(const T* in, T* out, StreamHandle) override {
    along_rows_->execute(in, first_.data(), nullptr);
    transpose_cpu(first_.data(), second_.data(), spec_.rows, spec_.cols, threads_);
    along_cols_->execute(second_.data(), first_.data(), nullptr);
    transpose_cpu(first_.data(), out, spec_.cols, spec_.rows, threads_);
  }
  void execute_host(const T* in, T* out) override { execute(in, out, nullptr); }
  Backend backend() const noexcept override { return Backend::Cpu; }

 private:
  RowColumnSpec spec_;
  int threads_;
  std::vector<T> first_, second_;  // rows x cols scratch, made once
  std::unique_ptr<Plan1DImpl<T>> along_rows_, along_cols_;
};

}  // namespace

template <typename T>
std::unique_ptr<RowColumnBackend<T>> make_row_column_cpu(const RowColumnSpec& spec) {
  return std::make_unique<CpuRowColumn<T>>(spec);
}

template std::unique_ptr<RowColumnBackend<float>> make_row_column_cpu<float>(const RowColumnSpec&);
template std::unique_ptr<RowColumnBackend<double>> make_row_column_cpu<double>(const RowColumnSpec&);

}  // namespace efield::detail
