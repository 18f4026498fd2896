// The CUDA electrostatic pipeline: the ElectrostaticBackend that puts the stages together.
// Everything is made at construction (cuFFT plans, buffers, twiddles, the fixed map, pinned
// staging); then per evaluate one CUDA graph replay (graph_cache.cuh) of
//   density stage (rasterize -> density pass)  -> spectral stage (R2C -> spectral -> C2C in place)
//   -> gather stage (field tiles -> gather), with the finalize stage on a side branch.
// The stages, one job each (each file says what it owns):
//   cell_table.cuh       sizes and the large-cell lists, read by the density and gather stages
//   density_stage.cuh    cells -> rho, the overflow/max partials          (kernels: rasterize.cu)
//   spectral_stage.cuh   rho -> Ex + i Ey (and phi), the energy partials   (kernels: spectral.cu)
//   gather_stage.cuh     Ex + i Ey -> the gradient                          (kernels: gather.cu)
//   finalize_stage.cuh   partials -> the scalars in pinned memory          (kernels: finalize.cu)
//   host_array_path.cuh  host arrays: device copies, transfers, NaN check  (host_arrays.cuh/.cu)
//   pipeline_streams.cuh the stream, the caller's ordering, the side branch, events
//   graph_cache.cuh      one graph per choice, re-captured for new pointers
//   pipeline_policy.cuh  which bins (the pile-up state machine), launch parameters per GPU
//   measured_choices.cuh the GPU-dependent choices of measure mode (plan_effort) and the wisdom
//                        of the spectral stage, field_tiles and finalize
// This file holds the orchestration only: which bins, the re-runs after a flagged bin, host or
// device arrays, graphs or not, profiling, the maps on request.
#include <chrono>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "common/device_scope.hpp"
#include "common/log.hpp"
#include "electrostatics/backend.hpp"
#include "electrostatics/cell_table.cuh"
#include "electrostatics/density_stage.cuh"
#include "electrostatics/finalize_stage.cuh"
#include "electrostatics/gather_stage.cuh"
#include "electrostatics/graph_cache.cuh"
#include "electrostatics/host_array_path.cuh"
#include "electrostatics/measured_choices.cuh"
#include "electrostatics/pipeline_layout.hpp"
#include "electrostatics/pipeline_policy.cuh"
#include "electrostatics/pipeline_setup.hpp"
#include "electrostatics/pipeline_streams.cuh"
#include "electrostatics/spectral_stage.cuh"

namespace efield::detail {
namespace {

// The bins policy of a new system: float takes exact float maps unless the layout hook asks for
// 64-bit bins, whatever `deterministic` says (the fastest path, piled or spread:
// docs/performance.md, "deterministic = false"); deterministic = false lets evaluate_async take
// plain float atomics where deterministic evaluate_async takes 64-bit bins.
template <typename T>
BinsPolicy make_bins_policy(const ElectrostaticDesign& d, const EsPipelineLayout& layout) {
  constexpr bool is_float = std::is_same_v<T, float>;
  return BinsPolicy(is_float && !layout.wide_float_bins, is_float && !d.options.deterministic);
}

template <typename T>
typename DensityStage<T>::Layout density_layout(const ElectrostaticDesign& d, const EsPipelineLayout& layout,
                                                const BinsPolicy& policy, bool overlap) {
  const std::int64_t bins = static_cast<std::int64_t>(d.options.num_bins_x) * d.options.num_bins_y;
  typename DensityStage<T>::Layout l;
  l.two_maps = layout.maps == EsPipelineLayout::Maps::Two ||
               (layout.maps == EsPipelineLayout::Maps::BySize && bins <= kTwoMapsMaxBins);
  l.float_maps = policy.any_float_maps();
  l.checks = policy.any_checks();
  l.overlap = overlap;
  return l;
}

template <typename T>
class CudaPipeline final : public ElectrostaticBackend {
 public:
  using ElectrostaticBackend::evaluate;  // the other precision's overloads throw (backend.hpp)
  using ElectrostaticBackend::profile;
  using ElectrostaticBackend::evaluate_async;

