// The CUDA electrostatic pipeline: everything made at construction (cuFFT plans, buffers,
// twiddles, the fixed map, pinned staging), then per evaluate one CUDA graph replay of
//   rasterize -> density pass(es) -> R2C -> spectral -> C2C in place (Ex + i Ey) -> field tiles ->
//   gather -> finalize (es_kernels.cuh).
// float rasterizes whole numbers of 2^-18 bin areas into float maps with vector atomics (exact
// sums, so deterministic). After an evaluate whose max density reached kPiledMinDensity (the
// float maps' limit, passed at a placer's first iterations, when the cells are piled up), the
// movable cells take the same whole numbers into 64-bit tiles, summed per block in shared memory
// first (Bins::Piled): the same bits where the float maps hold, without their limit and without
// thousands of atomics on each of a few hot bins. When finalize reports a bin that may have
// rounded, evaluate runs again with the next wider bins (float maps -> piled -> 64-bit bins), so
// the result never depends on the choice. With deterministic = false, float rasterizes into
// float maps with plain float contributions (sums depend on the atomics' order). Double uses
// 64-bit bins: two accumulator maps on small grids, one on large ones.
// Device pointers are used directly (graph re-captured when they change); host arrays travel
// between the caller's memory and device copies as host_arrays.cuh says, around a graph of their
// own.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/cufft_plan.cuh"
#include "common/cufft_real.cuh"
#include "common/dependent_launch.cuh"
#include "common/device_scope.hpp"
#include "common/log.hpp"
#include "electrostatics/backend.hpp"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/host_arrays.cuh"
#include "electrostatics/pipeline_layout.hpp"
#include "electrostatics/pipeline_setup.hpp"
#include "math/twiddle.hpp"

