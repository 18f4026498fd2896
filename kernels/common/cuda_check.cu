#include "common/cuda_check.cuh"

#include <string>

#include "efield/error.hpp"

namespace efield::detail {

const char* cufft_result_name(cufftResult code) noexcept {
  switch (code) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    default: return "unknown cufftResult";
  }
}

namespace {

// The source file from the repository's top (kernels/..., src/...): __FILE__ holds the build
// machine's absolute path, which means nothing to the user who reads the message.
std::string source_name(const char* file) {
  const std::string path(file);
  for (const char* top : {"/kernels/", "/src/", "/python/"}) {
    const std::size_t at = path.rfind(top);
    if (at != std::string::npos) return path.substr(at + 1);
  }
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw Error(std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
              ") in " + expr + " at " + source_name(file) + ":" + std::to_string(line));
}

void throw_cufft_error(cufftResult code, const char* expr, const char* file, int line) {
  throw Error(std::string("cuFFT error ") + cufft_result_name(code) + " (" +
              std::to_string(static_cast<int>(code)) + ") in " + expr + " at " + source_name(file) + ":" +
              std::to_string(line));
}

void throw_cufft_plan_error(cufftResult code, const std::string& what) {
  throw Error(what + " (" + cufft_result_name(code) + ")");
}

}  // namespace efield::detail
