#pragma once
// Every CUDA object of the library (an electrostatic system, a transform plan) belongs to the
// device that was current when it was made: its streams, plans, graphs and memory live there.
// Each call into it makes that device current for the call and gives the caller back its own.
// No CUDA headers here, so host code of either build can hold and use a device index.
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

}  // namespace efield::detail
