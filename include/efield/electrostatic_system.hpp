#pragma once
// The electrostatic density system of analytical placement (ePlace, DREAMPlace conventions;
// docs/math.md section 2): what a placer calls once per iteration.
//
//   ElectrostaticSystem es(options, movable, fillers, fixed);     // plans, buffers, fixed map
//   EvaluateResult r = es.evaluate(x, y, grad_x, grad_y);        // per iteration, allocates nothing
//
// One evaluate = one rasterization (density, overflow, max density) -> one 2D real FFT -> one
// spectral kernel (DCT postprocess, scaling, energy, preprocess of both field transforms) -> one
// inverse FFT for both fields (CUDA: one complex FFT whose output is Ex + i Ey; CPU: two real
// ones) -> one gather (gradient). No potential transform runs in evaluate; potential_map()
// computes it on request.
//
// Positions are lower-left corners. Index layout of the position and gradient arrays:
//   movable cell i (0 <= i < num_movable)  -> x[i], y[i]
//   filler cell j  (0 <= j < num_fillers)  -> x[filler_offset + j], y[filler_offset + j]
// filler_offset defaults to num_movable. DREAMPlace's flat `pos = [x..., y...]` over all nodes
// (movable first, fixed terminals, fillers last) works without copies: pass
// filler_offset = num_nodes - num_fillers, x = pos, y = pos + num_nodes, and likewise for the
// gradient. Entries in between (fixed terminals) are not read, and not written unless
// zero_gap_gradient asks for zeros there.
#include <cstdint>
#include <memory>
#include <vector>

#include "efield/device.hpp"
#include "efield/transforms.hpp"

