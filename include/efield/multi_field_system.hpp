#pragma once
// Many electrostatic fields in one evaluate (docs/math.md 2.11 "Fence-region fields"):
// DREAMPlace 3.0's fence regions (K fences -> K + 1 fields over one bin grid) and batches of
// independent placements of one design.
//
//   std::vector<FieldSpec> fields = make_fence_fields(movable, region_id, fences, fixed, ...);
//   MultiFieldSystem mf(options, fields);                  // the fields' systems, buffers, indices
//   auto results = mf.evaluate(x, y, grad_x, grad_y, {.weights = lambdas});  // one per field
//
// A field is an ordinary ElectrostaticSystem over its own charges (movable cells and fillers,
// each one entry of the shared position arrays) and its own fixed cells (virtual blockages
// included), with its own target density. evaluate gathers every field's positions into
// contiguous per-field arrays (one pass), evaluates every field, and writes each field's gradient,
// times its weight, at its entries. So each field gives the bits a separately built system gives
// for the same cells (CPU: its evaluate; CUDA: its evaluate_async, which the fields run
// concurrently on streams forked from the system's stream; see the tests for which equal which),
// and one field with identity indexing is the single-field system.
#include <cstdint>
#include <memory>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/fence_region.hpp"
#include "efield/placement_helpers.hpp"

namespace efield {

// One field: its charges (movable cells and fillers, each an entry of the evaluate's position
// arrays), its fixed cells (virtual blockages included) and its target density.
struct FieldSpec {
  std::vector<std::int64_t> movable_index;  // entry in x / y / grad of each movable cell of the field
  CellSizes movable;                        // their sizes (and movable_macro_mask), same order
  std::vector<std::int64_t> filler_index;   // entry of each filler of the field
  CellSizes fillers;
  FixedCells fixed;                         // fixed cells and blockages of this field
  double target_density = 1.0;              // td_k
};

// How the CUDA backend runs the fields (docs/design.md, "Many fields: fence regions and batches").
enum class MultiFieldPipeline {
  // The default: Batched where it runs (the CUDA backend, two or more fields, GradientScale
  // DreamPlace), PerField otherwise; options() tells which one a system got. Batched is the faster
  // one wherever it runs (bench_ispd/results/multi_field.md).
  Auto,
  // Each field's own ElectrostaticSystem pipeline, the fields concurrently on streams forked from
  // the system's stream. The CPU backend always runs the fields this way.
  PerField,
  // CUDA only: one pipeline over all fields at once: one rasterize launch over every field's cells
  // into the fields' maps (64-bit fixed-point bins), one density pass, batched cuFFT plans, one
  // spectral pass, one field-tiles pass, one gather writing w_k g at each cell's entry, one
  // finalize. Keeps no per-field systems (field(k) throws; density_map(k) works). Not with
  // GradientScale::Exact.
  Batched,
};

struct MultiFieldOptions {
  // Region, bins, precision, backend, deterministic, stream, cpu_threads, use_cuda_graph,
  // gradient_scale: shared by all fields. target_density, filler_offset and zero_gap_gradient are
  // per field / per system (below) and must stay at their defaults here (else efield::Error).
  ElectrostaticOptions system;
  std::int64_t num_entries = 0;     // length of x, y, grad_x, grad_y; every index < num_entries
  bool zero_other_entries = false;  // write 0 at entries no field owns (DREAMPlace's terminals) when not accumulating
  // Auto, PerField or Batched (Batched with Backend::Cpu is an efield::Error; with Backend::Auto
  // on a machine without a GPU the CPU backend runs as always). PerField gives every field's
  // energy and gradient bitwise as its own ElectrostaticSystem would, and field(k).
  MultiFieldPipeline pipeline = MultiFieldPipeline::Auto;
};

struct MultiEvaluateOptions {
  std::vector<double> weights;  // empty: 1 for every field; else one per field (grad = w_k g_k)
  bool accumulate = false;      // grad += w_k g_k instead of grad = w_k g_k
};

namespace detail {
class MultiFieldBackend;
}

class MultiFieldSystem {
 public:
  // Validates everything (efield::Error naming the input), builds the fields' systems and the
  // gather/scatter buffers and indices. Host or device arrays are accepted by evaluate as by
  // ElectrostaticSystem::evaluate (CUDA: host arrays go through staging made here).
  MultiFieldSystem(const MultiFieldOptions& options, std::vector<FieldSpec> fields);
  ~MultiFieldSystem();
  MultiFieldSystem(MultiFieldSystem&&) noexcept;
  MultiFieldSystem& operator=(MultiFieldSystem&&) noexcept;

