#pragma once
// The 3D electrostatic density system (ePlace-3D's model for stacked dies; docs/math.md section 4):
// section 2's system with a depth axis. What a 3D placer calls once per iteration.
//
//   ElectrostaticSystem3D es(options, movable, fillers, fixed);      // plans, buffers, fixed map
//   EvaluateResult r = es.evaluate(x, y, z, gx, gy, gz);             // per iteration, allocates nothing
//
// One evaluate = one rasterization (density, overflow, max density; 64-bit fixed-point bins) ->
// one 3D DCT-II (Plan3D) -> one spectral pass (scaling, energy by Parseval, the three fields'
// inputs) -> three 3D inverse transforms (each a sine axis by index reversal + Plan3D's IDCT +
// a sign pass; the potential too with GradientScale::Exact) -> one gather (gradient).
//
// A class of its own beside ElectrostaticSystem (docs/design.md "3D system"): its evaluate takes
// three arrays in and three out, and sharing the 2D class would put a depth axis into every 2D
// kernel.
//
// Positions are lower corners (x, y, z). Index layout as in the 2D system: movable cell i at
// x[i], y[i], z[i]; filler j at [filler_offset + j]. EvaluateResult and EvaluateOptions are the 2D
// ones; here overflow's numerator, max_density's map, movable_area_outside and
// filler_area_outside are volumes (docs/math.md 4.10).
#include <cstdint>
#include <memory>
#include <vector>

#include "efield/device.hpp"
#include "efield/electrostatic_system.hpp"

namespace efield {

struct ElectrostaticOptions3D {
  // Region [xl, xh) x [yl, yh) x [zl, zh); each extent positive and finite.
  double xl = 0, yl = 0, zl = 0, xh = 0, yh = 0, zh = 0;
  // Bin grid M x N x L (x, y, z), each >= 1. L = 1 with full-depth cells is the 2D system
  // (docs/math.md 4.12).
  int num_bins_x = 0, num_bins_y = 0, num_bins_z = 0;
  double target_density = 1.0;  // td in (0, 1]
  Precision precision = Precision::Float;
  Backend backend = Backend::Auto;
  // Bitwise identical results across runs on the same device (64-bit fixed-point bins, fixed-order
  // reductions). Both backends are deterministic whatever this says; false is accepted for the 2D
  // options' sake and changes nothing.
  bool deterministic = true;
  Stream stream = nullptr;  // CUDA stream (nullptr = legacy default stream); ignored on the CPU
  int cpu_threads = 0;      // CPU backend: OpenMP/FFTW threads (0 = all hardware threads)
  std::int64_t filler_offset = -1;  // index of the first filler in the arrays; -1 = num_movable
  bool use_cuda_graph = true;       // CUDA: capture evaluate into a graph, re-captured on new pointers
  GradientScale gradient_scale = GradientScale::DreamPlace;  // docs/math.md 4.9
  // Write 0 into gradient entries [num_movable, filler_offset) on every non-accumulating evaluate.
  bool zero_gap_gradient = false;
};

// Sizes of movable or filler cells (all three of the same length, every size > 0 and finite,
// depth <= zh - zl).
struct CellSizes3D {
  std::vector<double> widths, heights, depths;
  // Movable cells only (empty for fillers): one entry per cell, nonzero for a movable macro, or
  // empty for none. DREAMPlace's rule as in 2D (docs/math.md 2.1, 4.1): when target_density < 1 a
  // macro's density ratio is target_density instead of w h d / (w' h' d').
  std::vector<std::uint8_t> movable_macro_mask = {};
};

// Fixed cuboids: sizes and lower corners (all six of the same length). They may reach outside the
// region (their part outside falls in no bin).
struct FixedCells3D {
  std::vector<double> widths, heights, depths, x, y, z;
};

namespace detail {
class ElectrostaticBackend3D;
}

class ElectrostaticSystem3D {
 public:
  // Validates everything (efield::Error naming the input), makes plans, buffers, the fixed map.
  ElectrostaticSystem3D(const ElectrostaticOptions3D& options, const CellSizes3D& movable,
                        const CellSizes3D& fillers = {}, const FixedCells3D& fixed = {});
  ~ElectrostaticSystem3D();
  ElectrostaticSystem3D(ElectrostaticSystem3D&&) noexcept;
  ElectrostaticSystem3D& operator=(ElectrostaticSystem3D&&) noexcept;

