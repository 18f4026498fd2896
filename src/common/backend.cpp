// Backend selection shared by every plan and system.
#include "common/device_properties.hpp"
#include "common/log.hpp"
#include "efield/device.hpp"
#include "efield/error.hpp"

namespace efield {

const char* to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "unknown";
}

Backend resolve_backend(Backend requested) {
  if (requested == Backend::Cpu) return Backend::Cpu;
  const bool have_cuda = built_with_cuda() && cuda_device_count() > 0;
  if (requested == Backend::Cuda) {
    if (!built_with_cuda()) throw Error("Backend::Cuda requested, but efield was built without CUDA");
    if (!have_cuda)
      throw Error("Backend::Cuda requested, but CUDA is unavailable here: " + detail::cuda_unavailable_reason());
    return Backend::Cuda;
  }
  const Backend chosen = have_cuda ? Backend::Cuda : Backend::Cpu;
  detail::log().debug("Backend::Auto resolved to {}", to_string(chosen));
  return chosen;
}

}  // namespace efield
