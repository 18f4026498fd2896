// The choice between the two CUDA Plan2D implementations (see plan2d_callbacks.hpp).
#include "transforms/plan2d_callbacks.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "common/log.hpp"

namespace efield::detail {
namespace {
std::atomic<long long> callback_plans{0};
}  // namespace

Dct2dPath requested_dct2d_path() {
  const char* value = std::getenv("EFIELD_DCT2D_PATH");
  if (value == nullptr || *value == '\0') return Dct2dPath::Auto;
  const std::string v(value);
  if (v == "kernels") return Dct2dPath::Kernels;
  if (v == "callbacks") return Dct2dPath::Callbacks;
  if (v != "auto") {
    log().warn("EFIELD_DCT2D_PATH='{}' is not one of kernels, callbacks, auto; using auto", v);
  }
  return Dct2dPath::Auto;
}

bool callbacks_support(const Dct2dShape& shape) { return shape.rows >= 2 && shape.cols >= 2; }

bool callbacks_preferred(const Dct2dShape&) {
  // The three-pass path stays the default: on the H200 of bench_ispd/results/transforms2d.md
  // cuFFT did not make the callback plans, so the callback path has no measurement to earn it.
  return false;
}

long long callback_plans_made() { return callback_plans.load(); }
void count_callback_plan() { ++callback_plans; }

}  // namespace efield::detail
