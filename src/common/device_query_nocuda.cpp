// Stand-ins for a build without the CUDA backend (see kernels/common/device_query.cu).
#include "efield/device.hpp"

namespace efield {

bool built_with_cuda() noexcept { return false; }
int cuda_device_count() noexcept { return 0; }
bool is_device_pointer(const void*) noexcept { return false; }

}  // namespace efield
