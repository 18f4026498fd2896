// The batched CUDA pipeline of MultiFieldSystem (MultiFieldPipeline::Batched): all K fields in
// one pipeline instead of K pipelines. Per evaluate, on the system's stream (the parts common to
// both pipelines: multi_field_cuda_base.cuh), eight launches whatever K:
//   batched_rasterize (every field's cells -> its movable and filler 64-bit maps) ->
//   batched_density (rho [K][M N], overflow/max partials) -> cuFFT R2C, batch K ->
//   batched_spectral (C2C input, energy partials) -> cuFFT C2C inverse, batch K, in place ->
//   batched_field_tiles -> batched_gather (w_k g at each cell's entry), with batched_finalize
//   (every field's scalars into pinned memory) on a side branch from the spectral pass on, beside
//   the inverse FFT and the gather (as the 2D pipeline runs its finalize).
// 64-bit fixed-point bins in float and double (order-free sums, so the maps are those of the
// per-field pipeline bit for bit); no exact float maps, so no re-run. Everything is made here:
// the fields' designs (validated as their systems would be), geometry, sizes, fixed maps, the
// per-field argument structs of the 2D passes (device memory), the batched cuFFT plans.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/cufft_plan.cuh"
#include "common/cufft_real.cuh"
#include "common/device_buffer.cuh"
#include "common/device_scope.hpp"
#include "electrostatics/backend.hpp"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/pipeline_setup.hpp"
#include "electrostatics/spectral_stage.cuh"
#include "math/twiddle.hpp"
#include "multi_field/batched_kernels.cuh"
#include "multi_field/batched_multi_field.hpp"
#include "multi_field/multi_field_cuda_base.cuh"

namespace efield::detail {
namespace {

template <typename T>
class BatchedMultiField final : public CudaMultiFieldBase<T> {
  using Base = CudaMultiFieldBase<T>;
  using Cpx = Complex<T>;
  using Base::main_;
  using Base::params_;
  using Base::results_host_;
  using MultiFieldBackend::layout_;

