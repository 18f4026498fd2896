// The CUDA 3D electrostatic pipeline, stage for stage the CPU one (pipeline3d_cpu.cpp):
//   rasterize (a thread per cell, 64-bit fixed-point atomics) -> density (rho, overflow and max
//   density partials; clears the maps) -> Plan3D Dct -> spectral (energy partials, the field
//   transforms' inputs) -> Plan3D Idct of each field (and of phi with GradientScale::Exact) ->
//   pack (the three fields, signed, into one {Ex, Ey, Ez, 0} map; not with Exact) -> gather (a
//   thread per cell, one vector load per bin) -> finalize (fixed-order sums into device_result)
//   -> result copy.
// The layout hook (pipeline3d_layout.hpp) swaps in, for float, the tile rasterize and its density
// pass (tile_density3d.cuh; evaluate repeats a run whose float tiles flagged a bin, with 64-bit
// tiles), and, with the DreamPlace scale, the batched field inverse that writes the packed map
// itself, optionally with the spectral pass and then the forward DCT folded in
// (field_inverse3d.cuh): density -> R2C -> one group kernel -> batched C2R -> pack.
// Everything is enqueued on the system's stream and, with use_cuda_graph, captured once per
// (pointers, accumulate, bins) and replayed. Host arrays go through staging buffers made at
// construction. No call allocates.
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/device_scope.hpp"
#include "common/grid_stride.cuh"
#include "common/host_staging.cuh"
#include "common/log.hpp"
#include "efield/transforms.hpp"
#include "electrostatics3d/graph_slots.cuh"
#include "electrostatics3d/stage_events.cuh"
#include "electrostatics3d/backend3d.hpp"
#include "electrostatics3d/field_inverse3d.cuh"
#include "electrostatics3d/kernels3d.cuh"
#include "electrostatics3d/map_download3d.cuh"
#include "electrostatics3d/pipeline3d_layout.hpp"
#include "electrostatics3d/tile_density3d.cuh"

namespace efield::detail {

__global__ void finalize3d_kernel(const double* partial_overflow, const double* partial_max, int density_blocks,
                                  const double* partial_energy, int spectral_blocks, unsigned long long* outside,
                                  ResultScales3D scales, double* result) {
  __shared__ double shared[kThreads3D];
  // Each thread sums a fixed strided subset in order; the tree then combines them in a fixed order.
  double o = 0, m = 0, e = 0;
  for (int b = threadIdx.x; b < density_blocks; b += blockDim.x) {
    o += partial_overflow[b];
    m = m > partial_max[b] ? m : partial_max[b];
  }
  for (int b = threadIdx.x; b < spectral_blocks; b += blockDim.x) e += partial_energy[b];
  o = block_reduce3d<false>(o, shared);
  __syncthreads();
  m = block_reduce3d<true>(m, shared);
  __syncthreads();
  e = block_reduce3d<false>(e, shared);
  if (threadIdx.x == 0) {
    result[0] = e * scales.energy;
    result[1] = scales.movable_volume > 0 ? o * scales.volume / scales.movable_volume : 0.0;
    result[2] = m;
    unsigned long long kind[2] = {0, 0};
    for (int slot = 0; slot < 2 * kEsTotalSlots; ++slot) {
      kind[slot & 1] += outside[slot];
      outside[slot] = 0;
    }
    result[3] = static_cast<double>(static_cast<long long>(kind[0])) * scales.outside;
    result[4] = static_cast<double>(static_cast<long long>(kind[1])) * scales.outside;
    result[5] = outside[kOutsideFlag3D] != 0 ? 1.0 : 0.0;
    outside[kOutsideFlag3D] = 0;
  }
}

namespace {

int reduce_blocks(std::int64_t work) {
  return static_cast<int>(std::min<std::int64_t>(kReduceBlocks3D, std::max<std::int64_t>(1, (work + kThreads3D - 1) / kThreads3D)));
}

PlanOptions cuda_plan_options() {
  PlanOptions p;
  p.backend = Backend::Cuda;
  return p;
}

template <typename T>
class CudaPipeline3D final : public ElectrostaticBackend3D {
 public:
  using ElectrostaticBackend3D::evaluate;
  using ElectrostaticBackend3D::evaluate_async;
  using ElectrostaticBackend3D::profile;

