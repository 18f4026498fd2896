// What this build of the package is (version, CUDA or not, the architectures its kernels were
// compiled for) and what the machine lets it use (CUDA devices, cuFFT), for efield.show_config().
// The build's facts come from CMake as compile definitions (python/CMakeLists.txt).
#include <pybind11/pybind11.h>

#include <string>

#include "bindings.hpp"
#include "common/device_properties.hpp"
#include "efield/device.hpp"
#include "efield/error.hpp"
#if EFIELD_HAS_CUDA
#include "common/cufft_loader.hpp"
#endif

namespace py = pybind11;

namespace efield::python {
namespace {

// Loads cuFFT if it is not loaded yet: "" when it loads, else the reason it cannot.
std::string cufft_load_error() {
#if EFIELD_HAS_CUDA
  try {
    detail::require_cufft();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
#else
  return "efield was built without CUDA";
#endif
}

}  // namespace

void bind_build_config(py::module_& m) {
  m.attr("__version__") = EFIELD_VERSION;
  m.def(
      "build_config",
      [] {
        py::dict config;
        config["version"] = EFIELD_VERSION;
        config["cuda"] = built_with_cuda();
        config["cuda_architectures"] = std::string(EFIELD_CUDA_ARCHITECTURES);
        config["cuda_toolkit"] = std::string(EFIELD_CUDA_TOOLKIT_VERSION);
#if EFIELD_HAS_CUDA
        config["cufft_library"] = detail::cufft_library_name();
#else
        config["cufft_library"] = std::string();
#endif
        return config;
      },
      "The build's options: version, CUDA backend or not, its architectures and toolkit, the cuFFT it loads");
  m.def("cuda_unavailable_reason", &detail::cuda_unavailable_reason,
        "Why cuda_device_count() is 0 (no driver, no device, built without CUDA); '' with a device");
  m.def("cufft_load_error", &cufft_load_error,
        "Loads cuFFT (CUDA builds load it at first use): '' when it loads, else the loader's reason");
}

}  // namespace efield::python
