// Built instead of cuda_engine.cu when the example is compiled without CUDA.
#include "engine.hpp"

namespace global_place {

std::unique_ptr<Engine> make_cuda_engine(const PlacementProblem&, const EngineOptions&) {
  throw efield::Error("global_place was built without CUDA: use --backend cpu");
}

}  // namespace global_place
