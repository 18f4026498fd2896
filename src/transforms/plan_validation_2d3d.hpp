#pragma once
// Internal: argument checks shared by Plan2D and Plan3D, so that both name the problem the
// same way ("Plan2D<float>: cols must be >= 1 (got 0)").
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "common/cpu_threads.hpp"
#include "efield/device.hpp"
#include "efield/error.hpp"
#include "efield/transforms.hpp"

namespace efield::detail {

template <typename T>
constexpr const char* scalar_name() {
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

// Throws unless `size` >= 1.
inline void require_positive_size(const std::string& who, const char* what, int size) {
  if (size < 1) throw Error(who + ": " + what + " must be >= 1 (got " + std::to_string(size) + ")");
}

// Throws when the element count does not fit the 32-bit sizes the FFT libraries are planned with.
inline void require_element_count(const std::string& who, long long elements) {
  if (elements > std::numeric_limits<int>::max()) {
    throw Error(who + ": " + std::to_string(elements) +
                " elements exceed the supported maximum of 2^31-1 per array");
  }
}

inline void require_valid_options(const std::string& who, const PlanOptions& options) {
  detail::check_cpu_threads(options.cpu_threads, who);
  if (!(options.zero_below >= 0.0) || !std::isfinite(options.zero_below)) {
    throw Error(who + ": PlanOptions::zero_below must be finite and >= 0, got " +
                std::to_string(options.zero_below));
  }
  if (options.backend != Backend::Auto && options.backend != Backend::Cpu &&
      options.backend != Backend::Cuda) {
    throw Error(who + ": PlanOptions::backend is not a valid efield::Backend value");
  }
  // to_string names Auto and every method of the registry, the one list of the valid values.
  if (std::string_view(to_string(options.cuda_2d_method)) == "unknown") {
    throw Error(who + ": PlanOptions::cuda_2d_method is not a valid efield::Cuda2DMethod value");
  }
  if (std::string_view(to_string(options.effort)) == "unknown") {
    throw Error(who + ": PlanOptions::effort is not a valid efield::PlanEffort value");
  }
}

// execute(): both pointers present, and in the backend's memory (a host pointer handed to the
// CUDA backend, or a device pointer to the CPU backend, would fault instead of failing cleanly).
inline void require_execute_pointers(const std::string& who, const void* in, const void* out,
                                     Backend backend) {
  if (in == nullptr) throw Error(who + "::execute: input pointer `in` is null");
  if (out == nullptr) throw Error(who + "::execute: output pointer `out` is null");
  if (backend == Backend::Cuda) {
    if (!is_device_pointer(in) || !is_device_pointer(out)) {
      throw Error(who + "::execute: the CUDA backend needs device pointers for `in` and `out` " +
                  "(use execute_host for host arrays)");
    }
  } else if (is_device_pointer(in) || is_device_pointer(out)) {
    throw Error(who + "::execute: the CPU backend needs host pointers for `in` and `out`, got " +
                "device memory");
  }
}

inline void require_host_pointers(const std::string& who, const void* in, const void* out) {
  if (in == nullptr) throw Error(who + "::execute_host: input pointer `in` is null");
  if (out == nullptr) throw Error(who + "::execute_host: output pointer `out` is null");
  if (is_device_pointer(in) || is_device_pointer(out)) {
    throw Error(who + "::execute_host: `in` and `out` must be host memory, got device memory " +
                "(use execute for device arrays)");
  }
}

}  // namespace efield::detail