 public:
  explicit BatchedMultiField(MultiFieldLayout layout) : Base(std::move(layout)) {
    try {
      this->init();
      EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
      EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
      EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
      build();
      EFIELD_CUDA_CHECK(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~BatchedMultiField() override { release(); }

  std::vector<double> density_map(int k) const override {
    const DeviceScope scope(this->device_);
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(main_));
    std::vector<T> host(static_cast<size_t>(bins_));
    EFIELD_CUDA_CHECK(cudaMemcpy(host.data(), rho_.get() + static_cast<std::int64_t>(k) * bins_, bins_ * sizeof(T),
                                 cudaMemcpyDeviceToHost));
    return unpermute(host.data(), M_, N_, -1);
  }

 private:
  void release() noexcept {
    this->release_base();
    const DeviceScope scope(this->device_);
    if (side_) cudaStreamSynchronize(side_), cudaStreamDestroy(side_), side_ = nullptr;
    for (cudaEvent_t* e : {&fork_, &join_})
      if (*e) cudaEventDestroy(*e), *e = nullptr;
  }

  void build() {
    const MultiFieldLayout& l = layout_;
    const int K = l.num_fields();
    std::vector<ElectrostaticDesign> designs;
    for (int k = 0; k < K; ++k) designs.push_back(make_field_design(l, k));
    const ElectrostaticDesign& d0 = designs[0];  // the grid and region are every field's
    M_ = d0.options.num_bins_x, N_ = d0.options.num_bins_y;
    bins_ = static_cast<std::int64_t>(M_) * N_;
    const std::int64_t half = static_cast<std::int64_t>(M_) * (N_ / 2 + 1), tile_map = es_tile_map_size(M_, N_);
    const double bin_area = d0.bx * d0.by;

    // The cells: sizes per slot, each field's geometry, the large cells' slots, the masks.
    const std::int64_t slots = l.num_slots();
    std::vector<T> w(static_cast<size_t>(slots)), h(w.size());
    std::vector<CellGeometry<T>> geometry;
    std::vector<std::int32_t> large;
    std::vector<std::uint8_t> masks;
    std::vector<std::int64_t> mask_at(static_cast<size_t>(K), -1);
    for (int k = 0; k < K; ++k) {
      const ElectrostaticDesign& d = designs[static_cast<size_t>(k)];
      geometry.push_back(make_cell_geometry<T>(d));
      if (d.has_movable_macros()) {
        mask_at[static_cast<size_t>(k)] = static_cast<std::int64_t>(masks.size());
        masks.insert(masks.end(), d.movable.movable_macro_mask.begin(), d.movable.movable_macro_mask.end());
      }
      for (std::int64_t c = 0; c < d.num_cells(); ++c) {
        const std::int64_t s = l.offset[static_cast<size_t>(k)] + c;
        w[static_cast<size_t>(s)] = static_cast<T>(d.width(c));
        h[static_cast<size_t>(s)] = static_cast<T>(d.height(c));
        if (is_large_cell(geometry.back(), w[static_cast<size_t>(s)], h[static_cast<size_t>(s)]))
          large.push_back(static_cast<std::int32_t>(s));
      }
    }
    if (!masks.empty()) masks_ = DeviceBuffer<std::uint8_t>(masks);
    for (size_t k = 0; k < geometry.size(); ++k)
      if (mask_at[k] >= 0) geometry[k].movable_macro = masks_.get() + mask_at[k];
    geometry_ = DeviceBuffer<CellGeometry<T>>(geometry);
    grid_ = geometry[0];
    offset_ = DeviceBuffer<std::int64_t>(l.offset);
    if (slots > 0) {
      field_ = DeviceBuffer<std::int32_t>(l.slot_field);
      entry_ = DeviceBuffer<std::int64_t>(l.slot_entry);
      w_ = DeviceBuffer<T>(w);
      h_ = DeviceBuffer<T>(h);
    }
    if (!large.empty()) large_ = DeviceBuffer<std::int32_t>(large);
    num_large_ = static_cast<int>(large.size());

    // The maps, each field's at k times the map's size.
    maps_ = DeviceBuffer<EsAccum>(static_cast<size_t>(2 * K * bins_));
    EFIELD_CUDA_CHECK(cudaMemset(maps_.get(), 0, maps_.bytes()));
    outside_ = DeviceBuffer<EsAccum>(static_cast<size_t>(2 * K * kEsTotalSlots));
    EFIELD_CUDA_CHECK(cudaMemset(outside_.get(), 0, outside_.bytes()));
    std::vector<T> fixed_rho;
    for (const ElectrostaticDesign& d : designs) {
      const std::vector<T> f = fixed_density_at<T>(d, compute_fixed_map(d), static_cast<size_t>(bins_),
                                                   [&](int m, int n) { return static_cast<std::size_t>(m) * N_ + n; });
      fixed_rho.insert(fixed_rho.end(), f.begin(), f.end());
    }
    fixed_rho_ = DeviceBuffer<T>(fixed_rho);
    rho_ = DeviceBuffer<T>(static_cast<size_t>(K * bins_));
    EFIELD_CUDA_CHECK(cudaMemset(rho_.get(), 0, rho_.bytes()));
    spectrum_ = DeviceBuffer<Cpx>(static_cast<size_t>(K * half));
    EFIELD_CUDA_CHECK(cudaMemset(spectrum_.get(), 0, spectrum_.bytes()));
    z_ = DeviceBuffer<Cpx>(static_cast<size_t>(K * bins_));
    EFIELD_CUDA_CHECK(cudaMemset(z_.get(), 0, z_.bytes()));
    e_map_ = DeviceBuffer<EsVec2<T>>(static_cast<size_t>(K * tile_map));
    EFIELD_CUDA_CHECK(cudaMemset(e_map_.get(), 0, e_map_.bytes()));  // the padding stays 0
    one_ = DeviceBuffer<T>(std::vector<T>{T(1)});
    const std::vector<Cpx> tw_m = quarter_twiddles<T>(M_), tw_n = quarter_twiddles<T>(N_);
    tw_m_ = DeviceBuffer<Cpx>(tw_m);
    tw_n_ = DeviceBuffer<Cpx>(tw_n);

    // The 2D passes' argument structs, one per field (the same blocks per field as the 2D pipeline).
    density_blocks_ = es_reduce_blocks(bins_);
    spectral_blocks_ = std::min(M_ / 2 + 1, kEsMaxReduceBlocks);
    part_overflow_ = DeviceBuffer<double>(static_cast<size_t>(K) * density_blocks_);
    part_max_ = DeviceBuffer<T>(static_cast<size_t>(K) * density_blocks_);
    part_energy_ = DeviceBuffer<double>(static_cast<size_t>(K) * spectral_blocks_);
    SpectralGrid<T> grid = make_spectral_grid<T>(d0);
    grid.tw_m = tw_m_.get();
    grid.tw_n = tw_n_.get();
    std::vector<DensityPassArgs<T>> density(static_cast<size_t>(K));
    std::vector<SpectralArgs<T>> spectral(static_cast<size_t>(K));
    std::vector<FinalizeArgs<T>> finalize(static_cast<size_t>(K));
    for (int k = 0; k < K; ++k) {
      const ElectrostaticDesign& d = designs[static_cast<size_t>(k)];
      const std::int64_t at = static_cast<std::int64_t>(k) * bins_;
      DensityPassArgs<T>& p = density[static_cast<size_t>(k)];
      p.bins = bins_;
      p.fixed_rho = fixed_rho_.get() + at;
      p.acc = maps_.get() + 2 * at;
      p.acc_filler = maps_.get() + 2 * at + bins_;
      p.rho = rho_.get() + at;
      p.inv_scale = static_cast<T>(std::ldexp(1.0, -FixedPointBits<T>::value));
      p.target_density = static_cast<T>(d.options.target_density);
      p.part_overflow = part_overflow_.get() + static_cast<std::int64_t>(k) * density_blocks_;
      p.part_max = part_max_.get() + static_cast<std::int64_t>(k) * density_blocks_;
      p.blocks = density_blocks_;
      SpectralArgs<T>& s = spectral[static_cast<size_t>(k)];
      s.g = grid;
      s.spectrum = spectrum_.get() + static_cast<std::int64_t>(k) * half;
      s.z = z_.get() + at;
      s.part_energy = part_energy_.get() + static_cast<std::int64_t>(k) * spectral_blocks_;
      s.blocks = spectral_blocks_;
      FinalizeArgs<T>& f = finalize[static_cast<size_t>(k)];  // as FinalizeStage::enqueue fills it
      f.part_overflow = p.part_overflow;
      f.part_max = p.part_max;
      f.density_blocks = density_blocks_;
      f.part_energy = s.part_energy;
      f.spectral_blocks = spectral_blocks_;
      f.energy_scale = static_cast<double>(M_) * N_ / 4.0;
      f.overflow_scale = d.movable_area > 0 ? bin_area / d.movable_area : 0.0;
      f.outside = outside_.get() + 2 * static_cast<std::int64_t>(k) * kEsTotalSlots;
      f.outside_scale = std::ldexp(bin_area, -kOutsideFractionBits);
      f.result = results_host_.get() + static_cast<std::int64_t>(k) * kEsResultSlots;
    }
    density_args_ = DeviceBuffer<DensityPassArgs<T>>(density);
    spectral_args_ = DeviceBuffer<SpectralArgs<T>>(spectral);
    finalize_args_ = DeviceBuffer<FinalizeArgs<T>>(finalize);
    to_fixed_ = static_cast<T>(std::ldexp(1.0, FixedPointBits<T>::value) / bin_area);

    forward_ = make_es_2d_plan(M_, N_, K, CufftReal<T>::r2c, main_);
    inverse_ = make_es_2d_plan(M_, N_, K, CufftReal<T>::c2c, main_);
  }

  void stream_changed() override {
    for (const CufftPlan* plan : {&forward_, &inverse_}) EFIELD_CUFFT_CHECK(cufftSetStream(plan->get(), main_));
  }

  BatchedCells<T> cells(const T* x, const T* y) const {
    BatchedCells<T> c{};
    c.grid = grid_;
    c.geometry = geometry_.get();
    c.offset = offset_.get();
    c.field = field_.get();
    c.entry = entry_.get();
    c.w = w_.get();
    c.h = h_.get();
    c.slots = layout_.num_slots();
    c.large = large_.get();
    c.num_large = num_large_;
    c.x = x;
    c.y = y;
    return c;
  }

  void enqueue_fields(const T* x, const T* y, T* gx, T* gy) override {
    const int K = layout_.num_fields();
    BatchedRasterizeArgs<T> r{};
    r.cells = cells(x, y);
    r.maps = maps_.get();
    r.bins = bins_;
    r.to_fixed = to_fixed_;
    r.outside = outside_.get();
    launch_batched_rasterize(r, main_);
    launch_batched_density(density_args_.get(), K, density_blocks_, N_, main_);
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_r2c(forward_.get(), rho_.get(), spectrum_.get()));
    launch_batched_spectral(spectral_args_.get(), K, spectral_blocks_, main_);
    // finalize needs only the density and spectral partials: a parallel branch (of the graph),
    // joined at the end, not a serial step.
    EFIELD_CUDA_CHECK(cudaEventRecord(fork_, main_));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(side_, fork_, 0));
    launch_batched_finalize(finalize_args_.get(), K, side_);
    EFIELD_CUDA_CHECK(cudaEventRecord(join_, side_));
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2c(inverse_.get(), z_.get(), z_.get(), CUFFT_INVERSE));
    launch_batched_field_tiles(reinterpret_cast<const EsVec2<T>*>(z_.get()), e_map_.get(), K, M_, N_, one_.get(),
                               main_);
    BatchedGatherArgs<T> g{};
    g.cells = cells(x, y);
    g.e = e_map_.get();
    g.tile_map = es_tile_map_size(M_, N_);
    g.params = params_.get();
    g.num_fields = K;
    g.grad_x = gx;
    g.grad_y = gy;
    launch_batched_gather(g, main_);
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(main_, join_, 0));
  }

