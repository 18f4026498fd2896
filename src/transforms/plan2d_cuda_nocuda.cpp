// Stand-ins for a build without the CUDA backend: asking for a CUDA 2D or 3D plan says so.
#include "efield/error.hpp"
#include "transforms/cuda2d_registry.hpp"
#include "transforms/plan3d_impl.hpp"

namespace efield::detail {
namespace {

[[noreturn]] void no_cuda(const char* plan) {
  throw Error(std::string(plan) + ": the CUDA backend is unavailable: efield was built without CUDA");
}

}  // namespace

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_fft_plan2d(Cuda2DMethod, Transform2D, int, int, const PlanOptions&) {
  no_cuda("Plan2D");
}
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_own_pass_plan2d(Cuda2DMethod, Transform2D, int, int, const PlanOptions&) {
  no_cuda("Plan2D");
}
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_prime_factor_plan2d(Cuda2DMethod, Transform2D, int, int,
                                                             const PlanOptions&) {
  no_cuda("Plan2D");
}
template <typename T>
std::unique_ptr<Plan3DImpl<T>> make_cuda_plan3d(Transform3D, std::array<int, 3>, const PlanOptions&) {
  no_cuda("Plan3D");
}

#define EFIELD_CUDA2D_FACTORY_STANDIN(factory, T) \
  template std::unique_ptr<Plan2DImpl<T>> factory<T>(Cuda2DMethod, Transform2D, int, int, const PlanOptions&);
EFIELD_CUDA2D_FACTORY_STANDIN(make_cuda_fft_plan2d, float)
EFIELD_CUDA2D_FACTORY_STANDIN(make_cuda_fft_plan2d, double)
EFIELD_CUDA2D_FACTORY_STANDIN(make_cuda_own_pass_plan2d, float)
EFIELD_CUDA2D_FACTORY_STANDIN(make_cuda_own_pass_plan2d, double)
EFIELD_CUDA2D_FACTORY_STANDIN(make_cuda_prime_factor_plan2d, float)
EFIELD_CUDA2D_FACTORY_STANDIN(make_cuda_prime_factor_plan2d, double)
#undef EFIELD_CUDA2D_FACTORY_STANDIN
template std::unique_ptr<Plan3DImpl<float>> make_cuda_plan3d<float>(Transform3D, std::array<int, 3>,
                                                                    const PlanOptions&);
template std::unique_ptr<Plan3DImpl<double>> make_cuda_plan3d<double>(Transform3D, std::array<int, 3>,
                                                                      const PlanOptions&);

}  // namespace efield::detail
