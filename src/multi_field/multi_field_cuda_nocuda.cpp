// MultiFieldSystem's CUDA backend in a build without CUDA: a clear error.
#include "efield/error.hpp"
#include "multi_field/multi_field_backend.hpp"

namespace efield::detail {

std::unique_ptr<MultiFieldBackend> make_cuda_multi_field(MultiFieldLayout) {
  throw Error("MultiFieldSystem: this build of efield has no CUDA backend (use Backend::Cpu or Backend::Auto)");
}

}  // namespace efield::detail