  explicit CudaPipeline(ElectrostaticDesign design)
      : ElectrostaticBackend(std::move(design)), device_(current_cuda_device()), streams_(design_.options.stream) {
    const ElectrostaticDesign& d = design_;
    const EsPipelineLayout layout = es_pipeline_layout();  // the default unless a test or benchmark set one
    // Launch our kernels that follow another one with overlap (common/dependent_launch.cuh), so
    // each starts while the previous one finishes (bench_ispd/results/electrostatics.md).
    const bool overlap = dependent_launch_supported();
    policy_ = make_bins_policy<T>(d, layout);
    auto density_parts = density_layout<T>(d, layout, policy_, overlap);
    cells_ = CellTable<T>(d, layout.large_cells);
    if (layout.maps == EsPipelineLayout::Maps::BySize)  // measured_choices.cuh (plan_effort)
      density_parts.two_maps =
          choose_two_maps<T>(d, cells_, density_parts, device_, policy_.for_async() == Bins::Wide);
    log().debug("ElectrostaticSystem (CUDA): {} bins, {} accumulator map(s) for 64-bit bins",
                policy_.exact_float() ? "exact float" : policy_.any_float_maps() ? "float" : "64-bit",
                density_parts.two_maps ? 2 : 1);
    if (!d.options.deterministic && !std::is_same_v<T, float>)
      log().debug("ElectrostaticSystem (CUDA): deterministic=false in double runs the fixed-point pipeline");
    density_ = DensityStage<T>(d, density_parts, device_, cells_);
    spectral_ = SpectralStage<T>(d, streams_.stream(), overlap);
    gather_ = GatherStage<T>(d, overlap, cells_);
    host_path_ = std::make_unique<HostArrayPath<T>>(d);
    EFIELD_CUDA_CHECK(cudaDeviceSynchronize());
  }

  ~CudaPipeline() override {
    const DeviceScope scope(device_);
    streams_.release();  // waits for our latest evaluate first
    graphs_.reset();
  }

  EvaluateResult evaluate(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) override {
    const DeviceScope scope(device_);
    const bool on_device = on_device_arrays();
    streams_.order_after_caller();
    use_weight(eo.weight);
    if (!on_device) return evaluate_host(x, y, gx, gy, eo);
    Bins bins = policy_.for_evaluate();
    run_and_wait(true, x, y, gx, gy, bins, eo.accumulate);
    while (rerun_needed(bins)) {
      bins = BinsPolicy::wider(bins);
      run_and_wait(true, x, y, gx, gy, bins, eo.accumulate);
    }
    policy_.record(finalize_.result().max_density);
    return finalize_.result();
  }

  // Device arrays only (checked by the caller); never bins that check (their re-run would need
  // the host).
  void evaluate_async(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) override {
    const DeviceScope scope(device_);
    streams_.order_after_caller();
    const Bins bins = policy_.for_async();
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    EFIELD_CUDA_CHECK(cudaStreamIsCapturing(streams_.stream(), &capture));
    if (capture != cudaStreamCaptureStatusNone) {
      // The caller records our work into its own graph: enqueue the kernels themselves, the
      // weight's too (its replays set it), and let later calls set theirs again.
      gather_.forget_weight();
      gather_.set_weight(eo.weight, streams_.stream());
      gather_.forget_weight();
      enqueue_pipeline(caller_arrays(x, y, gx, gy), bins, eo.accumulate);
      return;  // the done event stays with the latest evaluate outside the capture
    }
    use_weight(eo.weight);
    launch(true, x, y, gx, gy, bins, eo.accumulate);
    streams_.record_done();
  }

  EvaluateResult wait_result() override {
    const DeviceScope scope(device_);
    streams_.wait_done();
    return finalize_.result();
  }
  const double* device_result() const override { return finalize_.device_result(); }
  int device() const noexcept override { return device_; }

  void set_stream(Stream stream) override {
    const DeviceScope scope(device_);
    if (streams_.set(stream)) spectral_.set_stream(streams_.stream());
  }

  StageTimes profile(const T* x, const T* y, T* gx, T* gy, int reps) override {
    const bool on_device = on_device_arrays();
    CellArrays<T> at = caller_arrays(x, y, gx, gy);
    const DeviceScope scope(device_);
    for (int i = 0; i < 3; ++i) evaluate(x, y, gx, gy, {});  // warm-up (and graph capture)
    const cudaStream_t stream = streams_.stream();
    if (!on_device) {  // upload once; the stages then run on the device copies
      host_path_->upload(x, y, stream);
      at = host_path_->device_arrays();
    }
    std::vector<double> t[PipelineStreams::kStageEvents];
    const Bins bins = policy_.for_evaluate();  // the stages of the usual run
    const auto mark = [&](int k) { EFIELD_CUDA_CHECK(cudaEventRecord(streams_.stage_event(k), stream)); };
    for (int r = 0; r < reps; ++r) {
      mark(0);
      density_.enqueue(cells_, at, bins, stream);
      mark(1);
      spectral_.enqueue_forward(density_.rho());
      mark(2);
      spectral_.enqueue_fields(stream);
      mark(3);
      spectral_.enqueue_inverse();
      mark(4);
      enqueue_gather(at, bins, false);
      finalize_.enqueue(design_, density_, spectral_, bins, stream);
      mark(5);
      EFIELD_CUDA_CHECK(cudaEventSynchronize(streams_.stage_event(5)));
      for (int k = 0; k < 5; ++k) {
        float ms = 0;
        EFIELD_CUDA_CHECK(cudaEventElapsedTime(&ms, streams_.stage_event(k), streams_.stage_event(k + 1)));
        t[k].push_back(ms);
      }
    }
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      evaluate(x, y, gx, gy, {});
      t[5].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median_stage_times(t, reps);
  }

