// Stand-in for the CUDA row-column plan in a build without CUDA (see
// kernels/transforms/row_column_cuda.cu).
#include "efield/error.hpp"
#include "transforms/row_column_impl.hpp"

namespace efield::detail {

template <typename T>
std::unique_ptr<RowColumnBackend<T>> make_row_column_cuda(const RowColumnSpec&) {
  throw Error("RowColumnPlan2D: Backend::Cuda requested, but efield was built without CUDA");
}

template std::unique_ptr<RowColumnBackend<float>> make_row_column_cuda<float>(const RowColumnSpec&);
template std::unique_ptr<RowColumnBackend<double>> make_row_column_cuda<double>(const RowColumnSpec&);

}  // namespace efield::detail