namespace efield {

enum class Precision { Float, Double };

// Which gradient evaluate writes (docs/math.md 2.9).
enum class GradientScale {
  // DREAMPlace's and ePlace's field estimate g = -r sum ox oy E: what their placers' density weight
  // schedules are tuned for. It points along dE/dx (cosine similarity about 0.97 on random
  // designs) but is about (bx^2 by / 2) times it, so it is not the derivative of `energy`.
  DreamPlace,
  // The exact derivative dE/dx of the returned energy (for line searches on wl + lambda E). Costs
  // one more inverse transform (the potential) per evaluate.
  Exact,
};

struct ElectrostaticOptions {
  // Placement region [xl, xh) x [yl, yh); must have positive width and height.
  double xl = 0, yl = 0, xh = 0, yh = 0;
  // Bin grid (M = num_bins_x along x, N = num_bins_y along y), each >= 1.
  // See default_bin_grid() in placement_helpers.hpp for the DREAMPlace/RePlAce choice.
  int num_bins_x = 0, num_bins_y = 0;
  // Target density td in (0, 1].
  double target_density = 1.0;
  // Arithmetic of the pipeline and the type of the position/gradient pointers.
  Precision precision = Precision::Float;
  Backend backend = Backend::Auto;
  // Bitwise identical results across runs on the same device and inputs (fixed-point
  // accumulation of the density map, fixed-order reductions; CUDA float adds contributions rounded
  // to 2^-18 bin areas, whose sums are exact whatever the atomics' order). false only relaxes that
  // promise, it never makes a call slower: evaluate takes the same path (the fastest one, piled or
  // spread), and evaluate_async in float adds unrounded contributions with floating-point vector
  // atomics (its last bits then vary with the atomics' order) instead of the 64-bit bins it takes
  // when deterministic. The CPU backend and double on CUDA are deterministic whatever this says.
  bool deterministic = true;
  // CUDA stream all work is enqueued on (nullptr = legacy default stream). Ignored on the CPU.
  Stream stream = nullptr;
  // CPU backend: worker threads for FFTW and the OpenMP loops (0 = all hardware threads).
  int cpu_threads = 0;
  // Index of the first filler cell in the position/gradient arrays; -1 = num_movable.
  std::int64_t filler_offset = -1;
  // CUDA backend: capture evaluate into a CUDA graph and replay it (re-captured when the
  // pointers passed to evaluate change).
  bool use_cuda_graph = true;
  GradientScale gradient_scale = GradientScale::DreamPlace;
  // Write 0 into the gradient entries [num_movable, filler_offset) (the fixed terminals of
  // DREAMPlace's flat layout) on every evaluate that does not accumulate, as DREAMPlace does.
  bool zero_gap_gradient = false;
  // CUDA backend: how the system makes its plan-time choices that depend on the GPU (the ones
  // docs/performance.md, "Measure mode of the electrostatic system", lists). Estimate: the
  // built-in rules, no time spent. Measure: a choice already in the process's wisdom for this GPU,
  // precision, grid and cell count (efield::load_wisdom) is taken; else the candidates are timed
  // once on the design's own cells at spread synthetic positions (milliseconds at construction)
  // and the fastest is kept in the wisdom (efield::save_wisdom writes it). Every candidate gives
  // the same bits. Ignored on the CPU.
  PlanEffort plan_effort = PlanEffort::Estimate;
};

// Per-call options of evaluate: how the gradient is written.
struct EvaluateOptions {
  double weight = 1.0;      // the gradient written is weight * g
  bool accumulate = false;  // grad += weight * g (in the same pass) instead of grad = weight * g
};

// Sizes of movable or filler cells (same length, every size > 0 and finite).
struct CellSizes {
  std::vector<double> widths;
  std::vector<double> heights;
  // Movable cells only (must stay empty for fillers): which cells are movable macros, one entry per
  // cell (nonzero = macro), or empty for none. DREAMPlace's rule (docs/math.md 2.1): when
  // target_density < 1 a macro's density ratio is target_density instead of w h / (w' h'); with
  // target_density = 1 the mask changes nothing. update_movable_sizes replaces it with the sizes.
  std::vector<std::uint8_t> movable_macro_mask = {};
};

// Fixed cells: sizes and lower-left positions (all four of the same length).
struct FixedCells {
  std::vector<double> widths;
  std::vector<double> heights;
  std::vector<double> x;
  std::vector<double> y;
};

struct EvaluateResult {
  double energy = 0;       // E = sum phi * rho (docs/math.md 2.8)
  double overflow = 0;     // docs/math.md 2.10 (movable cells only)
  double max_density = 0;  // max(Dm + F) / (bx by)
  // Cell area (of the stretched footprints, which keep each cell's area) lying outside the region:
  // it is in no bin, so it adds to neither density, energy nor overflow (docs/math.md 2.2).
  double movable_area_outside = 0;
  double filler_area_outside = 0;
};

// Median milliseconds per stage (profile_stages); total is one whole evaluate.
struct StageTimes {
  double rasterize_ms = 0;    // density map, overflow and max density
  double forward_fft_ms = 0;  // the 2D R2C
  double spectral_ms = 0;     // postprocess, scaling, energy, preprocess of both inverses
  double inverse_fft_ms = 0;  // the inverse FFT of both fields (one C2C: Ex + i Ey)
  double gather_ms = 0;       // gradients (CUDA: with the field tiles pass and finalize)
  double total_ms = 0;        // one evaluate (graph replay when enabled), including the result copy
  int repetitions = 0;
};

namespace detail {
class ElectrostaticBackend;
}

class ElectrostaticSystem {
 public:
  // Validates everything (throws efield::Error naming the problem), makes the FFT plans, buffers
  // and the fixed-cell map.
  ElectrostaticSystem(const ElectrostaticOptions& options, const CellSizes& movable,
                      const CellSizes& fillers = {}, const FixedCells& fixed = {});
  ~ElectrostaticSystem();
  ElectrostaticSystem(ElectrostaticSystem&&) noexcept;
  ElectrostaticSystem& operator=(ElectrostaticSystem&&) noexcept;