  explicit CudaPipeline3D(Design3D design)
      : ElectrostaticBackend3D(std::move(design)),
        device_(current_cuda_device()),
        stream_(reinterpret_cast<cudaStream_t>(design_.options.stream)),
        bins_(design_.num_bins()),
        dct_(Transform3D::Dct, design_.options.num_bins_x, design_.options.num_bins_y, design_.options.num_bins_z,
             cuda_plan_options()),
        idct_(Transform3D::Idct, design_.options.num_bins_x, design_.options.num_bins_y, design_.options.num_bins_z,
              cuda_plan_options()),
        acc_movable_(bins_),
        acc_filler_(bins_),
        fixed_rho_(bins_),
        rho_(bins_),
        coef_(bins_),
        phi_(bins_),
        density_blocks_(reduce_blocks(bins_)),
        partial_overflow_(density_blocks_),
        partial_max_(density_blocks_),
        partial_energy_(density_blocks_),
        outside_(kOutsideFlag3D + 1),
        result_(6),
        host_result_(6),
        weight_(1) {
    field_inputs_ = DeviceBuffer<T>(static_cast<std::size_t>(3 * bins_));
    spectral_ = make_spectral_grid3d<T>(design_);
    exact_ = design_.options.gradient_scale == GradientScale::Exact;
    if (!exact_) packed_field_ = DeviceBuffer<PackedField3D<T>>(static_cast<std::size_t>(bins_));
    const ElectrostaticOptions3D& o = design_.options;
    const Es3DPipelineLayout layout = es3d_pipeline_layout();
    if (layout.tile_rasterize && std::is_same_v<T, float>) {
      const std::int64_t tile_layers = tile3d_map_size(o.num_bins_x, o.num_bins_y, o.num_bins_z) / 4;
      tiles_ = std::make_unique<TileDensity3D>(o.num_bins_x, o.num_bins_y, o.num_bins_z,
                                               design_.bx * design_.by * design_.bz, reduce_blocks(tile_layers));
      always_wide_ = layout.wide_tiles;
      wide_next_ = always_wide_;
    }
    if (layout.batched_field_inverse && !exact_ && o.num_bins_x >= 2 && o.num_bins_y >= 2 && o.num_bins_z >= 2) {
      fused_spectral_ = layout.fused_spectral_inverse;
      fused_forward_ = fused_spectral_ && layout.fused_forward && tiles_ != nullptr;
      batched_inverse_ =
          std::make_unique<FieldInverse3D<T>>(o.num_bins_x, o.num_bins_y, o.num_bins_z, fused_forward_);
    }
    const std::int64_t n = design_.required_length();
    for (int a = 0; a < 3; ++a) {
      staged_pos_[a] = DeviceBuffer<T>(static_cast<std::size_t>(n));
      staged_grad_[a] = DeviceBuffer<T>(static_cast<std::size_t>(n));
    }
    const std::size_t nc = static_cast<std::size_t>(design_.num_cells());
    w_ = DeviceBuffer<T>(nc), h_ = DeviceBuffer<T>(nc), d_ = DeviceBuffer<T>(nc);
    macro_mask_ = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(design_.num_movable()));
    EFIELD_CUDA_CHECK(cudaMemset(acc_movable_.get(), 0, acc_movable_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(acc_filler_.get(), 0, acc_filler_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(outside_.get(), 0, outside_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(result_.get(), 0, result_.bytes()));
    std::memset(host_result_.get(), 0, host_result_.bytes());
    upload_sizes();
    upload_fixed();
    inv_scale_ = static_cast<T>(std::ldexp(1.0, -FixedPointBits<T>::value));
    const double vol = design_.bx * design_.by * design_.bz;
    scales_ = {static_cast<double>(bins_) / 4.0, vol, design_.movable_volume, std::ldexp(vol, -kOutsideFractionBits)};
  }
  ~CudaPipeline3D() override { cudaStreamSynchronize(stream_); }  // no work still reads the buffers

  EvaluateResult evaluate(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) override {
    const DeviceScope scope(device_);
    if (design_.num_cells() > 0 && !is_device_pointer(x)) {
      evaluate_host(x, y, z, gx, gy, gz, eo);
    } else {
      run_checked(x, y, z, gx, gy, gz, eo);
    }
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    record_check();
    return host_result();
  }
  // Never bins that check (their rerun would need the host): the 64-bit tiles with the tile
  // rasterize, which give the same bits as evaluate.
  void evaluate_async(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) override {
    const DeviceScope scope(device_);
    enqueue_evaluate(x, y, z, gx, gy, gz, eo, tiles_ ? Bins3D::WideTiles : Bins3D::Fixed);
  }
  EvaluateResult wait_result() override {
    const DeviceScope scope(device_);
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host_result();
  }
  const double* device_result() const override { return result_.get(); }

  StageTimes profile(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, int reps) override {
    const DeviceScope scope(device_);
    if (design_.num_cells() > 0 && !is_device_pointer(x)) {  // host arrays: staged once, outside the timing
      evaluate_host(x, y, z, gx, gy, gz, {});
      x = staged_pos_[0].get(), y = staged_pos_[1].get(), z = staged_pos_[2].get();
      gx = staged_grad_[0].get(), gy = staged_grad_[1].get(), gz = staged_grad_[2].get();
    }
    run_checked(x, y, z, gx, gy, gz, {});  // warm-up (and the graph's capture)
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    record_check();
    const Bins3D bins = first_bins();  // a run that checks and fails is timed without its rerun
    StageEvents events;
    std::vector<double> t[6];
    for (int r = 0; r < reps; ++r) {
      EFIELD_CUDA_CHECK(cudaEventRecord(events.e[6], stream_));
      enqueue_stages(x, y, z, gx, gy, gz, false, bins, stream_, events.e);
      EFIELD_CUDA_CHECK(cudaEventRecord(events.e[5], stream_));
      enqueue_evaluate(x, y, z, gx, gy, gz, {}, bins);
      EFIELD_CUDA_CHECK(cudaEventRecord(events.e[7], stream_));
      EFIELD_CUDA_CHECK(cudaEventSynchronize(events.e[7]));
      const cudaEvent_t start[5] = {events.e[6], events.e[0], events.e[1], events.e[2], events.e[3]};
      for (int s = 0; s < 5; ++s) t[s].push_back(events.ms(start[s], events.e[s]));
      t[5].push_back(events.ms(events.e[5], events.e[7]));
    }
    return median_stage_times(t, reps);
  }
  void set_stream(Stream stream) override { stream_ = reinterpret_cast<cudaStream_t>(stream); }
  int device() const noexcept override { return device_; }

  std::vector<double> density_map() override {
    const std::vector<T> rho = natural_rho();
    return host_map3d(rho.data(), grid_, -1);
  }
  std::vector<double> field_map(int axis) override {
    if (batched_inverse_) return download_packed(axis);
    return download(field(axis), axis);
  }
  std::vector<double> potential_map() override {
    const DeviceScope scope(device_);
    if (!exact_) {  // GradientScale::Exact computed it in evaluate
      if (fused_forward_) {  // evaluate made no coefficient map: the forward DCT of rho here
        const std::vector<T> rho = natural_rho();
        EFIELD_CUDA_CHECK(cudaMemcpyAsync(phi_.get(), rho.data(), rho.size() * sizeof(T), cudaMemcpyHostToDevice,
                                          stream_));
        dct_.execute(phi_.get(), coef_.get(), stream_);
      }
      spectral3d_kernel<T><<<density_blocks_, kThreads3D, 0, stream_>>>(spectral_, coef_.get(), nullptr, nullptr,
                                                                        nullptr, phi_.get(), nullptr);
      EFIELD_CUDA_CHECK_LAUNCH();
      idct_.execute(phi_.get(), phi_.get(), stream_);
    }
    return download(phi_.get(), -1);
  }
  std::vector<double> fixed_map() override { return fixed_natural_; }
  void update_fixed_cells(const FixedCells3D& fixed) override {
    const DeviceScope scope(device_);
    design_.fixed = fixed;
    upload_fixed();
  }
  Backend backend() const noexcept override { return Backend::Cuda; }

 protected:
  void sizes_changed() override {
    const DeviceScope scope(device_);
    upload_sizes();
    scales_.movable_volume = design_.movable_volume;  // a kernel argument: the graph is captured again
    graphs_.reset();
  }

 private:
  void upload_sizes() {
    std::vector<T> w, h, d;
    cell_sizes3d<T>(design_, &w, &h, &d);
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));  // no replay still reads the old sizes
    if (!w.empty()) {
      w_.upload(w.data(), w.size());
      h_.upload(h.data(), h.size());
      d_.upload(d.data(), d.size());
    }
    grid_ = make_grid3d<T>(design_);
    if (grid_.movable_macro) {  // the kernels read the mask's device copy
      macro_mask_.upload(grid_.movable_macro, macro_mask_.size());
      grid_.movable_macro = macro_mask_.get();
    }
  }