  std::vector<double> density_map() override {
    const DeviceScope scope(device_);
    return download_unpermuted(density_.rho(), -1);
  }
  // Ex and Ey are the real and imaginary parts of the C2C output.
  std::vector<double> field_x_map() override {
    const DeviceScope scope(device_);
    return download_unpermuted(&spectral_.fields()->re, 0, 2);
  }
  std::vector<double> field_y_map() override {
    const DeviceScope scope(device_);
    return download_unpermuted(&spectral_.fields()->im, 1, 2);
  }
  std::vector<double> potential_map() override {
    const DeviceScope scope(device_);
    if (!gather_.reads_potential()) spectral_.enqueue_potential(streams_.stream());  // else evaluate made it
    return download_unpermuted(spectral_.potential(), -1);
  }
  std::vector<double> fixed_map() override { return density_.fixed_natural(); }
  void update_fixed_cells(const FixedCells& fixed) override {
    const DeviceScope scope(device_);
    streams_.synchronize();
    design_.fixed = fixed;
    density_.load_fixed_map(design_);  // same buffers: captured graphs stay valid
  }
  Backend backend() const noexcept override { return Backend::Cuda; }

 protected:
  // Same counts, new sizes: the large-cell lists and the uniform-filler shortcut follow them, so
  // the captured graphs (whose launches depend on both) are captured again on the next evaluate.
  void sizes_changed() override {
    const DeviceScope scope(device_);
    streams_.synchronize();
    cells_.load_sizes(design_);
    graphs_.reset();
  }

 private:
  // The weight of the runs launched next: our graphs carry it in their weight node (graph_cache.cuh),
  // direct launches need its kernel first.
  void use_weight(double weight) {
    weight_ = static_cast<T>(weight);
    if (!design_.options.use_cuda_graph) gather_.set_weight(weight, streams_.stream());
  }

  bool on_device_arrays() {  // checked by the caller
    return design_.num_cells() > 0 && pointer_kinds().valid && pointer_kinds().on_device;
  }
  CellArrays<T> caller_arrays(const T* x, const T* y, T* gx, T* gy) const {
    CellArrays<T> a;
    a.x = x;
    a.y = y;
    a.grad_x = gx;
    a.grad_y = gy;
    a.filler_offset = design_.options.filler_offset;
    return a;
  }

  // Whether the latest run, with these bins, flagged an exact float bin (pile-up): evaluate then
  // runs again with wider bins. Valid once that run is done.
  bool rerun_needed(Bins bins) const {
    if (!BinsPolicy::checks(bins) || !finalize_.rerun_flagged()) return false;
    log().debug("ElectrostaticSystem (CUDA): an exact float bin overflowed (pile-up); evaluating with {}",
                BinsPolicy::wider(bins) == Bins::Piled ? "64-bit movable tiles" : "64-bit bins");
    return true;
  }

  // Host arrays (host_array_path.cuh): the positions go up while the host still copies the rest,
  // the pipeline writes weight * g into the device copies, and the gradient comes back chunk by
  // chunk, written or added on the host as each chunk arrives; each run's way back is enqueued
  // before the host learns whether the run must be repeated.
  EvaluateResult evaluate_host(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) {
    const cudaStream_t stream = streams_.stream();
    host_path_->upload(x, y, stream);
    Bins bins = policy_.for_evaluate();
    launch(false, x, y, gx, gy, bins, false);
    host_path_->download_after_run(gx, gy, eo.accumulate, stream);
    if (host_path_->nonfinite()) {
      streams_.synchronize();
      validate_host_positions(design_, x, y);  // throws, naming the cell
      throw Error("ElectrostaticSystem::evaluate: a position changed to a non-finite value during the call");
    }
    while (rerun_needed(bins)) {
      bins = BinsPolicy::wider(bins);
      launch(false, x, y, gx, gy, bins, false);
      host_path_->download_after_run(gx, gy, eo.accumulate, stream);  // its flag decides on another run
    }
    policy_.record(finalize_.result().max_density);
    host_path_->finish(gx, gy, eo.accumulate, stream);
    streams_.record_done();
    return finalize_.result();
  }

