#pragma once
// Internal: what both CUDA pipelines of MultiFieldSystem share (the per-field one,
// multi_field_cuda.cu, and the batched one, batched_multi_field.cu). Per evaluate, on the
// system's stream: the parameters (weights, accumulate) from pinned memory -> the pipeline's
// work (enqueue_fields) -> the zeroing of unowned entries -> one sync; the results are read from
// pinned memory the pipeline wrote (kEsResultSlots doubles per field). With use_cuda_graph the
// whole sequence is captured once into one graph (again when the caller's pointers change) and
// replayed: one launch per evaluate. Host arrays are staged through device copies made at
// construction.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/device_scope.hpp"
#include "common/grid_stride.cuh"
#include "efield/error.hpp"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/graph_cache.cuh"
#include "multi_field/multi_field_backend.hpp"
#include "multi_field/multi_field_kernels.cuh"

namespace efield::detail {

template <typename T>
class CudaMultiFieldBase : public TypedMultiFieldBackend<T> {
 protected:
  using MultiFieldBackend::layout_;
  static constexpr int kThreads = 256;

 public:
  // Derived constructors call init() first thing in their body.
  explicit CudaMultiFieldBase(MultiFieldLayout layout)
      : TypedMultiFieldBackend<T>(std::move(layout)), device_(current_cuda_device()) {}
  ~CudaMultiFieldBase() override { release_base(); }

  Backend backend() const noexcept override { return Backend::Cuda; }
  int device() const noexcept override { return device_; }
  // evaluate leaves nothing of ours running, so the next one may start on any stream; the graph
  // is launched there as it is.
  void set_stream(Stream stream) override {
    const DeviceScope scope(device_);
    use_stream(reinterpret_cast<cudaStream_t>(stream));
    stream_changed();
  }

