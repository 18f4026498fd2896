#pragma once
// The interface between efield::MultiFieldSystem (validation, dispatch) and its two backends
// (CPU: multi_field_cpu.cpp; CUDA: kernels/multi_field/multi_field_cuda.cu). Both share the
// layout below: the fields' charges as slots of one contiguous array, field k's slots
// [offset[k], offset[k + 1]) holding its movable cells then its fillers, so that field k's system
// reads and writes its own contiguous slice (filler_offset = its movable count).
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "efield/multi_field_system.hpp"
#include "electrostatics/backend.hpp"

namespace efield::detail {

struct MultiFieldLayout {
  MultiFieldOptions options;
  std::vector<FieldSpec> fields;
  std::vector<std::int64_t> offset;      // K + 1 entries: offset[k] = field k's first slot, offset[K] = all slots
  std::vector<std::int64_t> slot_entry;  // the position/gradient entry of each slot
  std::vector<std::int32_t> slot_field;  // the field of each slot
  std::vector<std::int64_t> unowned;     // the entries no field owns (zero_other_entries only; else empty)
  int num_fields() const { return static_cast<int>(fields.size()); }
  std::int64_t num_slots() const { return offset.back(); }
};

// Validates the options and the fields' indices (efield::Error naming the input) and lays out
// the slots. The fields' own inputs are validated by their systems.
MultiFieldLayout make_multi_field_layout(const MultiFieldOptions& options, std::vector<FieldSpec> fields);

// The pipeline a system runs: options.pipeline, Auto resolved for the backend and field count.
MultiFieldPipeline resolve_pipeline(const MultiFieldOptions& options, Backend backend, int num_fields);

// Field k's own ElectrostaticOptions: the shared ones with td_k, the given stream, and graphs of
// its own or not (the CUDA backend captures all fields into one graph itself).
ElectrostaticOptions field_options(const MultiFieldLayout& layout, int k, Stream stream, bool own_graphs);

// Builds field k's system; an efield::Error from it is rethrown naming the field.
ElectrostaticSystem make_field_system(const MultiFieldLayout& layout, int k, Stream stream, bool own_graphs);
// Field k's validated inputs as its system would hold them (the batched pipeline builds no
// system); an efield::Error is rethrown naming the field.
ElectrostaticDesign make_field_design(const MultiFieldLayout& layout, int k);

// The weights of a call: one per field (empty -> all 1), each finite in the precision.
// The weights evaluate applies: options.weights, checked (count, finite, within the precision's
// range), or `ones` when none are given. No copy: a reference to one of the two.
const std::vector<double>& resolve_weights(const MultiEvaluateOptions& options, const std::vector<double>& ones,
                                           Precision precision);

class MultiFieldBackend {
 public:
  explicit MultiFieldBackend(MultiFieldLayout layout)
      : layout_(std::move(layout)), ones_(static_cast<size_t>(layout_.num_fields()), 1.0) {}
  virtual ~MultiFieldBackend() = default;
  // weights: resolved (one per field). The precision not built throws.
  virtual void evaluate(const float* x, const float* y, float* gx, float* gy, const std::vector<double>& weights,
                        bool accumulate, std::vector<EvaluateResult>& results) = 0;
  virtual void evaluate(const double* x, const double* y, double* gx, double* gy, const std::vector<double>& weights,
                        bool accumulate, std::vector<EvaluateResult>& results) = 0;
  virtual void set_stream(Stream stream) { (void)stream; }
  virtual Backend backend() const noexcept = 0;
  virtual int device() const noexcept { return -1; }
  // Whether the fields are ElectrostaticSystems of their own (not in the batched pipeline).
  bool has_field_systems() const noexcept { return !systems_.empty(); }
  const ElectrostaticSystem& field(int k) const { return systems_[static_cast<size_t>(k)]; }
  // Field k's rho of the latest evaluate, natural layout (k checked by the caller).
  virtual std::vector<double> density_map(int k) const { return field(k).density_map(); }
  const MultiFieldLayout& layout() const noexcept { return layout_; }
  const std::vector<double>& unit_weights() const noexcept { return ones_; }

 protected:
  MultiFieldLayout layout_;
  std::vector<double> ones_;  // the weights when none are given
  std::vector<ElectrostaticSystem> systems_;
};

// A backend of one precision T: both overloads land in run() (the other precision's pointers are
// refused before, by MultiFieldSystem::evaluate).
template <typename T>
class TypedMultiFieldBackend : public MultiFieldBackend {
 public:
  using MultiFieldBackend::MultiFieldBackend;
  void evaluate(const float* x, const float* y, float* gx, float* gy, const std::vector<double>& weights,
                bool accumulate, std::vector<EvaluateResult>& results) final {
    if constexpr (std::is_same_v<T, float>) run(x, y, gx, gy, weights, accumulate, results);
    else (void)x, (void)y, (void)gx, (void)gy, (void)weights, (void)accumulate, (void)results;
  }
  void evaluate(const double* x, const double* y, double* gx, double* gy, const std::vector<double>& weights,
                bool accumulate, std::vector<EvaluateResult>& results) final {
    if constexpr (std::is_same_v<T, double>) run(x, y, gx, gy, weights, accumulate, results);
    else (void)x, (void)y, (void)gx, (void)gy, (void)weights, (void)accumulate, (void)results;
  }

 protected:
  virtual void run(const T* x, const T* y, T* gx, T* gy, const std::vector<double>& weights, bool accumulate,
                   std::vector<EvaluateResult>& results) = 0;
};

std::unique_ptr<MultiFieldBackend> make_cpu_multi_field(MultiFieldLayout layout);
// Throws efield::Error in a build without CUDA.
std::unique_ptr<MultiFieldBackend> make_cuda_multi_field(MultiFieldLayout layout);

}  // namespace efield::detail
