#pragma once
// Every CUDA object of the library (an electrostatic system, a transform plan) belongs to the
// device that was current when it was made: its streams, plans, graphs and memory live there.
// Each call into it makes that device current for the call and gives the caller back its own.
// No CUDA headers here, so host code of either build can hold and use a device index.
#include <memory>

namespace efield::detail {

// The current CUDA device; -1 in a build without CUDA.
int current_cuda_device();

class DeviceScope {
 public:
  // device < 0 (a CPU object) or a build without CUDA: does nothing.
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
  bool changed_ = false;
};

// Base of the plans' backend objects: the device a CUDA one was made on (-1: not bound, a CPU
// object), which the public classes make current around every call.
class DeviceBound {
 public:
  int device() const noexcept { return device_; }
  // Called by the public class right after making a CUDA object.
  void bind_to_current_device() { device_ = current_cuda_device(); }

 private:
  int device_ = -1;
};

// Destroys a device-bound object on its own device (its streams, plans and memory live there).
template <typename P>
void destroy_on_device(std::unique_ptr<P>& object) noexcept {
  if (!object) return;
  try {
    const DeviceScope scope(object->device());
    object.reset();
  } catch (...) {  // the device could not be made current: free what can be freed anyway
    object.reset();
  }
}

}  // namespace efield::detail
