#pragma once
// Internal: owning device and pinned-host arrays of the CUDA electrostatic pipeline. Allocated
// at construction only (evaluate allocates nothing); freed without throwing.
#include "common/device_buffer.cuh"

namespace efield::detail {

template <typename T>
using EsDeviceArray = DeviceBuffer<T>;
// Page-locked host memory: copies from and to it can be captured into a CUDA graph.
template <typename T>
using EsPinnedArray = PinnedBuffer<T>;

}  // namespace efield::detail
