// The CPU backend of MultiFieldSystem: gather every field's positions into its contiguous slice
// (one pass), evaluate each field's system (each with all cpu_threads), scatter each field's
// gradient times its weight to its entries. Buffers are made at construction.
#include <omp.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "efield/error.hpp"
#include "multi_field/multi_field_backend.hpp"

namespace efield::detail {
namespace {

template <typename T>
class CpuMultiField final : public TypedMultiFieldBackend<T> {
  using MultiFieldBackend::layout_;
  using MultiFieldBackend::systems_;

 public:
  explicit CpuMultiField(MultiFieldLayout layout) : TypedMultiFieldBackend<T>(std::move(layout)) {
    const MultiFieldLayout& l = layout_;
    for (int k = 0; k < l.num_fields(); ++k) systems_.push_back(make_field_system(l, k, nullptr, false));
    const size_t slots = static_cast<size_t>(l.num_slots());
    x_.resize(slots), y_.resize(slots), gx_.resize(slots), gy_.resize(slots);
    threads_ = l.options.system.cpu_threads > 0 ? l.options.system.cpu_threads : omp_get_max_threads();
  }

  Backend backend() const noexcept override { return Backend::Cpu; }

 private:
  void check_host(const T* x, const T* y, T* gx, T* gy) {
    if (known_[0] == x && known_[1] == y && known_[2] == gx && known_[3] == gy) return;
    const char* names[4] = {"x", "y", "grad_x", "grad_y"};
    const void* p[4] = {x, y, gx, gy};
    for (int i = 0; i < 4; ++i)
      if (is_device_pointer(p[i]))
        throw Error(std::string("MultiFieldSystem::evaluate: the CPU backend was given a CUDA device pointer (") +
                    names[i] + "); pass host memory or build the system with Backend::Cuda");
    known_[0] = x, known_[1] = y, known_[2] = gx, known_[3] = gy;
  }

  void run(const T* x, const T* y, T* gx, T* gy, const std::vector<double>& weights, bool accumulate,
           std::vector<EvaluateResult>& results) override {
    const MultiFieldLayout& l = layout_;
    const std::int64_t slots = l.num_slots();
    if (slots > 0 || !l.unowned.empty()) check_host(x, y, gx, gy);
    const std::int64_t* entry = l.slot_entry.data();
    bool finite = true;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(&& : finite)
    for (std::int64_t s = 0; s < slots; ++s) {
      const T a = x[entry[s]], b = y[entry[s]];
      x_[s] = a, y_[s] = b;
      finite = finite && std::isfinite(a) && std::isfinite(b);
    }
    if (!finite) throw_nonfinite();
    for (int k = 0; k < l.num_fields(); ++k) {
      const std::int64_t o = l.offset[k];
      results[static_cast<size_t>(k)] = systems_[static_cast<size_t>(k)].evaluate(
          x_.data() + o, y_.data() + o, gx_.data() + o, gy_.data() + o, EvaluateOptions{});
    }
    for (int k = 0; k < l.num_fields(); ++k) {
      const T w = static_cast<T>(weights[static_cast<size_t>(k)]);
      const std::int64_t begin = l.offset[k], end = l.offset[k + 1];
      if (accumulate) {
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (std::int64_t s = begin; s < end; ++s) {
          const T ax = w * gx_[s], ay = w * gy_[s];  // rounded before the add, as the CUDA scatter does
          gx[entry[s]] += ax, gy[entry[s]] += ay;
        }
      } else {
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (std::int64_t s = begin; s < end; ++s) gx[entry[s]] = w * gx_[s], gy[entry[s]] = w * gy_[s];
      }
    }
    if (!accumulate)
      for (std::int64_t e : l.unowned) gx[e] = T(0), gy[e] = T(0);
  }

  [[noreturn]] void throw_nonfinite() const {
    const MultiFieldLayout& l = layout_;
    for (std::int64_t s = 0; s < l.num_slots(); ++s)
      if (!std::isfinite(x_[s]) || !std::isfinite(y_[s])) {
        const int k = l.slot_field[s];
        const bool movable = s - l.offset[k] < static_cast<std::int64_t>(l.fields[k].movable_index.size());
        throw Error("MultiFieldSystem::evaluate: entry " + std::to_string(l.slot_entry[s]) + " (a " +
                    (movable ? "movable cell" : "filler") + " of field " + std::to_string(k) +
                    ") has a non-finite position (" + std::to_string(x_[s]) + ", " + std::to_string(y_[s]) + ")");
      }
    throw Error("MultiFieldSystem::evaluate: a position changed to a non-finite value during the call");
  }

  int threads_ = 1;
  std::vector<T> x_, y_, gx_, gy_;
  const void* known_[4] = {nullptr, nullptr, nullptr, nullptr};
};

}  // namespace

std::unique_ptr<MultiFieldBackend> make_cpu_multi_field(MultiFieldLayout layout) {
  if (layout.options.system.precision == Precision::Double)
    return std::make_unique<CpuMultiField<double>>(std::move(layout));
  return std::make_unique<CpuMultiField<float>>(std::move(layout));
}

}  // namespace efield::detail
