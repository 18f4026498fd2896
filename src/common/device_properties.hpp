#pragma once
// Internal: properties of the current CUDA device that plans choose by.
#include <string>

namespace efield::detail {

// The current device's compute capability as 10 major + minor (sm_90: 90); 0 in a build without
// CUDA. Throws efield::Error when the CUDA runtime cannot say.
int current_compute_capability();

// Why cuda_device_count() is 0 (built without CUDA, no driver, no device, with CUDA's own error);
// empty when a device is present.
std::string cuda_unavailable_reason();

}  // namespace efield::detail