 protected:
  // The buffers of this part; release_base() undoes it (a derived constructor that throws calls
  // it through its destructor's path: the base destructor).
  void init() {
    const MultiFieldLayout& l = layout_;
    const int K = l.num_fields();
    use_stream(reinterpret_cast<cudaStream_t>(l.options.system.stream));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&caller_done_, cudaEventDisableTiming));
    if (!l.unowned.empty()) unowned_ = DeviceBuffer<std::int64_t>(l.unowned);
    const size_t entries = static_cast<size_t>(l.options.num_entries);
    for (DeviceBuffer<T>* b : {&hx_, &hy_, &hgx_, &hgy_}) *b = DeviceBuffer<T>(entries);
    params_ = DeviceBuffer<double>(static_cast<size_t>(K) + 1);
    params_host_ = PinnedBuffer<double>(static_cast<size_t>(K) + 1);
    results_host_ = PinnedBuffer<double>(static_cast<size_t>(K) * kEsResultSlots);
    std::fill(results_host_.get(), results_host_.get() + results_host_.size(), 0.0);
  }

  // The pipeline's work for one evaluate on main_: read x, y (device arrays of num_entries),
  // write (or, params_[K] != 0, add) w_k g at each field's entries, leave field k's scalars at
  // results_host_[k * kEsResultSlots ...] (EvaluateResult's order) once the stream gets there.
  virtual void enqueue_fields(const T* x, const T* y, T* gx, T* gy) = 0;
  // main_ changed (set_stream): the pipeline rebinds what it bound to it (cuFFT plans).
  virtual void stream_changed() {}
  // Called by derived destructors before their own resources go: waits for the streams.
  void release_base() noexcept {
    const DeviceScope scope(device_);
    if (own_main_) cudaStreamSynchronize(own_main_);
    graph_.reset();
    if (caller_done_) cudaEventDestroy(caller_done_), caller_done_ = nullptr;
    if (own_main_) cudaStreamDestroy(own_main_), own_main_ = nullptr;
    main_ = nullptr;
  }

  void run(const T* x, const T* y, T* gx, T* gy, const std::vector<double>& weights, bool accumulate,
           std::vector<EvaluateResult>& results) override {
    const DeviceScope scope(device_);
    const MultiFieldLayout& l = layout_;
    const int K = l.num_fields();
    const size_t bytes = static_cast<size_t>(l.options.num_entries) * sizeof(T);
    const bool device_arrays = bytes == 0 || on_device(x, y, gx, gy);
    if (!device_arrays) {
      check_host_positions(x, y);
      // The gradients go up too: entries the call does not write must come back unchanged.
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(hx_.get(), x, bytes, cudaMemcpyHostToDevice, main_));
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(hy_.get(), y, bytes, cudaMemcpyHostToDevice, main_));
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(hgx_.get(), gx, bytes, cudaMemcpyHostToDevice, main_));
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(hgy_.get(), gy, bytes, cudaMemcpyHostToDevice, main_));
    }
    const T* px = device_arrays ? x : hx_.get();
    const T* py = device_arrays ? y : hy_.get();
    T* pgx = device_arrays ? gx : hgx_.get();
    T* pgy = device_arrays ? gy : hgy_.get();
    for (int k = 0; k < K; ++k) params_host_.get()[k] = weights[static_cast<size_t>(k)];
    params_host_.get()[K] = accumulate ? 1.0 : 0.0;
    if (uses_own_) {  // ordered after the caller's work on the legacy default stream
      EFIELD_CUDA_CHECK(cudaEventRecord(caller_done_, nullptr));
      EFIELD_CUDA_CHECK(cudaStreamWaitEvent(main_, caller_done_, 0));
    }
    const auto enqueue = [&] { enqueue_all(px, py, pgx, pgy); };
    // The first call runs without a graph: the per-field pipeline's systems learn their pointers'
    // kind outside a capture.
    if (l.options.system.use_cuda_graph && warmed_) {
      const bool same = graph_.ready() && captured_[0] == px && captured_[1] == py && captured_[2] == pgx &&
                        captured_[3] == pgy;
      if (!same) {
        graph_.capture(main_, enqueue);
        captured_[0] = px, captured_[1] = py, captured_[2] = pgx, captured_[3] = pgy;
      }
      graph_.launch(main_);
    } else {
      enqueue();
      warmed_ = true;
    }
    if (!device_arrays) {
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(gx, hgx_.get(), bytes, cudaMemcpyDeviceToHost, main_));
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(gy, hgy_.get(), bytes, cudaMemcpyDeviceToHost, main_));
    }
    EFIELD_CUDA_CHECK(cudaStreamSynchronize(main_));
    for (int k = 0; k < K; ++k) {
      const double* r = results_host_.get() + static_cast<size_t>(k) * kEsResultSlots;
      EvaluateResult& out = results[static_cast<size_t>(k)];
      out.energy = r[0], out.overflow = r[1], out.max_density = r[2];
      out.movable_area_outside = r[3], out.filler_area_outside = r[4];
    }
  }

  int device_ = -1;
  cudaStream_t main_ = nullptr;
  DeviceBuffer<double> params_;  // the fields' weights, then accumulate (nonzero) at [K]
  PinnedBuffer<double> results_host_;

 private:
  void use_stream(cudaStream_t stream) {
    if (stream == nullptr && own_main_ == nullptr)  // the legacy default stream cannot be captured: an own one
      EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&own_main_, cudaStreamNonBlocking));
    main_ = stream != nullptr ? stream : own_main_;
    uses_own_ = stream == nullptr;
  }

  // All four on the device or all on the host; remembered for the same pointers.
  bool on_device(const T* x, const T* y, T* gx, T* gy) {
    if (known_valid_ && known_[0] == x && known_[1] == y && known_[2] == gx && known_[3] == gy) return known_device_;
    const bool dx = is_device_pointer(x), dy = is_device_pointer(y), dgx = is_device_pointer(gx),
               dgy = is_device_pointer(gy);
    if (!(dx == dy && dx == dgx && dx == dgy))
      throw Error("MultiFieldSystem::evaluate: x, y, grad_x and grad_y must all be host memory or all be device memory");
    known_[0] = x, known_[1] = y, known_[2] = gx, known_[3] = gy;
    known_device_ = dx;
    known_valid_ = true;
    return dx;
  }

  void check_host_positions(const T* x, const T* y) const {
    const MultiFieldLayout& l = layout_;
    for (std::int64_t s = 0; s < l.num_slots(); ++s) {
      const std::int64_t e = l.slot_entry[s];
      if (!std::isfinite(x[e]) || !std::isfinite(y[e]))
        throw Error("MultiFieldSystem::evaluate: entry " + std::to_string(e) + " (a cell of field " +
                    std::to_string(l.slot_field[s]) + ") has a non-finite position (" + std::to_string(x[e]) + ", " +
                    std::to_string(y[e]) + ")");
    }
  }

  void enqueue_all(const T* x, const T* y, T* gx, T* gy) {
    const MultiFieldLayout& l = layout_;
    const int K = l.num_fields();
    EFIELD_CUDA_CHECK(cudaMemcpyAsync(params_.get(), params_host_.get(), params_.bytes(), cudaMemcpyHostToDevice, main_));
    enqueue_fields(x, y, gx, gy);
    const std::int64_t unowned = static_cast<std::int64_t>(l.unowned.size());
    if (unowned > 0) {
      multi_field_zero<T><<<grid_stride_blocks(unowned, kThreads), kThreads, 0, main_>>>(unowned_.get(), unowned,
                                                                                        params_.get(), K, gx, gy);
      EFIELD_CUDA_CHECK_LAUNCH();
    }
  }

  cudaStream_t own_main_ = nullptr;
  bool uses_own_ = false;
  cudaEvent_t caller_done_ = nullptr;
  DeviceBuffer<std::int64_t> unowned_;
  DeviceBuffer<T> hx_, hy_, hgx_, hgy_;  // device copies of host arrays
  PinnedBuffer<double> params_host_;
  GraphExec graph_;
  const void* captured_[4] = {nullptr, nullptr, nullptr, nullptr};
  bool warmed_ = false;
  const void* known_[4] = {nullptr, nullptr, nullptr, nullptr};
  bool known_device_ = false, known_valid_ = false;
};

}  // namespace efield::detail