  void upload_fixed() {
    fixed_natural_ = compute_fixed_map3d(design_);
    const double inv_vol = 1.0 / (design_.bx * design_.by * design_.bz);
    std::vector<T> rho(fixed_natural_.size());
    for (std::size_t i = 0; i < rho.size(); ++i) rho[i] = static_cast<T>(fixed_natural_[i] * inv_vol);
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    fixed_rho_.upload(rho.data(), rho.size());
    if constexpr (std::is_same_v<T, float>) {
      if (tiles_) tiles_->upload_fixed(rho);
    }
  }

  EvaluateResult host_result() const {
    const double* r = host_result_.get();
    EvaluateResult res;
    res.energy = r[0], res.overflow = r[1], res.max_density = r[2];
    res.movable_area_outside = r[3], res.filler_area_outside = r[4];
    return res;
  }

  // A natural-layout map on the host; axis >= 0 applies that sine axis' sign (field_sign3d).
  std::vector<double> download(const T* map, int axis) {
    const DeviceScope scope(device_);
    return host_map3d(download_map3d(map, bins_, stream_).data(), grid_, axis);
  }
  // rho of the latest evaluate in the natural layout (fused_forward_ keeps it in the Makhoul order).
  std::vector<T> natural_rho() {
    const DeviceScope scope(device_);
    std::vector<T> rho = download_map3d(rho_.get(), bins_, stream_);
    return fused_forward_ ? natural_from_makhoul3d(rho, grid_.M, grid_.N, grid_.L) : rho;
  }
  // Ex, Ey or Ez (signs applied) from the packed map the batched inverse wrote.
  std::vector<double> download_packed(int axis) {
    const DeviceScope scope(device_);
    return host_map3d(packed_component3d(packed_field_.get(), bins_, axis, stream_).data(), grid_, -1);
  }

