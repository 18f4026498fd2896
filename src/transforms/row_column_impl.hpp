#pragma once
// Internal: the backend interface behind efield::RowColumnPlan2D (the DCT paper's row-column
// baseline): a batched 1D pass along every row, a transpose, a batched 1D pass along the other
// axis, a transpose back. Each backend builds its passes from its own Plan1D backend.
#include "common/device_scope.hpp"
#include <memory>

#include "efield/transforms.hpp"
#include "transforms/plan1d_impl.hpp"

namespace efield::detail {

struct RowColumnSpec {
  Transform1D pass = Transform1D::Dct;  // Dct for Dct2, Idct for Idct2
  int rows = 1;
  int cols = 1;
  int cpu_threads = 0;
  double zero_below = 0.0;  // applied by the second pass only (it writes the final values)
};

template <typename T>
class RowColumnBackend : public DeviceBound {
 public:
  virtual ~RowColumnBackend() = default;
  virtual void execute(const T* in, T* out, StreamHandle stream) = 0;
  virtual void execute_host(const T* in, T* out) = 0;
  virtual Backend backend() const noexcept = 0;
};

template <typename T>
std::unique_ptr<RowColumnBackend<T>> make_row_column_cpu(const RowColumnSpec& spec);
template <typename T>
std::unique_ptr<RowColumnBackend<T>> make_row_column_cuda(const RowColumnSpec& spec);

}  // namespace efield::detail
