// Stand-ins for a build without the CUDA backend: asking for a CUDA 2D or 3D plan says so.
#include "efield/error.hpp"
#include "transforms/plan2d_impl.hpp"
#include "transforms/plan3d_impl.hpp"

namespace efield::detail {

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_plan2d(Transform2D, int, int, const PlanOptions&) {
  throw Error("Plan2D: the CUDA backend is unavailable: efield was built without CUDA");
}
template <typename T>
std::unique_ptr<Plan3DImpl<T>> make_cuda_plan3d(Transform3D, std::array<int, 3>, const PlanOptions&) {
  throw Error("Plan3D: the CUDA backend is unavailable: efield was built without CUDA");
}

template std::unique_ptr<Plan2DImpl<float>> make_cuda_plan2d<float>(Transform2D, int, int, const PlanOptions&);
template std::unique_ptr<Plan2DImpl<double>> make_cuda_plan2d<double>(Transform2D, int, int, const PlanOptions&);
template std::unique_ptr<Plan3DImpl<float>> make_cuda_plan3d<float>(Transform3D, std::array<int, 3>, const PlanOptions&);
template std::unique_ptr<Plan3DImpl<double>> make_cuda_plan3d<double>(Transform3D, std::array<int, 3>, const PlanOptions&);

}  // namespace efield::detail