  // One iteration. Pointer type must match options.precision. Host or device pointers:
  // the CUDA backend uses device pointers directly (no copy); host arrays it copies to the device
  // and the gradient back: by DMA straight from and to page-locked arrays (cudaMallocHost, or
  // pinned once with efield::PinnedHostRange: the way for a CPU-side placer), pageable ones
  // through staging made at construction, in chunks whose host copies overlap the DMA. The CPU
  // backend rejects device pointers. Host positions are checked for NaN/Inf (efield::Error naming
  // the cell; the CUDA backend checks its device copy, and the gradient arrays' contents are then
  // unspecified); device positions are not inspected (a NaN there cannot index out of bounds: bin
  // ranges are clamped, its cell contributes nothing).
  // Writes (or with options.accumulate adds) the gradient of every movable and filler cell; blocks
  // until the result is ready. Host and device arrays give the same bits.
  EvaluateResult evaluate(const float* x, const float* y, float* grad_x, float* grad_y,
                          const EvaluateOptions& options = {});
  EvaluateResult evaluate(const double* x, const double* y, double* grad_x, double* grad_y,
                          const EvaluateOptions& options = {});

  // CUDA backend, device pointers only: enqueues the same evaluate on the system's stream and
  // returns without waiting; the gradient and device_result() are ready when the stream reaches
  // them. Capturable into the caller's own CUDA graph (then replay order is the caller's). The
  // deterministic float pipeline accumulates in 64-bit bins here (it cannot re-run after a
  // pile-up without a host sync), which makes it somewhat slower than evaluate; with
  // deterministic = false it takes float atomics instead. See the README.
  void evaluate_async(const float* x, const float* y, float* grad_x, float* grad_y,
                      const EvaluateOptions& options = {});
  void evaluate_async(const double* x, const double* y, double* grad_x, double* grad_y,
                      const EvaluateOptions& options = {});
  // Waits for the latest evaluate_async and returns its scalars (the latest evaluate's, if that
  // came later).
  EvaluateResult wait_result();
  // Device memory holding {energy, overflow, max_density, movable_area_outside,
  // filler_area_outside} of the latest evaluate, for kernels that read them on the stream
  // (CUDA only; nullptr on the CPU). Stable for the system's lifetime.
  const double* device_result() const;
  // The CUDA stream later calls enqueue on (the captured graph is replayed there). Ignored on the
  // CPU.
  void set_stream(Stream stream);

  // New cell sizes, same counts (routability-driven cell inflation): no re-planning and no
  // re-allocation; the fixed map stays. Costs one upload of the sizes (CUDA) and one pass over
  // the cells. Same validation as the constructor. The movable cells' movable_macro_mask is
  // replaced along with their sizes (an empty one marks no macro).
  void update_movable_sizes(const CellSizes& movable);
  void update_filler_sizes(const CellSizes& fillers);

  // Recomputes the fixed-cell map (for example after fixed cells moved). Same count not required.
  void update_fixed_cells(const FixedCells& fixed);

  // Maps of the latest evaluate, copied to the host as [num_bins_x][num_bins_y] row-major.
  std::vector<double> density_map() const;    // rho = D / (bx by), fixed cells included (docs/math.md 2.4)
  std::vector<double> field_x_map() const;    // Ex (docs/math.md 2.7)
  std::vector<double> field_y_map() const;    // Ey
  std::vector<double> potential_map() const;  // phi: computed here, not in evaluate
  // The fixed map F in area units (docs/math.md 2.3), [num_bins_x][num_bins_y].
  std::vector<double> fixed_map() const;

  // Benchmarks: runs the stages one by one with events around each, `repetitions` times after a
  // warm-up, and returns their median times (CPU backend: host clock).
  StageTimes profile_stages(const float* x, const float* y, float* grad_x, float* grad_y, int repetitions);
  StageTimes profile_stages(const double* x, const double* y, double* grad_x, double* grad_y,
                            int repetitions);

  const ElectrostaticOptions& options() const noexcept;
  Backend backend() const noexcept;
  std::int64_t num_movable() const noexcept;
  std::int64_t num_fillers() const noexcept;
  std::int64_t num_fixed() const noexcept;
  double bin_width() const noexcept;   // bx
  double bin_height() const noexcept;  // by
  // The CUDA device the system belongs to (the one current at construction; every call makes it
  // current and restores the caller's device after); -1 on the CPU.
  int device() const noexcept;

 private:
  detail::ElectrostaticBackend& impl() const;  // throws efield::Error on a moved-from system
  std::unique_ptr<detail::ElectrostaticBackend> impl_;
};

}  // namespace efield