namespace efield::detail {
namespace {

// How an evaluate accumulates the density map (rasterize.cu): 64-bit fixed-point bins, or float
// maps (exact in float when deterministic, plain float atomics otherwise).
enum class Bins { Wide = 0, Float = 1, Piled = 2 };
constexpr int kBinsKinds = 3;

// Float, deterministic: an evaluate takes Bins::Piled when the previous one's max density (bin
// areas of movable and fixed charge in one bin) reached this, else the float maps. Both give the
// same bits where the float maps hold, so this is speed only: the float maps' limit (64 bin
// areas), below which their vector atomics are the cheaper path (docs/performance.md, "CUDA
// pipeline: piled cells").
constexpr double kPiledMinDensity = 64.0;

// Two accumulator maps (movable, fillers) save a rasterize launch and a density pass but double
// the accumulator: faster on small grids, slower once the maps no longer stay in L2
// (bench_ispd/results/electrostatics.md); used up to this many bins.
constexpr std::int64_t kTwoMapsMaxBins = std::int64_t{1} << 20;

// A cuFFT plan of 2D M x N transforms, `batch` of them, contiguous (real: M N; Hermitian half:
// M (N/2 + 1); complex: M N), on `stream`.
CufftPlan make_2d_plan(int M, int N, int batch, cufftType type, cudaStream_t stream) {
  int n[2] = {M, N};
  const int real = M * N, half = M * (N / 2 + 1);
  const bool forward = (type == CUFFT_R2C || type == CUFFT_D2Z);
  const bool complex = (type == CUFFT_C2C || type == CUFFT_Z2Z);
  const int in_dist = forward || complex ? real : half, out_dist = forward ? half : real;
  CufftPlan plan(
      [&](cufftHandle handle, std::size_t* work) {
        return cufftMakePlanMany(handle, 2, n, nullptr, 1, in_dist, nullptr, 1, out_dist, type, batch, work);
      },
      "ElectrostaticSystem (CUDA): cuFFT could not make a plan of " + std::to_string(M) + " x " +
          std::to_string(N) + " bins");
  EFIELD_CUFFT_CHECK(cufftSetStream(plan.get(), stream));
  return plan;
}

class GraphExec {
 public:
  GraphExec() = default;
  ~GraphExec() { reset(); }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }
  // Captures everything `enqueue` puts on `stream` into a graph and instantiates it.
  template <typename F>
  void capture(cudaStream_t stream, F&& enqueue) {
    reset();
    EFIELD_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);
      if (broken) cudaGraphDestroy(broken);
      throw;
    }
    EFIELD_CUDA_CHECK(cudaStreamEndCapture(stream, &graph_));
    EFIELD_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  bool ready() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) { EFIELD_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

template <typename T>
class CudaPipeline final : public ElectrostaticBackend {
  using Cpx = Complex<T>;

 public:
  using ElectrostaticBackend::evaluate;  // the other precision's overloads throw (backend.hpp)
  using ElectrostaticBackend::profile;
  using ElectrostaticBackend::evaluate_async;
  explicit CudaPipeline(ElectrostaticDesign design)
      : ElectrostaticBackend(std::move(design)), device_(current_cuda_device()) {
    const ElectrostaticDesign& d = design_;
    M_ = d.options.num_bins_x;
    N_ = d.options.num_bins_y;
    H_ = N_ / 2 + 1;
    bins_ = static_cast<std::int64_t>(M_) * N_;
    nc_ = d.num_cells();
    const EsPipelineLayout layout = es_pipeline_layout();  // the default unless a test or benchmark set one
    two_maps_ = layout.maps == EsPipelineLayout::Maps::Two ||
                (layout.maps == EsPipelineLayout::Maps::BySize && bins_ <= kTwoMapsMaxBins);
    const bool float_atomics = std::is_same_v<T, float> && !d.options.deterministic;
    exact_float_ = std::is_same_v<T, float> && d.options.deterministic && !layout.wide_float_bins;
    bins_kind_ = float_atomics || exact_float_ ? Bins::Float : Bins::Wide;
    float_map_ = es_tile_map_size(M_, N_);
    log().debug("ElectrostaticSystem (CUDA): {} bins, {} accumulator map(s) for 64-bit bins",
                bins_kind_ == Bins::Wide ? "64-bit" : exact_float_ ? "exact float" : "float", two_maps_ ? 2 : 1);
    geom_ = make_cell_geometry<T>(d);
    grid_ = make_spectral_grid<T>(d);

    if (d.options.stream == nullptr) {
      // The legacy default stream cannot be captured into a graph: work on an own stream, ordered
      // after the caller's legacy-stream work by an event (order_after_caller).
      EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking));
      stream_ = own_stream_;
      uses_own_stream_ = true;
    } else {
      stream_ = reinterpret_cast<cudaStream_t>(d.options.stream);
    }
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&caller_done_, cudaEventDisableTiming));
    EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&side_stream_, cudaStreamNonBlocking));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    for (cudaEvent_t& e : stage_events_) EFIELD_CUDA_CHECK(cudaEventCreate(&e));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    overlap_ = dependent_launch_supported();
    piled_cells_per_thread_ = piled_cells_per_thread(d.num_movable());
    exact_ = d.options.gradient_scale == GradientScale::Exact;
    if (!d.options.deterministic && !float_atomics)
      log().debug("ElectrostaticSystem (CUDA): deterministic=false in double runs the fixed-point pipeline");

    // Twiddles and cell sizes.
    const std::vector<Cpx> tw_m = quarter_twiddles<T>(M_), tw_n = quarter_twiddles<T>(N_);
    tw_m_ = EsDeviceArray<Cpx>(tw_m.size());
    tw_n_ = EsDeviceArray<Cpx>(tw_n.size());
    upload(tw_m_.get(), tw_m.data(), tw_m.size());
    upload(tw_n_.get(), tw_n.data(), tw_n.size());
    grid_.tw_m = tw_m_.get();
    grid_.tw_n = tw_n_.get();
    widths_ = EsDeviceArray<T>(nc_);
    heights_ = EsDeviceArray<T>(nc_);
    large_ = EsDeviceArray<int>(nc_);  // room for every cell: size updates never re-allocate
    // The movable-macro mask takes effect only below td = 1 (density_ratio): room for it then, so
    // that a size update may add one without allocating.
    if (d.options.target_density < 1.0) movable_macro_ = EsDeviceArray<std::uint8_t>(d.num_movable());
    load_sizes();

    // Maps and spectra.
    // The float movable and filler maps share acc_ with the 64-bit map (each density pass leaves
    // its maps zeroed, so whichever runs next starts from zero; two float maps of float_map_
    // floats take float_map_ words).
    // Bins::Piled: the movable 64-bit tiles (float_map_ words), then the filler float map.
    std::int64_t acc_words = bins_;
    if (bins_kind_ == Bins::Float) acc_words = std::max(acc_words, float_map_);
    if (exact_float_) acc_words = std::max(acc_words, float_map_ + float_map_ / 2);
    acc_ = EsDeviceArray<EsAccum>(acc_words);
    EFIELD_CUDA_CHECK(cudaMemset(acc_.get(), 0, acc_.bytes()));
    if (two_maps_) {
      acc_filler_ = EsDeviceArray<EsAccum>(bins_);
      EFIELD_CUDA_CHECK(cudaMemset(acc_filler_.get(), 0, acc_filler_.bytes()));
    }
    e_map_ = EsDeviceArray<EsVec2<T>>(es_tile_map_size(M_, N_));
    EFIELD_CUDA_CHECK(cudaMemset(e_map_.get(), 0, e_map_.bytes()));  // the padding stays 0
    fixed_rho_ = EsDeviceArray<T>(bins_);
    if (bins_kind_ == Bins::Float) fixed_tiles_ = EsDeviceArray<T>(float_map_);
    rho_ = EsDeviceArray<T>(bins_);
    spectrum_ = EsDeviceArray<Cpx>(static_cast<size_t>(M_) * H_);
    z_ = EsDeviceArray<Cpx>(bins_);
    w_phi_ = EsDeviceArray<Cpx>(static_cast<size_t>(M_) * H_);
    y_phi_ = EsDeviceArray<T>(bins_);
    EFIELD_CUDA_CHECK(cudaMemset(rho_.get(), 0, rho_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(spectrum_.get(), 0, spectrum_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(z_.get(), 0, z_.bytes()));
    load_fixed_map();

    density_blocks_ = es_reduce_blocks(bins_);
    spectral_blocks_ = std::min(M_ / 2 + 1, kEsMaxReduceBlocks);  // a row u each (spectral.cu)
    part_overflow_ = EsDeviceArray<double>(density_blocks_);
    part_max_ = EsDeviceArray<T>(density_blocks_);
    part_energy_ = EsDeviceArray<double>(spectral_blocks_);
    if (checks_bins()) {
      part_held_ = EsDeviceArray<EsAccum>(density_blocks_);
      rerun_flag_ = EsDeviceArray<EsAccum>(std::vector<EsAccum>{0});
    }
    // Pinned memory is mapped into the device's address space (unified addressing): finalize
    // writes the three results straight into it, so no copy node follows the last kernel.
    result_host_ = EsPinnedArray<double>(kEsResultSlots);
    std::fill(result_host_.get(), result_host_.get() + kEsResultSlots, 0.0);
    outside_ = EsDeviceArray<EsAccum>(2 * kEsTotalSlots);
    EFIELD_CUDA_CHECK(cudaMemset(outside_.get(), 0, outside_.bytes()));
    weight_ = EsDeviceArray<T>(1);
    upload(weight_.get(), &weight_now_, 1);

    // Host-pointer path: device copies of positions and gradients, the staging and its events,
    // the non-finite flag (mapped, like result_host_).
    dx_ = EsDeviceArray<T>(nc_);
    dy_ = EsDeviceArray<T>(nc_);
    dgx_ = EsDeviceArray<T>(nc_);
    dgy_ = EsDeviceArray<T>(nc_);
    host_arrays_ = HostArrays<T>(d.num_movable(), d.num_fillers(), d.options.filler_offset);
    nonfinite_ = EsPinnedArray<int>(1);
    nonfinite_.get()[0] = 0;
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&pipeline_done_, cudaEventDisableTiming));

    forward_ = make_2d_plan(M_, N_, 1, CufftReal<T>::r2c, stream_);
    fields_ = make_2d_plan(M_, N_, 1, CufftReal<T>::c2c, stream_);
    potential_ = make_2d_plan(M_, N_, 1, CufftReal<T>::c2r, stream_);
    EFIELD_CUDA_CHECK(cudaDeviceSynchronize());
  }

  ~CudaPipeline() override {
    const DeviceScope scope(device_);
    // Nothing of ours may still run when the buffers go. The event, not the stream: a caller may
    // have destroyed its stream already.
    cudaEventSynchronize(done_);
    reset_graphs();
    cudaEventDestroy(caller_done_);
    cudaEventDestroy(done_);
    cudaEventDestroy(pipeline_done_);
    cudaEventDestroy(fork_);
    cudaEventDestroy(join_);
    if (side_stream_) cudaStreamDestroy(side_stream_);
    for (cudaEvent_t e : stage_events_) cudaEventDestroy(e);
    if (own_stream_) cudaStreamDestroy(own_stream_);
  }

  EvaluateResult evaluate(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) override {
    const DeviceScope scope(device_);
    const bool on_device = nc_ > 0 && pointer_kinds().valid && pointer_kinds().on_device;  // checked by the caller
    order_after_caller();
    set_weight(eo.weight);
    if (!on_device) return evaluate_host(x, y, gx, gy, eo);
    Bins bins = bins_for_evaluate();
    run(true, x, y, gx, gy, bins, eo.accumulate);
    while (rerun_needed(bins)) {
      bins = wider_bins(bins);
      run(true, x, y, gx, gy, bins, eo.accumulate);
    }
    last_max_density_ = result_host_.get()[2];
    return host_result();
  }

  // Device arrays only (checked by the caller). The deterministic float pipeline's bins that
  // need a check and a re-run (which would need the host) are replaced by 64-bit bins.
  void evaluate_async(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) override {
    const DeviceScope scope(device_);
    order_after_caller();
    const Bins bins = checks_bins() ? Bins::Wide : bins_kind_;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    EFIELD_CUDA_CHECK(cudaStreamIsCapturing(stream_, &capture));
    if (capture != cudaStreamCaptureStatusNone) {
      // The caller records our work into its own graph: enqueue the kernels themselves, the
      // weight's too (its replays set it), and let later calls set theirs again.
      weight_known_ = false;
      set_weight(eo.weight);
      weight_known_ = false;
      enqueue_pipeline(x, y, gx, gy, design_.options.filler_offset, bins, eo.accumulate);
      return;  // done_ stays with the latest evaluate outside the capture
    }
    set_weight(eo.weight);
    launch(true, x, y, gx, gy, bins, eo.accumulate);
    EFIELD_CUDA_CHECK(cudaEventRecord(done_, stream_));
    order_caller_after();
  }

  EvaluateResult wait_result() override {
    const DeviceScope scope(device_);
    EFIELD_CUDA_CHECK(cudaEventSynchronize(done_));
    return host_result();
  }
  const double* device_result() const override { return result_host_.get(); }
  int device() const noexcept override { return device_; }

  void set_stream(Stream stream) override {
    const DeviceScope scope(device_);
    cudaStream_t next = stream != nullptr ? reinterpret_cast<cudaStream_t>(stream) : own_stream_;
    if (next == nullptr) {  // built on a caller's stream: the legacy default stream needs one of ours
      EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking));
      next = own_stream_;
    }
    if (next == stream_) return;
    // The new stream starts after everything enqueued on the old one.
    EFIELD_CUDA_CHECK(cudaEventRecord(done_, stream_));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(next, done_, 0));
    stream_ = next;
    uses_own_stream_ = stream_ == own_stream_;
    for (const CufftPlan* plan : {&forward_, &fields_, &potential_}) {
      EFIELD_CUFFT_CHECK(cufftSetStream(plan->get(), stream_));
    }
  }

  StageTimes profile(const T* x, const T* y, T* gx, T* gy, int reps) override {
    const bool on_device = nc_ > 0 && pointer_kinds().valid && pointer_kinds().on_device;  // checked by the caller
    const T *px = x, *py = y;
    T *pgx = gx, *pgy = gy;
    std::int64_t fo = design_.options.filler_offset;
    const DeviceScope scope(device_);
    for (int i = 0; i < 3; ++i) evaluate(x, y, gx, gy, {});  // warm-up (and graph capture)
    if (!on_device) {  // upload once; the stages then run on the device copies
      host_arrays_.upload(x, y, dx_.get(), dy_.get(), stream_);
      px = dx_.get(), py = dy_.get(), pgx = dgx_.get(), pgy = dgy_.get();
      fo = design_.num_movable();
    }
    std::vector<double> t[6];
    const Bins bins = bins_for_evaluate();  // the stages of the usual run
    for (int r = 0; r < reps; ++r) {
      cudaEvent_t* e = stage_events_;
      EFIELD_CUDA_CHECK(cudaEventRecord(e[0], stream_));
      enqueue_rasterize(px, py, fo, bins);
      EFIELD_CUDA_CHECK(cudaEventRecord(e[1], stream_));
      EFIELD_CUFFT_CHECK(CufftReal<T>::exec_r2c(forward_.get(), rho_.get(), spectrum_.get()));
      EFIELD_CUDA_CHECK(cudaEventRecord(e[2], stream_));
      enqueue_spectral();
      EFIELD_CUDA_CHECK(cudaEventRecord(e[3], stream_));
      EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2c(fields_.get(), z_.get(), z_.get(), CUFFT_INVERSE));
      EFIELD_CUDA_CHECK(cudaEventRecord(e[4], stream_));
      enqueue_gather(px, py, pgx, pgy, fo, bins, false);
      launch_finalize(finalize_args(bins), stream_);
      EFIELD_CUDA_CHECK(cudaEventRecord(e[5], stream_));
      EFIELD_CUDA_CHECK(cudaEventSynchronize(e[5]));
      for (int k = 0; k < 5; ++k) {
        float ms = 0;
        EFIELD_CUDA_CHECK(cudaEventElapsedTime(&ms, e[k], e[k + 1]));
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
    return download_unpermuted(rho_.get(), -1);
  }
  // Ex and Ey are the real and imaginary parts of the C2C output.
  std::vector<double> field_x_map() override {
    const DeviceScope scope(device_);
    return download_unpermuted(&z_.get()->re, 0, 2);
  }
  std::vector<double> field_y_map() override {
    const DeviceScope scope(device_);
    return download_unpermuted(&z_.get()->im, 1, 2);
  }
  std::vector<double> potential_map() override {
    const DeviceScope scope(device_);
    if (!exact_) enqueue_potential();  // GradientScale::Exact computed it in evaluate
    return download_unpermuted(y_phi_.get(), -1);
  }
  std::vector<double> fixed_map() override { return fixed_natural_; }
  void update_fixed_cells(const FixedCells& fixed) override {
    const DeviceScope scope(device_);
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    design_.fixed = fixed;
    load_fixed_map();  // same buffer: captured graphs stay valid
  }
  Backend backend() const noexcept override { return Backend::Cuda; }

 protected:
  // Same counts, new sizes: the large-cell lists and the uniform-filler shortcut follow them, so
  // the captured graphs (whose launches depend on both) are captured again on the next evaluate.
  void sizes_changed() override {
    const DeviceScope scope(device_);
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    load_sizes();
    reset_graphs();
  }

 private:
  // Uploads the cell sizes and lists the large cells (the kernels' threads skip them:
  // is_large_cell), a warp each, then a block each (es_kernels.cuh kEsWarpsPerBlock); each part
  // ascending, so movable cells come first.
  void load_sizes() {
    const ElectrostaticDesign& d = design_;
    std::vector<T> w(nc_), h(nc_);
    std::vector<int> large, block_cells;
    for (std::int64_t c = 0; c < nc_; ++c) {
      w[c] = static_cast<T>(d.width(c));
      h[c] = static_cast<T>(d.height(c));
      if (!is_large_cell(geom_, w[c], h[c])) continue;
      const bool warp = stretched_span_bins(geom_, w[c], h[c]) <= static_cast<T>(kWarpCellSpan);
      (warp ? large : block_cells).push_back(static_cast<int>(c));
    }
    const auto movable_in = [&](const std::vector<int>& cells) {  // ascending: a prefix
      return static_cast<int>(std::lower_bound(cells.begin(), cells.end(), d.num_movable()) - cells.begin());
    };
    num_warp_cells_ = static_cast<int>(large.size());
    warp_movable_ = movable_in(large);
    large_movable_ = num_warp_cells_ + movable_in(block_cells);
    large.insert(large.end(), block_cells.begin(), block_cells.end());
    upload(widths_.get(), w.data(), w.size());
    upload(heights_.get(), h.data(), h.size());
    upload(large_.get(), large.data(), large.size());
    geom_.movable_macro = nullptr;
    if (d.has_movable_macros()) {
      upload(movable_macro_.get(), d.movable.movable_macro_mask.data(), d.movable.movable_macro_mask.size());
      geom_.movable_macro = movable_macro_.get();
    }
    num_large_ = static_cast<int>(large.size());
    geom_.uniform_fillers = false;
    if (d.num_fillers() > 0) {  // fillers of one size: the kernels read no filler sizes
      const std::int64_t nm = d.num_movable();
      bool same = !is_large_cell(geom_, w[nm], h[nm]);
      for (std::int64_t c = nm + 1; same && c < nc_; ++c) same = w[c] == w[nm] && h[c] == h[nm];
      geom_.uniform_fillers = same;
      geom_.filler_w = w[nm];
      geom_.filler_h = h[nm];
    }
  }

  EvaluateResult host_result() const {
    const double* r = result_host_.get();
    EvaluateResult out;
    out.energy = r[0];
    out.overflow = r[1];
    out.max_density = r[2];
    out.movable_area_outside = r[3];
    out.filler_area_outside = r[4];
    return out;
  }

  // The gradient's weight lives in device memory (weight_), so that the captured graphs stay
  // valid when a placer changes it every iteration; a one-thread kernel sets it when it changes.
  // (accumulate selects a graph instead: placers keep it fixed.)
  void set_weight(double weight) {
    const T next = static_cast<T>(weight);
    if (weight_known_ && next == weight_now_) return;
    launch_set_weight(weight_.get(), next, stream_);
    weight_now_ = next;
    weight_known_ = true;
  }

  void reset_graphs() {
    for (GraphExec& g : host_graph_) g.reset();
    for (auto& pair : device_graph_)
      for (GraphExec& g : pair) g.reset();
  }

  // Whether the latest run, with these bins, flagged an exact float bin (pile-up): evaluate then
  // runs again with wider_bins. Valid once that run is done.
  bool rerun_needed(Bins bins) const {
    if (!checks(bins) || result_host_.get()[kEsRerunSlot] == 0) return false;
    log().debug("ElectrostaticSystem (CUDA): an exact float bin overflowed (pile-up); evaluating with {}",
                wider_bins(bins) == Bins::Piled ? "64-bit movable tiles" : "64-bit bins");
    return true;
  }

  // Host arrays (host_arrays.cuh): the positions go up while the host still copies the rest, the
  // pipeline writes weight * g into the device copies, and the gradient comes back chunk by chunk,
  // written or added (accumulate) on the host as each chunk arrives. The gradient's copies are
  // enqueued before the host learns whether the run must be repeated or the positions held a
  // NaN: the usual evaluate waits once.
  EvaluateResult evaluate_host(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) {
    nonfinite_.get()[0] = 0;  // nothing of ours runs now: the previous evaluate waited for its end
    host_arrays_.upload(x, y, dx_.get(), dy_.get(), stream_);
    Bins bins = bins_for_evaluate();
    launch(false, x, y, gx, gy, bins, false);
    EFIELD_CUDA_CHECK(cudaEventRecord(pipeline_done_, stream_));
    host_arrays_.enqueue_download(dgx_.get(), dgy_.get(), gx, gy, eo.accumulate, stream_);
    EFIELD_CUDA_CHECK(cudaEventSynchronize(pipeline_done_));
    if (nonfinite_.get()[0] != 0) {
      EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
      validate_host_positions(design_, x, y);  // throws, naming the cell
      throw Error("ElectrostaticSystem::evaluate: a position changed to a non-finite value during the call");
    }
    while (rerun_needed(bins)) {
      bins = wider_bins(bins);
      launch(false, x, y, gx, gy, bins, false);
      EFIELD_CUDA_CHECK(cudaEventRecord(pipeline_done_, stream_));
      host_arrays_.enqueue_download(dgx_.get(), dgy_.get(), gx, gy, eo.accumulate, stream_);
      EFIELD_CUDA_CHECK(cudaEventSynchronize(pipeline_done_));  // its flag decides on another run
    }
    last_max_density_ = result_host_.get()[2];
    host_arrays_.finish_download(gx, gy, eo.accumulate, stream_);
    EFIELD_CUDA_CHECK(cudaEventRecord(done_, stream_));
    order_caller_after();
    const std::int64_t nm = design_.num_movable(), fo = design_.options.filler_offset;
    if (design_.options.zero_gap_gradient && !eo.accumulate && fo > nm) {  // the device copies have no gap
      std::fill(gx + nm, gx + fo, T(0));
      std::fill(gy + nm, gy + fo, T(0));
    }
    return host_result();
  }

  struct Pointers {
    const T* x;
    const T* y;
    T* gx;
    T* gy;
    bool operator==(const Pointers& o) const { return x == o.x && y == o.y && gx == o.gx && gy == o.gy; }
  };

  // One pass of the pipeline with the given bins, through the graph captured for that choice
  // (device pointers: for these pointers) unless graphs are off; waits for it. Host arrays run
  // from the pinned staging buffers.
  void run(bool on_device, const T* x, const T* y, T* gx, T* gy, Bins bins, bool accumulate) {
    launch(on_device, x, y, gx, gy, bins, accumulate);
    EFIELD_CUDA_CHECK(cudaEventRecord(done_, stream_));
    order_caller_after();
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  // The same, without waiting.
  void launch(bool on_device, const T* x, const T* y, T* gx, T* gy, Bins bins, bool accumulate) {
    const int b = static_cast<int>(bins), acc = accumulate ? 1 : 0;
    GraphExec& graph = on_device ? device_graph_[b][acc] : host_graph_[b];
    Pointers& captured_for = device_pointers_[b][acc];
    const auto enqueue = [&] {
      if (on_device) enqueue_pipeline(x, y, gx, gy, design_.options.filler_offset, bins, accumulate);
      else enqueue_host_path(bins);
    };
    if (!design_.options.use_cuda_graph) {
      enqueue();
    } else {
      const Pointers p{x, y, gx, gy};
      if (!graph.ready() || (on_device && !(p == captured_for))) {  // captured for other pointers
        graph.capture(stream_, enqueue);
        if (on_device) captured_for = p;
      }
      graph.launch(stream_);
    }
  }

  // Whether a run with these bins checks them (an exact float sum past 2^24: the density pass
  // writes part_held_, finalize flags it), after which evaluate runs again with wider_bins.
  bool checks(Bins bins) const { return (bins == Bins::Float && exact_float_) || bins == Bins::Piled; }
  bool checks_bins() const { return checks(bins_kind_); }
  // After a flagged run: the float maps -> piled movable cells -> 64-bit bins (only a filler
  // bin past 64 bin areas goes that far).
  static Bins wider_bins(Bins bins) { return bins == Bins::Float ? Bins::Piled : Bins::Wide; }
  // Exact float maps: Bins::Piled after a dense evaluate (kPiledMinDensity).
  Bins bins_for_evaluate() const {
    return exact_float_ && last_max_density_ >= kPiledMinDensity ? Bins::Piled : bins_kind_;
  }
  // Cells a thread of Bins::Piled's movable blocks takes: enough for kEsPiledBlocksPerSm blocks
  // per SM, at most kEsPiledMaxCellsPerThread.
  int piled_cells_per_thread(std::int64_t num_movable) const {
    int sms = 1;
    EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
    const std::int64_t per_round = static_cast<std::int64_t>(kEsThreads) * kEsPiledBlocksPerSm * std::max(sms, 1);
    const std::int64_t k = (num_movable + per_round - 1) / per_round;
    return static_cast<int>(std::clamp<std::int64_t>(k, 1, kEsPiledMaxCellsPerThread));
  }

  template <typename U>
  static void upload(U* dst, const U* src, size_t n) {
    if (n > 0) EFIELD_CUDA_CHECK(cudaMemcpy(dst, src, n * sizeof(U), cudaMemcpyHostToDevice));
  }

  void load_fixed_map() {
    fixed_natural_ = compute_fixed_map(design_);
    const std::vector<T> f =  // the accumulator's (natural) layout
        fixed_density_at<T>(design_, fixed_natural_, fixed_natural_.size(),
                            [&](int m, int n) { return static_cast<std::size_t>(m) * N_ + n; });
    upload(fixed_rho_.get(), f.data(), f.size());
    if (fixed_tiles_.get() != nullptr) {  // density_float's copy, in 2 x 2-bin tiles
      const std::vector<T> tiles = fixed_density_at<T>(design_, fixed_natural_, static_cast<std::size_t>(float_map_),
                                                       [&](int m, int n) { return es_tile_index(m, n, N_); });
      upload(fixed_tiles_.get(), tiles.data(), tiles.size());
    }
  }

  void order_after_caller() {
    if (!uses_own_stream_) return;  // the caller's own stream orders everything already
    EFIELD_CUDA_CHECK(cudaEventRecord(caller_done_, nullptr));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(stream_, caller_done_, 0));
  }
  // On our own stream, the caller's legacy-stream work after this call waits for ours (done_ is
  // recorded after it).
  void order_caller_after() {
    if (uses_own_stream_) EFIELD_CUDA_CHECK(cudaStreamWaitEvent(nullptr, done_, 0));
  }

  CellGeometry<T> geometry(std::int64_t filler_offset) const {
    CellGeometry<T> g = geom_;
    g.filler_offset = filler_offset;
    return g;
  }

  // Float bins: all cells -> movable and filler float maps -> partials and rho in one pass. 64-bit
  // bins, one accumulator map: movable cells -> overflow/max partials -> fillers -> rho; two maps:
  // all cells -> partials and rho in one pass (rasterize.cu).
  void enqueue_rasterize(const T* x, const T* y, std::int64_t fo, Bins bins) {
    if constexpr (std::is_same_v<T, float>) {
      if (bins == Bins::Piled) {
        enqueue_rasterize_piled(x, y, fo);
        return;
      }
    }
    const bool floats = bins == Bins::Float;
    const bool exact = floats && exact_float_;
    const std::int64_t nm = design_.num_movable();
    // deterministic = false: float maps in bin areas
    const int bits = exact ? kEsExactFloatBits : floats ? 0 : FixedPointBits<T>::value;
    const bool two_maps = floats || two_maps_;
    EsAccum* filler_map = two_maps && !floats ? acc_filler_.get() : nullptr;
    T* charge = floats ? reinterpret_cast<T*>(acc_.get()) : nullptr;
    T* charge_filler = floats ? charge + float_map_ : nullptr;
    RasterizeArgs<T> r{geometry(fo),
                       x,
                       y,
                       widths_.get(),
                       heights_.get(),
                       acc_.get(),
                       filler_map,
                       charge,
                       charge_filler,
                       exact,
                       static_cast<T>(std::ldexp(1.0, bits) / (design_.bx * design_.by)),
                       0,
                       two_maps ? nc_ : nm,
                       large_.get(),
                       0,
                       two_maps ? num_warp_cells_ : warp_movable_,
                       num_warp_cells_,
                       two_maps ? num_large_ : large_movable_,
                       outside_.get()};
    if (checks(bins)) r.rerun_flag = rerun_flag_.get();
    launch_rasterize(r, stream_);
    DensityPassArgs<T> p{bins_,
                         fixed_rho_.get(),
                         acc_.get(),
                         filler_map,
                         rho_.get(),
                         static_cast<T>(std::ldexp(1.0, -bits)),
                         static_cast<T>(design_.options.target_density),
                         part_overflow_.get(),
                         part_max_.get(),
                         checks(bins) ? part_held_.get() : nullptr,
                         charge,
                         charge_filler,
                         exact,
                         density_blocks_,
                         fixed_tiles_.get()};
    if (checks(bins)) p.rerun_flag = rerun_flag_.get();
    if constexpr (std::is_same_v<T, float>) {  // float bins are float only
      if (floats) {
        launch_density_float(p, N_, stream_, overlap_);
        return;
      }
    }
    if (two_maps) {
      launch_density_combined(p, N_, stream_);
      return;
    }
    launch_movable_stats(p, stream_);
    r.cell_begin = nm;
    r.cell_end = nc_;
    r.warp_begin = warp_movable_;
    r.warp_end = num_warp_cells_;
    r.large_begin = large_movable_;
    r.large_end = num_large_;
    launch_rasterize(r, stream_);
    launch_density_finish(p, N_, stream_);
  }

  // Bins::Piled (float): movable cells -> 64-bit tiles at acc_, fillers -> the float map after
  // them, then density_float over both (rasterize.cu).
  void enqueue_rasterize_piled(const T* x, const T* y, std::int64_t fo) {
    const std::int64_t nm = design_.num_movable();
    EsAccum* wide = acc_.get();
    T* fillers = reinterpret_cast<T*>(acc_.get() + float_map_);
    RasterizeArgs<T> r{geometry(fo),
                       x,
                       y,
                       widths_.get(),
                       heights_.get(),
                       nullptr,
                       nullptr,
                       fillers,  // the float maps' path: charge_map_of picks charge_filler for every filler
                       fillers,
                       true,
                       static_cast<T>(std::ldexp(1.0, kEsExactFloatBits) / (design_.bx * design_.by)),
                       nm,
                       nc_,
                       large_.get(),
                       0,
                       num_warp_cells_,
                       num_warp_cells_,
                       num_large_,
                       outside_.get(),
                       wide,
                       nm,
                       piled_cells_per_thread_,
                       rerun_flag_.get()};
    launch_rasterize_piled(r, stream_);
    DensityPassArgs<T> p{bins_,
                         fixed_rho_.get(),
                         nullptr,
                         nullptr,
                         rho_.get(),
                         static_cast<T>(std::ldexp(1.0, -kEsExactFloatBits)),
                         static_cast<T>(design_.options.target_density),
                         part_overflow_.get(),
                         part_max_.get(),
                         part_held_.get(),
                         nullptr,
                         fillers,
                         true,
                         density_blocks_,
                         fixed_tiles_.get(),
                         wide,
                         rerun_flag_.get()};
    launch_density_float(p, N_, stream_, overlap_);
  }

  FinalizeArgs<T> finalize_args(Bins bins) {
    return FinalizeArgs<T>{part_overflow_.get(),
                           part_max_.get(),
                           density_blocks_,
                           part_energy_.get(),
                           spectral_blocks_,
                           static_cast<double>(M_) * N_ / 4.0,
                           design_.movable_area > 0 ? design_.bx * design_.by / design_.movable_area : 0.0,
                           checks(bins) ? part_held_.get() : nullptr,
                           outside_.get(),
                           std::ldexp(design_.bx * design_.by, -kOutsideFractionBits),
                           result_host_.get()};
  }

  // phi (permuted, y_phi_) from the spectrum of the latest evaluate (nothing else writes spectrum_).
  void enqueue_potential() {
    SpectralArgs<T> a{grid_, spectrum_.get(), nullptr, w_phi_.get(), nullptr, 0};
    launch_spectral_potential(a, stream_);
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2r(potential_.get(), w_phi_.get(), y_phi_.get()));
  }

  void enqueue_spectral() {
    SpectralArgs<T> a{grid_, spectrum_.get(), z_.get(), nullptr, part_energy_.get(), spectral_blocks_};
    launch_spectral_fields(a, stream_, overlap_);
  }

  void enqueue_gather(const T* x, const T* y, T* gx, T* gy, std::int64_t fo, Bins bins, bool accumulate) {
    if (!exact_) {  // the exact gather reads phi instead
      const EsVec2<T>* z = reinterpret_cast<const EsVec2<T>*>(z_.get());  // the same layout
      launch_field_tiles(z, e_map_.get(), M_, N_, weight_.get(), stream_, overlap_);
    }
    GatherArgs<T> a{geometry(fo),
                    x,
                    y,
                    widths_.get(),
                    heights_.get(),
                    e_map_.get(),
                    gx,
                    gy,
                    nc_,
                    large_.get(),
                    num_warp_cells_,
                    num_large_,
                    weight_.get(),
                    accumulate,
                    checks(bins) ? rerun_flag_.get() : nullptr};
    if (exact_) launch_gather_exact(a, y_phi_.get(), stream_);
    else launch_gather(a, stream_, overlap_);
    const std::int64_t gap_begin = design_.num_movable(), gap_end = fo;
    if (design_.options.zero_gap_gradient && !accumulate && gap_end > gap_begin)
      launch_zero_gap(gx, gy, gap_begin, gap_end, stream_);
  }

  void enqueue_pipeline(const T* x, const T* y, T* gx, T* gy, std::int64_t fo, Bins bins, bool accumulate) {
    enqueue_rasterize(x, y, fo, bins);
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_r2c(forward_.get(), rho_.get(), spectrum_.get()));
    enqueue_spectral();
    // finalize needs only the partials of the density pass and the spectral kernel: it runs on a
    // side stream (a parallel branch of the graph) beside the inverse FFT and the gather, not as
    // a last serial step (one block and the write to pinned memory).
    EFIELD_CUDA_CHECK(cudaEventRecord(fork_, stream_));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(side_stream_, fork_, 0));
    launch_finalize(finalize_args(bins), side_stream_);
    EFIELD_CUDA_CHECK(cudaEventRecord(join_, side_stream_));
    if (exact_) enqueue_potential();
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2c(fields_.get(), z_.get(), z_.get(), CUFFT_INVERSE));
    enqueue_gather(x, y, gx, gy, fo, bins, accumulate);
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(stream_, join_, 0));
  }

  // Host arrays: the device copies (compact: fillers right after the movable cells) are checked
  // for NaN and infinities (host positions are validated; a device pass costs microseconds, a host
  // pass over the caller's arrays a good part of the bus time), then the pipeline runs on them.
  void enqueue_host_path(Bins bins) {
    launch_flag_nonfinite(dx_.get(), dy_.get(), nc_, nonfinite_.get(), stream_);
    enqueue_pipeline(dx_.get(), dy_.get(), dgx_.get(), dgy_.get(), design_.num_movable(), bins, false);
  }

  // A permuted map (every `stride`-th element from device_map) to the natural layout.
  std::vector<double> download_unpermuted(const T* device_map, int sign_axis, int stride = 1) {
    std::vector<T> host(static_cast<size_t>(bins_));
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    EFIELD_CUDA_CHECK(cudaMemcpy2D(host.data(), sizeof(T), device_map, stride * sizeof(T), sizeof(T), host.size(),
                                   cudaMemcpyDeviceToHost));
    return unpermute(host.data(), M_, N_, sign_axis);
  }

  int device_ = 0;  // the device current at construction (DeviceScope)
  int M_ = 0, N_ = 0, H_ = 0;
  std::int64_t bins_ = 0, nc_ = 0;
  bool exact_ = false;     // GradientScale::Exact: the gather reads phi
  bool uses_own_stream_ = false;
  cudaEvent_t done_ = nullptr;  // recorded after each evaluate (wait_result, stream changes)
  EsDeviceArray<EsAccum> outside_;  // [2 kEsTotalSlots] rasterize's outside-area sums (finalize zeroes them)
  EsDeviceArray<T> weight_;         // [1] EvaluateOptions::weight
  T weight_now_ = T(1);             // what weight_ holds, when weight_known_
  bool weight_known_ = true;
  CellGeometry<T> geom_;
  SpectralGrid<T> grid_;
  cudaStream_t own_stream_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t caller_done_ = nullptr;
  cudaStream_t side_stream_ = nullptr;  // finalize, beside the inverse FFT and the gather
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  cudaEvent_t stage_events_[6] = {};
  EsDeviceArray<Cpx> tw_m_, tw_n_;
  EsDeviceArray<T> widths_, heights_;
  EsDeviceArray<std::uint8_t> movable_macro_;  // [num_movable] when td < 1 (CellGeometry::movable_macro)
  EsDeviceArray<int> large_;
  // large_: cells [0, num_warp_cells_) a warp each, [num_warp_cells_, num_large_) a block each;
  // the fillers among them start at warp_movable_ and at large_movable_.
  int num_warp_cells_ = 0, warp_movable_ = 0, num_large_ = 0, large_movable_ = 0;
  bool two_maps_ = false;  // 64-bit bins: movable and filler accumulators (kTwoMapsMaxBins)
  // Launch our kernels that follow another one with overlap (common/dependent_launch.cuh), so each
  // starts while the previous one finishes (bench_ispd/results/electrostatics.md).
  bool overlap_ = false;
  Bins bins_kind_ = Bins::Wide;    // how evaluate accumulates
  bool exact_float_ = false;       // Float bins are exact float maps (may fall back to Piled, Wide)
  double last_max_density_ = 0;    // the latest evaluate's max density (bins_for_evaluate)
  int piled_cells_per_thread_ = 1;  // Bins::Piled (piled_cells_per_thread)
  std::int64_t float_map_ = 0;     // floats of one float map (2 x 2-bin tiles)
  EsDeviceArray<EsAccum> acc_, acc_filler_;
  EsDeviceArray<EsAccum> part_held_;  // checks_bins(): bins past the exact float limit, per block
  EsDeviceArray<EsAccum> rerun_flag_;  // checks_bins(): set when a bin was flagged (the gather skips)
  EsDeviceArray<EsVec2<T>> e_map_;
  EsDeviceArray<T> fixed_rho_, rho_, y_phi_;
  EsDeviceArray<T> fixed_tiles_;  // float maps: F / (bx by) in 2 x 2-bin tiles (density_float)
  // z_: the C2C input w_x + i w_y, transformed in place into Ex + i Ey (in place is the quicker
  // cuFFT plan: docs/performance.md, "CUDA pipeline: the C2C in place").
  EsDeviceArray<Cpx> spectrum_, z_, w_phi_;
  std::vector<double> fixed_natural_;
  int density_blocks_ = 1, spectral_blocks_ = 1;
  EsDeviceArray<double> part_overflow_, part_energy_;
  EsDeviceArray<T> part_max_;
  EsPinnedArray<double> result_host_;
  EsDeviceArray<T> dx_, dy_, dgx_, dgy_;  // host arrays: the device copies (compact)
  HostArrays<T> host_arrays_;
  EsPinnedArray<int> nonfinite_;          // [1] host arrays: 1 when a position was NaN or infinite
  cudaEvent_t pipeline_done_ = nullptr;   // host arrays: the pipeline ran (the flags are valid)
  CufftPlan forward_, fields_, potential_;
  // [Bins]: 64-bit bins (double, and float after a filler bin's overflow or with the layout
  // hook's wide float bins), float maps (the usual float run, exact or with deterministic =
  // false), piled movable cells (exact float maps after a dense evaluate or an overflow);
  // device arrays also [accumulate].
  GraphExec host_graph_[kBinsKinds], device_graph_[kBinsKinds][2];
  Pointers device_pointers_[kBinsKinds][2] = {};
};

}  // namespace

std::unique_ptr<ElectrostaticBackend> make_cuda_pipeline(ElectrostaticDesign design) {
  if (design.options.precision == Precision::Double) return std::make_unique<CudaPipeline<double>>(std::move(design));
  return std::make_unique<CudaPipeline<float>>(std::move(design));
}

}  // namespace efield::detail
