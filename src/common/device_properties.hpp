#pragma once
// Internal: properties of the current CUDA device that plans choose by.

namespace efield::detail {

// The current device's compute capability as 10 major + minor (sm_90: 90); 0 in a build without
// CUDA. Throws efield::Error when the CUDA runtime cannot say.
int current_compute_capability();

}  // namespace efield::detail