  // One iteration; the pointer type must match options.precision. Host or device pointers (CUDA
  // backend: host arrays are staged through buffers made at construction; the CPU backend rejects
  // device pointers). Host positions are checked for NaN/Inf. Writes (or with accumulate adds)
  // weight * gradient of every movable cell and filler; blocks until the result is ready.
  EvaluateResult evaluate(const float* x, const float* y, const float* z, float* grad_x, float* grad_y,
                          float* grad_z, const EvaluateOptions& options = {});
  EvaluateResult evaluate(const double* x, const double* y, const double* z, double* grad_x,
                          double* grad_y, double* grad_z, const EvaluateOptions& options = {});

  // CUDA backend, device pointers only: enqueues the same evaluate on the system's stream and
  // returns without waiting.
  void evaluate_async(const float* x, const float* y, const float* z, float* grad_x, float* grad_y,
                      float* grad_z, const EvaluateOptions& options = {});
  void evaluate_async(const double* x, const double* y, const double* z, double* grad_x,
                      double* grad_y, double* grad_z, const EvaluateOptions& options = {});
  // Waits for the latest evaluate_async and returns its scalars.
  EvaluateResult wait_result();
  // Device memory holding {energy, overflow, max_density, movable_area_outside,
  // filler_area_outside} of the latest evaluate (CUDA only; nullptr on the CPU).
  const double* device_result() const;
  void set_stream(Stream stream);

  // New sizes, same counts: no re-planning, no re-allocation. Same validation as the constructor;
  // the movable cells' movable_macro_mask is replaced along with their sizes.
  void update_movable_sizes(const CellSizes3D& movable);
  void update_filler_sizes(const CellSizes3D& fillers);
  // Recomputes the fixed map. Same count not required.
  void update_fixed_cells(const FixedCells3D& fixed);

  // Benchmarks: the stages run one by one with a clock around each (CUDA: events, no graph),
  // `repetitions` times after a warm-up; their median times. rasterize_ms is the rasterize and
  // density pass, forward_fft_ms the 3D DCT, spectral_ms the spectral pass, inverse_fft_ms the
  // three field transforms (and phi's with GradientScale::Exact), gather_ms the gather and the
  // scalars; total_ms one whole evaluate (graph replay when enabled). Host or device arrays as
  // evaluate takes them (CUDA: host arrays are copied to the staging buffers once, outside the
  // timing). Overwrites the gradient arrays.
  StageTimes profile_stages(const float* x, const float* y, const float* z, float* grad_x, float* grad_y,
                            float* grad_z, int repetitions);
  StageTimes profile_stages(const double* x, const double* y, const double* z, double* grad_x, double* grad_y,
                            double* grad_z, int repetitions);

  // Maps of the latest evaluate on the host, [M][N][L] row-major (z fastest).
  std::vector<double> density_map() const;    // rho = D / (bx by bz), fixed cells included
  std::vector<double> field_x_map() const;    // Ex (docs/math.md 4.7)
  std::vector<double> field_y_map() const;    // Ey
  std::vector<double> field_z_map() const;    // Ez
  std::vector<double> potential_map() const;  // phi: computed here unless evaluate computed it
  std::vector<double> fixed_map() const;      // F in volume units (docs/math.md 4.2)

  const ElectrostaticOptions3D& options() const noexcept;
  Backend backend() const noexcept;
  std::int64_t num_movable() const noexcept;
  std::int64_t num_fillers() const noexcept;
  std::int64_t num_fixed() const noexcept;
  double bin_width() const noexcept;   // bx
  double bin_height() const noexcept;  // by
  double bin_depth() const noexcept;   // bz
  int device() const noexcept;         // CUDA device of the system; -1 on the CPU

 private:
  detail::ElectrostaticBackend3D& impl() const;  // throws efield::Error on a moved-from system
  std::unique_ptr<detail::ElectrostaticBackend3D> impl_;
};

// Fillers of a 3D design (docs/math.md 4.11).
struct FillerSpec3D {
  double width = 0;        // as make_fillers: trimmed mean of the movable widths
  double height = 0;       // `height`, or the mean movable height when height <= 0
  double depth = 0;        // `depth`, or the mean movable depth when depth <= 0; in (0, zh - zl]
  std::int64_t count = 0;  // round(total_volume / (width height depth))
  double total_volume = 0; // max(td (region volume - fixed volume inside) - movable volume, 0)
  CellSizes3D sizes() const;  // `count` cells of width x height x depth
};

// Throws efield::Error on an empty movable set, bad sizes, a bad region, td outside (0, 1], or a
// filler depth outside (0, zh - zl].
FillerSpec3D make_fillers_3d(const CellSizes3D& movable, const FixedCells3D& fixed, double xl, double yl,
                             double zl, double xh, double yh, double zh, double target_density,
                             double height = 0, double depth = 0);

}  // namespace efield
