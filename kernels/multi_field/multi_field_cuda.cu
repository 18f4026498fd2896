// The per-field CUDA pipeline of MultiFieldSystem (MultiFieldPipeline::PerField). Per evaluate,
// on the system's stream (the parts common to both pipelines: multi_field_cuda_base.cuh):
//   one gather kernel over all fields' cells into the fields' contiguous slices -> each field's
//   evaluate_async on its own stream, forked from the system's stream and joined back (the
//   fields' pipelines run concurrently) -> one scatter kernel -> the fields' result blocks into
//   the pinned results.
// make_cuda_multi_field picks this one or the batched pipeline (batched_multi_field.cu).
#include <cuda_runtime.h>

#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/device_scope.hpp"
#include "common/grid_stride.cuh"
#include "multi_field/batched_multi_field.hpp"
#include "multi_field/multi_field_backend.hpp"
#include "multi_field/multi_field_cuda_base.cuh"
#include "multi_field/multi_field_kernels.cuh"

namespace efield::detail {
namespace {

constexpr int kResultDoubles = 5;  // device_result(): energy, overflow, max density, areas outside

template <typename T>
class CudaMultiField final : public CudaMultiFieldBase<T> {
  using Base = CudaMultiFieldBase<T>;
  using Base::kThreads;
  using Base::main_;
  using Base::params_;
  using Base::results_host_;
  using MultiFieldBackend::layout_;
  using MultiFieldBackend::systems_;

 public:
  explicit CudaMultiField(MultiFieldLayout layout) : Base(std::move(layout)) {
    const MultiFieldLayout& l = layout_;
    const int K = l.num_fields();
    try {
      this->init();
      EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
      streams_.assign(static_cast<size_t>(K), nullptr);
      joins_.assign(static_cast<size_t>(K), nullptr);
      for (int k = 0; k < K; ++k) {
        EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[k], cudaStreamNonBlocking));
        EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&joins_[k], cudaEventDisableTiming));
        systems_.push_back(make_field_system(l, k, reinterpret_cast<Stream>(streams_[k]), false));
      }
      if (!l.slot_entry.empty()) entry_ = DeviceBuffer<std::int64_t>(l.slot_entry);
      if (!l.slot_field.empty()) field_ = DeviceBuffer<std::int32_t>(l.slot_field);
      const size_t slots = static_cast<size_t>(l.num_slots());
      for (DeviceBuffer<T>* b : {&sx_, &sy_, &sgx_, &sgy_}) *b = DeviceBuffer<T>(slots);
      EFIELD_CUDA_CHECK(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~CudaMultiField() override { release(); }

 private:
  void release() noexcept {
    this->release_base();
    const DeviceScope scope(this->device_);
    // evaluate waits for its work; only a call that failed midway can leave some, on our streams.
    for (cudaStream_t s : streams_)
      if (s) cudaStreamSynchronize(s);
    systems_.clear();  // before their streams
    for (cudaStream_t& s : streams_)
      if (s) cudaStreamDestroy(s), s = nullptr;
    for (cudaEvent_t& e : joins_)
      if (e) cudaEventDestroy(e), e = nullptr;
    if (fork_) cudaEventDestroy(fork_), fork_ = nullptr;
  }

  void enqueue_fields(const T* x, const T* y, T* gx, T* gy) override {
    const MultiFieldLayout& l = layout_;
    const int K = l.num_fields();
    const std::int64_t slots = l.num_slots();
    if (slots > 0) {
      multi_field_gather<T><<<grid_stride_blocks(slots, kThreads), kThreads, 0, main_>>>(entry_.get(), slots, x, y,
                                                                                        sx_.get(), sy_.get());
      EFIELD_CUDA_CHECK_LAUNCH();
    }
    EFIELD_CUDA_CHECK(cudaEventRecord(fork_, main_));
    for (int k = 0; k < K; ++k) {
      const std::int64_t o = l.offset[k];
      EFIELD_CUDA_CHECK(cudaStreamWaitEvent(streams_[k], fork_, 0));
      systems_[k].evaluate_async(sx_.get() + o, sy_.get() + o, sgx_.get() + o, sgy_.get() + o, EvaluateOptions{});
      EFIELD_CUDA_CHECK(cudaEventRecord(joins_[k], streams_[k]));
      EFIELD_CUDA_CHECK(cudaStreamWaitEvent(main_, joins_[k], 0));
    }
    if (slots > 0) {
      multi_field_scatter<T><<<grid_stride_blocks(slots, kThreads), kThreads, 0, main_>>>(
          entry_.get(), field_.get(), slots, params_.get(), K, sgx_.get(), sgy_.get(), gx, gy);
      EFIELD_CUDA_CHECK_LAUNCH();
    }
    for (int k = 0; k < K; ++k)
      EFIELD_CUDA_CHECK(cudaMemcpyAsync(results_host_.get() + static_cast<size_t>(k) * kEsResultSlots,
                                        systems_[k].device_result(), kResultDoubles * sizeof(double),
                                        cudaMemcpyDeviceToHost, main_));
  }

  cudaEvent_t fork_ = nullptr;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> joins_;
  DeviceBuffer<std::int64_t> entry_;
  DeviceBuffer<std::int32_t> field_;
  DeviceBuffer<T> sx_, sy_, sgx_, sgy_;  // the fields' slices
};

}  // namespace

std::unique_ptr<MultiFieldBackend> make_cuda_multi_field(MultiFieldLayout layout) {
  if (layout.options.pipeline == MultiFieldPipeline::Batched) return make_batched_multi_field(std::move(layout));
  if (layout.options.system.precision == Precision::Double)
    return std::make_unique<CudaMultiField<double>>(std::move(layout));
  return std::make_unique<CudaMultiField<float>>(std::move(layout));
}

}  // namespace efield::detail
