// Stand-ins for a build without the CUDA backend (see kernels/common/device_query.cu).
#include "common/device_properties.hpp"
#include "common/device_scope.hpp"
#include "efield/device.hpp"

namespace efield {

bool built_with_cuda() noexcept { return false; }
int cuda_device_count() noexcept { return 0; }
bool is_device_pointer(const void*) noexcept { return false; }

}  // namespace efield

namespace efield::detail {

int current_cuda_device() { return -1; }
int current_compute_capability() { return 0; }
DeviceScope::DeviceScope(int) {}
DeviceScope::~DeviceScope() = default;

}  // namespace efield::detail