  // Host arrays: positions (and gradients when accumulating) into the staging buffers, the device
  // evaluate on them, the gradients back. Only the movable and filler ranges move (and the gap
  // when zero_gap_gradient writes it).
  void evaluate_host(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) {
    const std::int64_t nm = design_.num_movable(), nf = design_.num_fillers(), fo = design_.options.filler_offset;
    const T* pos[3] = {x, y, z};
    T* grad[3] = {gx, gy, gz};
    const auto copy = [&](void* dst, const void* src, std::int64_t first, std::int64_t count, cudaMemcpyKind kind) {
      if (count <= 0) return;
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(static_cast<T*>(dst) + first, static_cast<const T*>(src) + first,
                                        static_cast<std::size_t>(count) * sizeof(T), kind, stream_));
    };
    for (int a = 0; a < 3; ++a) {
      copy(staged_pos_[a].get(), pos[a], 0, nm, cudaMemcpyHostToDevice);
      copy(staged_pos_[a].get(), pos[a], fo, nf, cudaMemcpyHostToDevice);
      if (eo.accumulate) {
        copy(staged_grad_[a].get(), grad[a], 0, nm, cudaMemcpyHostToDevice);
        copy(staged_grad_[a].get(), grad[a], fo, nf, cudaMemcpyHostToDevice);
      }
    }
    run_checked(staged_pos_[0].get(), staged_pos_[1].get(), staged_pos_[2].get(), staged_grad_[0].get(),
                staged_grad_[1].get(), staged_grad_[2].get(), eo);
    const bool gap = design_.options.zero_gap_gradient && !eo.accumulate;
    for (int a = 0; a < 3; ++a) {
      if (gap) {
        copy(grad[a], staged_grad_[a].get(), 0, fo + nf, cudaMemcpyDeviceToHost);
      } else {
        copy(grad[a], staged_grad_[a].get(), 0, nm, cudaMemcpyDeviceToHost);
        copy(grad[a], staged_grad_[a].get(), fo, nf, cudaMemcpyDeviceToHost);
      }
    }
  }