  // One pass of the pipeline with the given bins, and wait for it.
  void run_and_wait(bool on_device, const T* x, const T* y, T* gx, T* gy, Bins bins, bool accumulate) {
    launch(on_device, x, y, gx, gy, bins, accumulate);
    streams_.record_done();
    streams_.synchronize();
  }
  // One pass through the graph captured for that choice (device arrays: for these pointers),
  // unless graphs are off; host arrays run on the device copies.
  void launch(bool on_device, const T* x, const T* y, T* gx, T* gy, Bins bins, bool accumulate) {
    // weight_node: the weight's kernel with this value on a branch of the graph being captured.
    const auto enqueue = [&](const T* weight_node) {
      if (on_device) {
        enqueue_pipeline(caller_arrays(x, y, gx, gy), bins, accumulate, weight_node);
      } else {
        host_path_->enqueue_check(streams_.stream());
        enqueue_pipeline(host_path_->device_arrays(), bins, false, weight_node);
      }
    };
    if (!design_.options.use_cuda_graph) {
      enqueue(nullptr);
      return;
    }
    typename GraphCache<T>::Pointers p;
    p.x = x;
    p.y = y;
    p.gx = gx;
    p.gy = gy;
    graphs_.launch(on_device, bins, accumulate, p, weight_, streams_.stream(), [&](T w) { enqueue(&w); });
    gather_.forget_weight();  // the graph set it: a direct launch later sets its own
  }

  void enqueue_gather(const CellArrays<T>& at, Bins bins, bool accumulate) {
    gather_.enqueue(cells_, at, spectral_.fields(), spectral_.potential(), accumulate, density_.rerun_flag(bins),
                    streams_.stream());
  }

  // weight_node (graph capture only): the weight's kernel with *weight_node on a side branch from
  // the start, joined before the first kernel that reads the weight.
  void enqueue_pipeline(const CellArrays<T>& at, Bins bins, bool accumulate, const T* weight_node = nullptr) {
    const cudaStream_t stream = streams_.stream();
    if (weight_node != nullptr) {
      streams_.fork();
      gather_.enqueue_weight_node(static_cast<double>(*weight_node), streams_.side());
      streams_.end_branch();
    }
    density_.enqueue(cells_, at, bins, stream);
    if (weight_node != nullptr) streams_.join();
    spectral_.enqueue_forward(density_.rho());
    spectral_.enqueue_fields(stream);
    // finalize needs only the partials of the density pass and the spectral kernel: it runs on a
    // side stream (a parallel branch of the graph) beside the inverse FFT and the gather, not as
    // a last serial step (one block and the write to pinned memory).
    streams_.fork();
    finalize_.enqueue(design_, density_, spectral_, bins, streams_.side());
    streams_.end_branch();
    if (gather_.reads_potential()) spectral_.enqueue_potential(stream);
    spectral_.enqueue_inverse();
    enqueue_gather(at, bins, accumulate);
    streams_.join();
  }

  // A permuted map (every `stride`-th element from device_map) to the natural layout.
  std::vector<double> download_unpermuted(const T* device_map, int sign_axis, int stride = 1) {
    const int M = design_.options.num_bins_x, N = design_.options.num_bins_y;
    std::vector<T> host(static_cast<size_t>(M) * N);
    streams_.synchronize();
    EFIELD_CUDA_CHECK(cudaMemcpy2D(host.data(), sizeof(T), device_map, stride * sizeof(T), sizeof(T), host.size(),
                                   cudaMemcpyDeviceToHost));
    return unpermute(host.data(), M, N, sign_axis);
  }

  int device_ = 0;  // the device current at construction (DeviceScope)
  PipelineStreams streams_;
  BinsPolicy policy_;
  CellTable<T> cells_;
  DensityStage<T> density_;
  SpectralStage<T> spectral_;
  GatherStage<T> gather_;
  FinalizeStage<T> finalize_;
  std::unique_ptr<HostArrayPath<T>> host_path_;
  GraphCache<T> graphs_;
  T weight_ = T(1);  // EvaluateOptions::weight of the latest call (use_weight)
};

}  // namespace

std::unique_ptr<ElectrostaticBackend> make_cuda_pipeline(ElectrostaticDesign design) {
  if (design.options.precision == Precision::Double) return std::make_unique<CudaPipeline<double>>(std::move(design));
  return std::make_unique<CudaPipeline<float>>(std::move(design));
}

}  // namespace efield::detail
