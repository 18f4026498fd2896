#pragma once
// What efield._efield hands to efield._torch_ops about one ElectrostaticSystem: a plain C table
// inside a PyCapsule (ElectrostaticSystem._ops()), so that the compiled PyTorch op calls the
// system's evaluate without Python, without sharing a C++ class across the two extension
// modules, and without the libtorch dependency reaching _efield. The table owns one reference
// to the system; release() drops it (the system lives while the capsule or a registry entry
// that took the table holds it).
#include <cstddef>
#include <cstdint>

namespace efield::python {

inline constexpr const char* kSystemOpsCapsule = "efield.system_ops.v2";

struct SystemOps {
  void* system = nullptr;               // the owned reference; null once released or taken
  void (*release)(void* system) = nullptr;
  // evaluate_flat of bind_system.cpp without the GIL's involvement (callable from any thread):
  // returns 0 after a blocking evaluate (energy written), 1 after an asynchronous one (results
  // written, energy left alone), -1 on an error whose message goes into error[error_size].
  int (*evaluate_flat)(void* system, const void* pos, void* grad, std::size_t half, std::uintptr_t stream, void* energy,
                       void* results, int async, char* error, std::size_t error_size) = nullptr;
  // The blocking evaluate of ElectrostaticSystem.evaluate on x, y, grad_x, grad_y (arrays the
  // caller has checked: the system's dtype and device, contiguous, long enough), on `stream`,
  // without the GIL's involvement: returns 0 with the result's five values in result[0..4]
  // (energy, overflow, max_density, movable and filler area outside), or -1 on an error whose
  // message goes into error[error_size].
  int (*evaluate)(void* system, const void* x, const void* y, void* grad_x, void* grad_y, std::uintptr_t stream,
                  double weight, int accumulate, double* result, char* error, std::size_t error_size) = nullptr;
  int device = -1;                      // the CUDA ordinal, -1 on the CPU
  int element_size = 0;                 // 4 (float32) or 8 (float64)
  std::int64_t required_length = 0;     // the shortest x (half of pos) the system takes
  int result_values = 0;                // doubles an asynchronous evaluate writes into `results`
};

}  // namespace efield::python
