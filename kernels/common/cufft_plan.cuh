#pragma once
// The one owner of cuFFT plans in the library (the 1D, 2D and 3D transforms and the electrostatic
// pipeline): the handle is created and made into a plan in one step, and destroyed exactly once,
// also when making the plan fails. Moves, never copies.
#include <cufft.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common/cuda_check.cuh"

namespace efield::detail {

class CufftPlan {
 public:
  CufftPlan() = default;  // no plan (a transform of one sample needs none)

  // Creates a handle and makes it a plan with make_plan(handle, &work_bytes), one of cuFFT's
  // cufftMakePlan* calls. On failure the handle is destroyed and efield::Error thrown with
  // `what` and cuFFT's result ("... (CUFFT_ALLOC_FAILED)").
  template <typename MakePlan>
  CufftPlan(MakePlan&& make_plan, const std::string& what) {
    EFIELD_CUFFT_CHECK(cufftCreate(&handle_));
    std::size_t work_bytes = 0;
    const cufftResult made = make_plan(handle_, &work_bytes);
    if (made != CUFFT_SUCCESS) {
      cufftDestroy(handle_);
      throw_cufft_plan_error(made, what);
    }
    owned_ = true;
  }

  ~CufftPlan() { reset(); }
  CufftPlan(CufftPlan&& other) noexcept : handle_(other.handle_), owned_(std::exchange(other.owned_, false)) {}
  CufftPlan& operator=(CufftPlan&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.handle_;
      owned_ = std::exchange(other.owned_, false);
    }
    return *this;
  }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  cufftHandle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return owned_; }

 private:
  void reset() noexcept {
    if (owned_) cufftDestroy(handle_);
    owned_ = false;
  }

  cufftHandle handle_ = 0;
  bool owned_ = false;
};

}  // namespace efield::detail
