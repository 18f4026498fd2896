#pragma once
// Every CUDA object of the library (an electrostatic system, a transform plan) belongs to the
// device that was current when it was made: its streams, plans and memory live there. Each call
// into it makes that device current for the call's duration and gives the caller back its own.
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"

namespace efield::detail {

inline int current_device() {
  int device = 0;
  EFIELD_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

class DeviceScope {
 public:
  explicit DeviceScope(int device) : previous_(current_device()) {
    if (previous_ != device) EFIELD_CUDA_CHECK(cudaSetDevice(device));
    changed_ = previous_ != device;
  }
  ~DeviceScope() {
    if (changed_) cudaSetDevice(previous_);  // a destructor cannot throw; the set was valid before
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace efield::detail
