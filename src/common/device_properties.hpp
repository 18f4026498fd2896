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

// What makes two GPUs time alike, for the wisdom (transforms/wisdom.hpp): the current device's
// name, compute capability and SM count, as one line ("90 132 NVIDIA H100 80GB HBM3"); empty in
// a build without CUDA. Throws efield::Error when the CUDA runtime cannot say.
std::string current_device_identity();

}  // namespace efield::detail
