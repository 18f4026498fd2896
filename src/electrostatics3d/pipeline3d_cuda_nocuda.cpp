// Stand-in for the CUDA 3D electrostatic pipeline in a build without CUDA.
#include "electrostatics3d/backend3d.hpp"

namespace efield::detail {

std::unique_ptr<ElectrostaticBackend3D> make_cuda_pipeline3d(Design3D) {
  throw Error("ElectrostaticSystem3D: Backend::Cuda requested, but efield was built without CUDA");
}

}  // namespace efield::detail