  // One iteration for all fields: results[k] is field k's. Pointer type must match the
  // precision; arrays of num_entries. Blocks until the results are ready. Bad weights (count,
  // NaN/Inf) throw before anything is written. This form allocates only the returned vector.
  std::vector<EvaluateResult> evaluate(const float* x, const float* y, float* grad_x, float* grad_y,
                                       const MultiEvaluateOptions& options = {});
  std::vector<EvaluateResult> evaluate(const double* x, const double* y, double* grad_x, double* grad_y,
                                       const MultiEvaluateOptions& options = {});
  // The same into the caller's vector (resized to num_fields): a placer loop that keeps the vector
  // allocates nothing per iteration.
  void evaluate(const float* x, const float* y, float* grad_x, float* grad_y, std::vector<EvaluateResult>& results,
                const MultiEvaluateOptions& options = {});
  void evaluate(const double* x, const double* y, double* grad_x, double* grad_y,
                std::vector<EvaluateResult>& results, const MultiEvaluateOptions& options = {});

  // CUDA: the stream later evaluates are enqueued on (nullptr: one of the system's own, ordered
  // after the legacy default stream); the caller's earlier work on it comes first. The fields'
  // own streams fork from it and join back. Ignored on the CPU.
  void set_stream(Stream stream);

  int num_fields() const noexcept;
  // The field's own system: maps (density_map(), ...), bin sizes, counts of the latest evaluate.
  // The batched pipeline keeps none: efield::Error (build with MultiFieldPipeline::PerField).
  const ElectrostaticSystem& field(int k) const;
  // Field k's density map rho of the latest evaluate, natural layout [M][N] (either pipeline).
  std::vector<double> density_map(int k) const;
  const FieldSpec& field_spec(int k) const;
  std::int64_t num_entries() const noexcept;
  const MultiFieldOptions& options() const noexcept;  // pipeline: the one this system runs (never Auto)
  Backend backend() const noexcept;
  int device() const noexcept;  // -1 on the CPU

 private:
  detail::MultiFieldBackend& impl() const;  // throws efield::Error on a moved-from system
  std::unique_ptr<detail::MultiFieldBackend> impl_;
};

// DREAMPlace 3.0's fence-region fields (K fences -> K + 1 fields, the default field last):
// field k < K: movable cells with region_id k, fillers from `fillers[k]`, the fixed cells, and as
// blockage the part of the region covered neither by fence k nor by any fixed cell, cut into
// rectangles; the default field: the other movable cells, its fillers, the fixed cells and all
// fence rectangles as they are. td_k from fillers[k].target_density. region_id as
// make_region_fillers takes it (k, K or INT_MAX for the default region; empty: all default).
// Movable cell i is entry i; the fillers follow at layout.filler_offset, field 0's first.
struct FenceFieldLayout {
  std::int64_t num_entries = -1;    // -1: filler_offset + total fillers
  std::int64_t filler_offset = -1;  // entry of the first filler (field 0's first, then field 1's ...); -1: num_movable
};
std::vector<FieldSpec> make_fence_fields(const CellSizes& movable, const std::vector<int>& region_id,
                                         const std::vector<FenceRegion>& fences, const FixedCells& fixed,
                                         double xl, double yl, double xh, double yh,
                                         const std::vector<RegionFillerSpec>& fillers,
                                         const FenceFieldLayout& layout = {});
// The number of entries make_fence_fields' fields index (for MultiFieldOptions::num_entries).
std::int64_t fence_fields_num_entries(std::int64_t num_movable, const std::vector<RegionFillerSpec>& fillers,
                                      const FenceFieldLayout& layout = {});

// The blockage rectangles of field k (k == fences.size(): the default field) as above: disjoint,
// inside the region.
std::vector<Rect> fence_blockages(int k, const std::vector<FenceRegion>& fences, const FixedCells& fixed,
                                  double xl, double yl, double xh, double yh);

// A batch of `count` placements of one design: member k's movable cells at entries
// [k * stride, k * stride + n), its fillers right after them; stride = -1: n + num_fillers.
// All members share the sizes, the fixed cells and the target density.
std::vector<FieldSpec> make_batch_fields(int count, const CellSizes& movable, const CellSizes& fillers,
                                         const FixedCells& fixed, double target_density,
                                         std::int64_t stride = -1);

}  // namespace efield