  // The density bins of one run: today's 64-bit fixed-point bins (natural layout), or the tile
  // rasterize's float tiles (checked: a flagged run is repeated) or 64-bit tiles (tile_density3d.cuh).
  enum class Bins3D { Fixed, FloatTiles, WideTiles };

  // The bins evaluate starts with: the float tiles unless the latest evaluate's sums (either kind
  // of tiles flags alike) would not fit them or the layout asks for 64-bit tiles.
  Bins3D first_bins() const {
    if (!tiles_) return Bins3D::Fixed;
    return wide_next_ ? Bins3D::WideTiles : Bins3D::FloatTiles;
  }
  // The latest evaluate's check (after its stream synchronized): its sums choose the next bins.
  void record_check() {
    if (tiles_) wide_next_ = always_wide_ || host_result_.get()[5] != 0.0;
  }

  // One evaluate on device arrays: with float tiles, waits for the run and repeats it with 64-bit
  // tiles when a bin was flagged (its gather wrote nothing).
  void run_checked(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) {
    const Bins3D bins = first_bins();
    enqueue_evaluate(x, y, z, gx, gy, gz, eo, bins);
    if (bins != Bins3D::FloatTiles) return;
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (host_result_.get()[5] == 0.0) return;
    log().debug(
        "ElectrostaticSystem3D (CUDA): a float tile bin reached 2^24 units (pile-up); evaluating with 64-bit tiles");
    enqueue_evaluate(x, y, z, gx, gy, gz, eo, Bins3D::WideTiles);
  }

  struct Key {
    const void* p[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    bool accumulate = false;
    Bins3D bins = Bins3D::Fixed;
    bool operator==(const Key& o) const {
      for (int a = 0; a < 6; ++a)
        if (p[a] != o.p[a]) return false;
      return accumulate == o.accumulate && bins == o.bins;
    }
  };

  void enqueue_evaluate(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo,
                        Bins3D bins) {
    // The weight lives in device memory (outside the graph), so replays take the current one.
    set_weight3d_kernel<T><<<1, 1, 0, stream_>>>(weight_.get(), static_cast<T>(eo.weight));
    EFIELD_CUDA_CHECK_LAUNCH();
    if (!design_.options.use_cuda_graph) {
      enqueue_stages(x, y, z, gx, gy, gz, eo.accumulate, bins, stream_);
      return;
    }
    // Captured on a stream of our own (the legacy default stream cannot be captured), replayed on
    // the system's.
    const auto enqueue = [&] { enqueue_stages(x, y, z, gx, gy, gz, eo.accumulate, bins, capture_stream_.get()); };
    Key key;
    const void* p[6] = {x, y, z, gx, gy, gz};
    for (int a = 0; a < 6; ++a) key.p[a] = p[a];
    key.accumulate = eo.accumulate;
    key.bins = bins;
    graphs_.launch(key, capture_stream_.get(), stream_, enqueue);
  }

