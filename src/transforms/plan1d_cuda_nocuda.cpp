// Stand-in for the CUDA backend of Plan1D in a build without CUDA (see
// kernels/transforms/dct1d_cuda.cu). resolve_backend already refuses Backend::Cuda there; this
// keeps the link complete and the message clear if anything asks anyway.
#include "efield/error.hpp"
#include "transforms/plan1d_impl.hpp"

namespace efield::detail {

bool both_device_pointers(const void*, const void*) { return false; }

template <typename T>
std::unique_ptr<Plan1DImpl<T>> make_plan1d_cuda(const Plan1DSpec&) {
  throw Error("Plan1D: Backend::Cuda requested, but efield was built without CUDA");
}

template std::unique_ptr<Plan1DImpl<float>> make_plan1d_cuda<float>(const Plan1DSpec&);
template std::unique_ptr<Plan1DImpl<double>> make_plan1d_cuda<double>(const Plan1DSpec&);

}  // namespace efield::detail
