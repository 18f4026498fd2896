// Stand-in for the CUDA electrostatic pipeline in a build without CUDA.
#include "electrostatics/backend.hpp"

namespace efield::detail {

std::unique_ptr<ElectrostaticBackend> make_cuda_pipeline(ElectrostaticDesign) {
  throw Error("ElectrostaticSystem: Backend::Cuda requested, but efield was built without CUDA");
}

}  // namespace efield::detail