  // events (profile only): recorded after the density, forward, spectral, inverse and gather stages.
  void enqueue_stages(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, bool accumulate, Bins3D bins,
                      cudaStream_t s, cudaEvent_t* events = nullptr) {
    const auto mark = [&](int stage) {
      if (events) EFIELD_CUDA_CHECK(cudaEventRecord(events[stage], s));
    };
    const std::int64_t nc = design_.num_cells();
    const unsigned cell_blocks = grid_stride_blocks(nc, kThreads3D);
    const int density_blocks = bins == Bins3D::Fixed ? density_blocks_ : tiles_->blocks();
    if (bins == Bins3D::Fixed) {
      if (nc > 0) {
        rasterize3d_kernel<T><<<cell_blocks, kThreads3D, 0, s>>>(
            grid_, x, y, z, w_.get(), h_.get(), d_.get(), acc_movable_.get(), acc_filler_.get(), outside_.get());
        EFIELD_CUDA_CHECK_LAUNCH();
      }
      density3d_kernel<T><<<density_blocks_, kThreads3D, 0, s>>>(
          bins_, acc_movable_.get(), acc_filler_.get(), fixed_rho_.get(), rho_.get(), inv_scale_,
          static_cast<T>(design_.options.target_density), partial_overflow_.get(), partial_max_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
    } else if constexpr (std::is_same_v<T, float>) {
      TileDensityArgs3D pass{};
      pass.rho = rho_.get();
      pass.target_density = static_cast<float>(design_.options.target_density);
      pass.partial_overflow = partial_overflow_.get();
      pass.partial_max = partial_max_.get();
      pass.flag = outside_.get() + kOutsideFlag3D;
      pass.makhoul = fused_forward_;
      tiles_->enqueue(grid_, x, y, z, w_.get(), h_.get(), d_.get(), bins == Bins3D::WideTiles, pass, outside_.get(), s);
    }
    mark(0);
    if (fused_forward_) batched_inverse_->forward(rho_.get(), s);
    else dct_.execute(rho_.get(), coef_.get(), s);
    mark(1);
    const int energy_blocks = fused_spectral_ ? reduce_blocks(batched_inverse_->groups()) : density_blocks_;
    if (!fused_spectral_) {
      spectral3d_kernel<T><<<density_blocks_, kThreads3D, 0, s>>>(spectral_, coef_.get(), field(0), field(1), field(2),
                                                                  exact_ ? phi_.get() : nullptr, partial_energy_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
    }
    mark(2);
    if (fused_forward_) {
      batched_inverse_->execute_from_spectrum(spectral_, packed_field_.get(), partial_energy_.get(), energy_blocks, s);
    } else if (fused_spectral_) {
      batched_inverse_->execute_from_coefficients(coef_.get(), spectral_, packed_field_.get(), partial_energy_.get(),
                                                  energy_blocks, s);
    } else if (batched_inverse_) {
      batched_inverse_->execute(field_inputs_.get(), packed_field_.get(), s);  // writes the packed map too
    } else {
      for (int a = 0; a < 3; ++a) idct_.execute(field(a), field(a), s);
      if (exact_) idct_.execute(phi_.get(), phi_.get(), s);
    }
    mark(3);
    if (nc > 0) {
      if (!exact_ && !batched_inverse_) {
        pack_fields3d_kernel<T><<<grid_stride_blocks(bins_, kThreads3D), kThreads3D, 0, s>>>(
            grid_.N, grid_.L, bins_, field(0), field(1), field(2), packed_field_.get());
        EFIELD_CUDA_CHECK_LAUNCH();
      }
      gather3d_kernel<T><<<cell_blocks, kThreads3D, 0, s>>>(grid_, x, y, z, w_.get(), h_.get(), d_.get(),
                                                            packed_field_.get(), exact_ ? phi_.get() : nullptr,
                                                            weight_.get(), accumulate,
                                                            bins == Bins3D::FloatTiles ? outside_.get() + kOutsideFlag3D : nullptr,
                                                            gx, gy, gz);
      EFIELD_CUDA_CHECK_LAUNCH();
    }
    const std::int64_t gap = design_.options.filler_offset - design_.num_movable();
    if (design_.options.zero_gap_gradient && !accumulate && gap > 0 && nc > 0) {
      for (T* g : {gx, gy, gz})
        EFIELD_CUDA_CHECK(cudaMemsetAsync(g + design_.num_movable(), 0, static_cast<std::size_t>(gap) * sizeof(T),
                                          s));
    }
    finalize3d_kernel<<<1, kThreads3D, 0, s>>>(partial_overflow_.get(), partial_max_.get(), density_blocks,
                                                     partial_energy_.get(), energy_blocks, outside_.get(), scales_,
                                                     result_.get());
    EFIELD_CUDA_CHECK_LAUNCH();
    EFIELD_CUDA_CHECK(
        cudaMemcpyAsync(host_result_.get(), result_.get(), result_.bytes(), cudaMemcpyDeviceToHost, s));
    mark(4);
  }

  int device_ = -1;
  cudaStream_t stream_ = nullptr;
  std::int64_t bins_ = 0;
  Plan3D<T> dct_, idct_;
  DeviceBuffer<unsigned long long> acc_movable_, acc_filler_;
  DeviceBuffer<T> fixed_rho_, rho_, coef_, phi_;
  // [3][bins]: the spectral pass's field inputs, which the Plan3D runs turn in place into the
  // idct3d outputs y_x, y_y, y_z (sine axes' signs not applied); the batched inverse leaves them.
  DeviceBuffer<T> field_inputs_;
  DeviceBuffer<PackedField3D<T>> packed_field_;  // the gather's {Ex, Ey, Ez, 0} (not with Exact)
  int density_blocks_ = 1;
  DeviceBuffer<double> partial_overflow_, partial_max_, partial_energy_;
  DeviceBuffer<unsigned long long> outside_;  // outside volumes (outside_slot's pairs), the tiles' check flag
  DeviceBuffer<double> result_;
  PinnedBuffer<double> host_result_;
  DeviceBuffer<T> weight_;
  DeviceBuffer<T> staged_pos_[3], staged_grad_[3];
  DeviceBuffer<T> w_, h_, d_;
  DeviceBuffer<std::uint8_t> macro_mask_;
  Grid3D<T> grid_;
  SpectralGrid3D<T> spectral_;
  ResultScales3D scales_{};
  bool exact_ = false;
  T inv_scale_ = 0;
  std::vector<double> fixed_natural_;
  std::unique_ptr<TileDensity3D> tiles_;  // the tile rasterize (layout hook, float), else null
  bool always_wide_ = false;               // the layout's wide_tiles
  bool wide_next_ = false;                 // the next evaluate starts with 64-bit tiles
  std::unique_ptr<FieldInverse3D<T>> batched_inverse_;  // the batched field inverse (layout hook), else null
  bool fused_spectral_ = false;  // the spectral pass runs inside batched_inverse_ (layout hook)
  bool fused_forward_ = false;   // and the forward DCT's postprocess; rho_ in the Makhoul order
  T* field(int axis) const { return field_inputs_.get() + axis * bins_; }
  OwnedStream capture_stream_;
  GraphSlots<Key> graphs_;
};

}  // namespace

std::unique_ptr<ElectrostaticBackend3D> make_cuda_pipeline3d(Design3D design) {
  if (design.options.precision == Precision::Double) return std::make_unique<CudaPipeline3D<double>>(std::move(design));
  return std::make_unique<CudaPipeline3D<float>>(std::move(design));
}

}  // namespace efield::detail