  cudaStream_t side_ = nullptr;  // finalize's branch
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  int M_ = 0, N_ = 0;
  std::int64_t bins_ = 0;
  int density_blocks_ = 1, spectral_blocks_ = 1;
  T to_fixed_ = T(1);
  int num_large_ = 0;
  DeviceBuffer<std::uint8_t> masks_;  // the fields' movable-macro masks (CellGeometry::movable_macro)
  CellGeometry<T> grid_;                   // field 0's: the grid's members (BatchedCells::grid)
  DeviceBuffer<CellGeometry<T>> geometry_;  // every field's
  DeviceBuffer<std::int64_t> offset_, entry_;
  DeviceBuffer<std::int32_t> field_, large_;
  DeviceBuffer<T> w_, h_;
  DeviceBuffer<EsAccum> maps_, outside_;
  DeviceBuffer<T> fixed_rho_, rho_, one_;
  DeviceBuffer<Cpx> spectrum_, z_, tw_m_, tw_n_;
  DeviceBuffer<EsVec2<T>> e_map_;
  DeviceBuffer<double> part_overflow_, part_energy_;
  DeviceBuffer<T> part_max_;
  DeviceBuffer<DensityPassArgs<T>> density_args_;
  DeviceBuffer<SpectralArgs<T>> spectral_args_;
  DeviceBuffer<FinalizeArgs<T>> finalize_args_;
  CufftPlan forward_, inverse_;
};

}  // namespace

std::unique_ptr<MultiFieldBackend> make_batched_multi_field(MultiFieldLayout layout) {
  if (layout.options.system.precision == Precision::Double)
    return std::make_unique<BatchedMultiField<double>>(std::move(layout));
  return std::make_unique<BatchedMultiField<float>>(std::move(layout));
}

}  // namespace efield::detail
