#pragma once
// The interface between efield::ElectrostaticSystem (validation, dispatch) and its two
// pipelines (CPU: pipeline_cpu.cpp; CUDA: kernels/electrostatics/pipeline_cuda.cu).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/error.hpp"

namespace efield::detail {

// Validated inputs (design.cpp). Every size > 0 and finite, the region non-empty, td in (0, 1],
// bins >= 1, filler_offset resolved and >= num_movable.
struct ElectrostaticDesign {
  ElectrostaticOptions options;
  CellSizes movable;
  CellSizes fillers;
  FixedCells fixed;
  double bx = 0, by = 0;
  double movable_area = 0;  // sum of w h over movable cells (overflow denominator)
  // Whether DREAMPlace's movable-macro rule changes anything: td < 1 and some movable cell marked
  // in movable.movable_macro_mask (density_ratio, math/density.hpp).
  bool has_movable_macros() const;
  std::int64_t num_movable() const { return static_cast<std::int64_t>(movable.widths.size()); }
  std::int64_t num_fillers() const { return static_cast<std::int64_t>(fillers.widths.size()); }
  std::int64_t num_cells() const { return num_movable() + num_fillers(); }
  // Width and height of cell c (movable first, then fillers).
  double width(std::int64_t c) const;
  double height(std::int64_t c) const;
};

// Checks everything (efield::Error naming the problem) and resolves defaults.
ElectrostaticDesign make_design(const ElectrostaticOptions& options, const CellSizes& movable,
                                const CellSizes& fillers, const FixedCells& fixed);
void validate_fixed_cells(const FixedCells& fixed);
// Sum of w h.
double total_area(const CellSizes& cells);
// New sizes for the movable and/or filler cells (nullptr: unchanged), validated like the
// constructor's, the counts unchanged; movable_area follows.
void replace_cell_sizes(ElectrostaticDesign& design, const CellSizes* movable, const CellSizes* fillers);
// Host position arrays: NaN/Inf of any movable or filler coordinate is an error.
template <typename T>
void validate_host_positions(const ElectrostaticDesign& design, const T* x, const T* y);

// F (docs/math.md 2.3) in area units, natural layout [M][N], in double.
std::vector<double> compute_fixed_map(const ElectrostaticDesign& design);

// profile_stages of both backends: per-stage samples (rasterize, forward FFT, spectral, inverse
// FFT, gather, whole evaluate) in milliseconds -> their medians.
inline StageTimes median_stage_times(std::vector<double> (&samples)[6], int repetitions) {
  const auto median = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  StageTimes s;
  s.rasterize_ms = median(samples[0]);
  s.forward_fft_ms = median(samples[1]);
  s.spectral_ms = median(samples[2]);
  s.inverse_fft_ms = median(samples[3]);
  s.gather_ms = median(samples[4]);
  s.total_ms = median(samples[5]);
  s.repetitions = repetitions;
  return s;
}

class ElectrostaticBackend {
 public:
  explicit ElectrostaticBackend(ElectrostaticDesign design) : design_(std::move(design)) {}
  virtual ~ElectrostaticBackend() = default;

  // The precision the system was not built with throws (precision_mismatch).
  virtual EvaluateResult evaluate(const float* x, const float* y, float* gx, float* gy, const EvaluateOptions& eo) {
    (void)x, (void)y, (void)gx, (void)gy, (void)eo;
    throw Error(precision_mismatch("float"));
  }
  virtual EvaluateResult evaluate(const double* x, const double* y, double* gx, double* gy,
                                  const EvaluateOptions& eo) {
    (void)x, (void)y, (void)gx, (void)gy, (void)eo;
    throw Error(precision_mismatch("double"));
  }
  virtual void evaluate_async(const float* x, const float* y, float* gx, float* gy, const EvaluateOptions& eo) {
    (void)x, (void)y, (void)gx, (void)gy, (void)eo;
    throw Error(precision_mismatch("float"));
  }
  virtual void evaluate_async(const double* x, const double* y, double* gx, double* gy,
                              const EvaluateOptions& eo) {
    (void)x, (void)y, (void)gx, (void)gy, (void)eo;
    throw Error(precision_mismatch("double"));
  }
  // The scalars of the latest evaluate or evaluate_async, once they are ready.
  virtual EvaluateResult wait_result() = 0;
  virtual const double* device_result() const { return nullptr; }
  virtual void set_stream(Stream stream) { (void)stream; }
  virtual int device() const noexcept { return -1; }
  virtual StageTimes profile(const float* x, const float* y, float* gx, float* gy, int reps) {
    (void)x, (void)y, (void)gx, (void)gy, (void)reps;
    throw Error(precision_mismatch("float"));
  }
  virtual StageTimes profile(const double* x, const double* y, double* gx, double* gy, int reps) {
    (void)x, (void)y, (void)gx, (void)gy, (void)reps;
    throw Error(precision_mismatch("double"));
  }
  // Natural layout [M][N], double.
  virtual std::vector<double> density_map() = 0;
  virtual std::vector<double> field_x_map() = 0;
  virtual std::vector<double> field_y_map() = 0;
  virtual std::vector<double> potential_map() = 0;
  virtual std::vector<double> fixed_map() = 0;
  // Replaces design().fixed (already validated) and recomputes F.
  virtual void update_fixed_cells(const FixedCells& fixed) = 0;
  // New movable and/or filler sizes (nullptr: unchanged), same counts: validated, then the
  // pipeline refreshes what it derived from the sizes (sizes_changed), with no new plan or buffer.
  void update_sizes(const CellSizes* movable, const CellSizes* fillers) {
    replace_cell_sizes(design_, movable, fillers);
    sizes_changed();
  }
  virtual Backend backend() const noexcept = 0;

  const ElectrostaticDesign& design() const noexcept { return design_; }

  // Where the pointers of the latest evaluate live (electrostatic_system.cpp), and of the sets
  // checked before it. Kept so that a placer passing the same arrays every iteration, or taking
  // turns between a few (the CUDA graphs are kept for as many: graph_cache.cuh), pays the pointer
  // queries once per set: with unified addressing a pointer value cannot change between host and
  // device memory.
  struct PointerKinds {
    const void* ptr[4] = {nullptr, nullptr, nullptr, nullptr};
    bool on_device = false;
    bool valid = false;
  };
  static constexpr int kEarlierPointerSets = 3;
  PointerKinds& pointer_kinds() noexcept { return pointer_kinds_; }
  PointerKinds (&earlier_pointer_kinds() noexcept)[kEarlierPointerSets] { return earlier_pointer_kinds_; }
  // The slot of earlier_pointer_kinds() the next new set's predecessor goes into (round robin).
  int& next_earlier_pointer_slot() noexcept { return next_earlier_pointer_slot_; }

 protected:
  virtual void sizes_changed() = 0;
  std::string precision_mismatch(const char* given) const {
    return std::string("ElectrostaticSystem::evaluate: ") + given +
           " pointers given, but the system was built with precision " +
           (design_.options.precision == Precision::Float ? "float" : "double");
  }
  ElectrostaticDesign design_;
  PointerKinds pointer_kinds_;
  PointerKinds earlier_pointer_kinds_[kEarlierPointerSets];
  int next_earlier_pointer_slot_ = 0;
};

std::unique_ptr<ElectrostaticBackend> make_cpu_pipeline(ElectrostaticDesign design);
// Throws efield::Error in a build without CUDA.
std::unique_ptr<ElectrostaticBackend> make_cuda_pipeline(ElectrostaticDesign design);

}  // namespace efield::detail
