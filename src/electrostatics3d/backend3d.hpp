#pragma once
// The interface between efield::ElectrostaticSystem3D (validation, dispatch) and its two
// pipelines (CPU: pipeline3d_cpu.cpp; CUDA: kernels/electrostatics3d/pipeline3d_cuda.cu).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "efield/electrostatic_system3d.hpp"
#include "efield/error.hpp"
#include "electrostatics/backend.hpp"  // median_stage_times
#include "electrostatics3d/footprint3d.hpp"

namespace efield::detail {

// Validated inputs (design3d.cpp): every size > 0 and finite, movable and filler depths at most
// the region's, the region non-empty, td in (0, 1], bins >= 1, filler_offset resolved.
struct Design3D {
  ElectrostaticOptions3D options;
  CellSizes3D movable, fillers;
  FixedCells3D fixed;
  double bx = 0, by = 0, bz = 0;
  double movable_volume = 0;  // sum of w h d over the movable cells (overflow denominator)
  // Whether DREAMPlace's movable-macro rule changes anything: td < 1 and some cell marked.
  bool has_movable_macros() const {
    if (!(options.target_density < 1.0)) return false;
    for (std::uint8_t v : movable.movable_macro_mask)
      if (v != 0) return true;
    return false;
  }
  std::int64_t num_movable() const { return static_cast<std::int64_t>(movable.widths.size()); }
  std::int64_t num_fillers() const { return static_cast<std::int64_t>(fillers.widths.size()); }
  std::int64_t num_cells() const { return num_movable() + num_fillers(); }
  std::int64_t num_bins() const {
    return static_cast<std::int64_t>(options.num_bins_x) * options.num_bins_y * options.num_bins_z;
  }
  // Entries of x, y, z (and the gradients) evaluate touches: [0, filler_offset + num_fillers).
  std::int64_t required_length() const {
    return num_fillers() > 0 ? options.filler_offset + num_fillers() : num_movable();
  }
};

Design3D make_design3d(const ElectrostaticOptions3D& options, const CellSizes3D& movable, const CellSizes3D& fillers,
                       const FixedCells3D& fixed);
void validate_fixed_cells3d(const FixedCells3D& fixed);
// New sizes (nullptr: unchanged), validated like the constructor's, counts unchanged.
void replace_cell_sizes3d(Design3D& design, const CellSizes3D* movable, const CellSizes3D* fillers);
template <typename T>
void validate_host_positions3d(const Design3D& design, const T* x, const T* y, const T* z);
// F (docs/math.md 4.2) in volume units, [M][N][L], in double.
std::vector<double> compute_fixed_map3d(const Design3D& design);
// The grid and cell layout in the pipeline's precision.
template <typename T>
Grid3D<T> make_grid3d(const Design3D& design);
template <typename T>
SpectralGrid3D<T> make_spectral_grid3d(const Design3D& design);
// Sizes of cell c (movable first, then fillers), in T, three arrays of num_cells.
template <typename T>
void cell_sizes3d(const Design3D& design, std::vector<T>* w, std::vector<T>* h, std::vector<T>* d);
// A map of the pipeline ([M][N][L], natural layout) as the maps' accessors return it; axis >= 0
// marks an inverse transform's output of that sine axis, whose sign (field_sign3d) is applied here.
template <typename T>
std::vector<double> host_map3d(const T* map, const Grid3D<T>& g, int axis) {
  std::vector<double> out(static_cast<std::size_t>(g.M) * g.N * g.L);
  for (int m = 0; m < g.M; ++m)
    for (int n = 0; n < g.N; ++n)
      for (int k = 0; k < g.L; ++k) {
        const std::int64_t i = index3d(m, n, k, g.N, g.L);
        const T s = axis < 0 ? T(1) : field_sign3d<T>(axis == 0 ? m : axis == 1 ? n : k);
        out[i] = static_cast<double>(s * map[i]);
      }
  return out;
}

// The scalars of one evaluate from the reduced sums (both backends; double throughout):
// energy_sum = sum of the spectral energy terms, overflow_sum in bin volumes, max_rho, and the
// outside volumes as fixed point (kOutsideFractionBits).
EvaluateResult finish_result3d(const Design3D& design, double energy_sum, double overflow_sum, double max_rho,
                               std::int64_t movable_outside, std::int64_t filler_outside);

class ElectrostaticBackend3D {
 public:
  explicit ElectrostaticBackend3D(Design3D design) : design_(std::move(design)) {}
  virtual ~ElectrostaticBackend3D() = default;

  // The precision the system was not built with throws.
  virtual EvaluateResult evaluate(const float*, const float*, const float*, float*, float*, float*,
                                  const EvaluateOptions&) {
    throw Error(precision_mismatch("float"));
  }
  virtual EvaluateResult evaluate(const double*, const double*, const double*, double*, double*, double*,
                                  const EvaluateOptions&) {
    throw Error(precision_mismatch("double"));
  }
  virtual void evaluate_async(const float*, const float*, const float*, float*, float*, float*,
                              const EvaluateOptions&) {
    throw Error(precision_mismatch("float"));
  }
  virtual void evaluate_async(const double*, const double*, const double*, double*, double*, double*,
                              const EvaluateOptions&) {
    throw Error(precision_mismatch("double"));
  }
  virtual StageTimes profile(const float*, const float*, const float*, float*, float*, float*, int) {
    throw Error(precision_mismatch("float"));
  }
  virtual StageTimes profile(const double*, const double*, const double*, double*, double*, double*, int) {
    throw Error(precision_mismatch("double"));
  }
  virtual EvaluateResult wait_result() = 0;
  virtual const double* device_result() const { return nullptr; }
  virtual void set_stream(Stream) {}
  virtual int device() const noexcept { return -1; }
  // [M][N][L] natural layout, double. field(axis) is Ex, Ey, Ez for axis 0, 1, 2.
  virtual std::vector<double> density_map() = 0;
  virtual std::vector<double> field_map(int axis) = 0;
  virtual std::vector<double> potential_map() = 0;
  virtual std::vector<double> fixed_map() = 0;
  virtual void update_fixed_cells(const FixedCells3D& fixed) = 0;
  void update_sizes(const CellSizes3D* movable, const CellSizes3D* fillers) {
    replace_cell_sizes3d(design_, movable, fillers);
    sizes_changed();
  }
  virtual Backend backend() const noexcept = 0;
  const Design3D& design() const noexcept { return design_; }

 protected:
  virtual void sizes_changed() = 0;
  std::string precision_mismatch(const char* given) const {
    return std::string("ElectrostaticSystem3D::evaluate: ") + given +
           " pointers given, but the system was built with precision " +
           (design_.options.precision == Precision::Float ? "float" : "double");
  }
  Design3D design_;
};

std::unique_ptr<ElectrostaticBackend3D> make_cpu_pipeline3d(Design3D design);
// Throws efield::Error in a build without CUDA.
std::unique_ptr<ElectrostaticBackend3D> make_cuda_pipeline3d(Design3D design);

}  // namespace efield::detail
