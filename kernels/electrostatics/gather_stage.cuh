#pragma once
// Internal: the gather stage of the CUDA pipeline: Ex + i Ey (the C2C output, permuted) -> the
// (Ex, Ey) map in 2 x 2-bin tiles with the gradient's weight folded in -> per cell the footprint's
// sum (or, GradientScale::Exact, the derivative from phi) -> the gradient, written or added, and
// the gap between movable cells and fillers zeroed on request. It owns the tiled field map and the
// weight (device memory, so that captured graphs stay valid when a placer changes it every
// iteration). Kernels: gather.cu.
#include <cstdint>

#include "common/cuda_check.cuh"
#include "electrostatics/backend.hpp"
#include "electrostatics/cell_table.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/large_cells.cuh"

namespace efield::detail {

template <typename T>
class GatherStage {
 public:
  GatherStage() = default;
  GatherStage(const ElectrostaticDesign& d, bool overlap, const CellTable<T>& cells)
      : large_(cells, d.options.num_bins_x, d.options.num_bins_y), M_(d.options.num_bins_x), N_(d.options.num_bins_y),
        overlap_(overlap),
        exact_(d.options.gradient_scale == GradientScale::Exact), zero_gap_(d.options.zero_gap_gradient) {
    e_map_ = EsDeviceArray<EsVec2<T>>(es_tile_map_size(M_, N_));
    EFIELD_CUDA_CHECK(cudaMemset(e_map_.get(), 0, e_map_.bytes()));  // the padding stays 0
    weight_ = EsDeviceArray<T>(1);
    es_upload(weight_.get(), &weight_now_, 1);
  }

  // Whether the gather reads phi (GradientScale::Exact): the spectral stage must make it.
  bool reads_potential() const { return exact_; }

  // EvaluateOptions::weight for the gathers enqueued from now on: a one-thread kernel on `stream`
  // when it changed.
  void set_weight(double weight, cudaStream_t stream) {
    const T next = static_cast<T>(weight);
    if (weight_known_ && next == weight_now_) return;
    launch_set_weight(weight_.get(), next, stream);
    weight_now_ = next;
    weight_known_ = true;
  }
  // The next set_weight enqueues its kernel whatever the value (a caller's graph captured ours,
  // and its replays set the weight it captured; or our graphs' weight node set it).
  void forget_weight() { weight_known_ = false; }
  // The weight's kernel into the graph being captured on `stream` (the graph cache changes its
  // value between replays: no launch of its own per evaluate).
  void enqueue_weight_node(double weight, cudaStream_t stream) const {
    launch_set_weight(weight_.get(), static_cast<T>(weight), stream);
  }

  // fields: the C2C output Ex + i Ey; potential: phi (read when reads_potential()). rerun_flag:
  // the density stage's flag of bins that check (the gather then writes nothing), or nullptr.
  void enqueue(const CellTable<T>& cells, const CellArrays<T>& at, const Complex<T>* fields, const T* potential,
               bool accumulate, const EsAccum* rerun_flag, cudaStream_t stream) const {
    if (!exact_) {  // the exact gather reads phi instead
      const EsVec2<T>* z = reinterpret_cast<const EsVec2<T>*>(fields);  // the same layout
      launch_field_tiles(z, e_map_.get(), M_, N_, weight_.get(), stream, overlap_);
    }
    GatherArgs<T> a{};
    a.g = cells.geometry(at.filler_offset);
    a.x = at.x;
    a.y = at.y;
    a.w = cells.widths();
    a.h = cells.heights();
    a.e = e_map_.get();
    a.grad_x = at.grad_x;
    a.grad_y = at.grad_y;
    a.num_cells = cells.num_cells();
    a.large_cells = cells.large_cells();
    a.num_warp_cells = cells.num_warp_cells();
    a.num_large = cells.num_large();
    a.weight = weight_.get();
    a.accumulate = accumulate;
    a.rerun_flag = rerun_flag;
    if (exact_) {
      launch_gather_exact(a, potential, stream);
    } else {
      large_.enqueue(cells, a, stream);  // chunked and difference-map cells (not in the large-cell lists)
      launch_gather(a, stream, overlap_);
    }
    const std::int64_t gap_begin = cells.num_movable(), gap_end = at.filler_offset;
    if (zero_gap_ && !accumulate && gap_end > gap_begin)
      launch_zero_gap(at.grad_x, at.grad_y, gap_begin, gap_end, stream);
  }

 private:
  LargeCellGather<T> large_;  // chunked and difference-map cells (large_cells.cuh)
  int M_ = 0, N_ = 0;
  bool overlap_ = false;
  bool exact_ = false;     // GradientScale::Exact: the gather reads phi
  bool zero_gap_ = false;  // ElectrostaticOptions::zero_gap_gradient
  EsDeviceArray<EsVec2<T>> e_map_;
  EsDeviceArray<T> weight_;  // [1] EvaluateOptions::weight
  T weight_now_ = T(1);      // what weight_ holds, when weight_known_
  bool weight_known_ = true;
};

}  // namespace efield::detail
