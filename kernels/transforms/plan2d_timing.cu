// PlanEffort::Measure's timing of one CUDA 2D plan (plan2d_timing.hpp). The data are zeros: the
// transforms' work does not depend on the values.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "transforms/plan2d_timing.hpp"

namespace efield::detail {
namespace {

// Warm-up runs, then timed samples of kRunsPerSample executes each (short transforms take a few
// microseconds: one sample per execute would time the events).
constexpr int kWarmup = 3;
constexpr int kSamples = 5;
constexpr int kRunsPerSample = 4;

class OwnedStream {
 public:
  OwnedStream() { EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~OwnedStream() { cudaStreamDestroy(s_); }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class OwnedEvent {
 public:
  OwnedEvent() { EFIELD_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~OwnedEvent() { cudaEventDestroy(e_); }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace

template <typename T>
double time_cuda_plan2d_ms(Plan2DImpl<T>& plan) {
  const std::size_t n = static_cast<std::size_t>(plan.rows()) * plan.cols();
  DeviceBuffer<T> in(n), out(n);
  EFIELD_CUDA_CHECK(cudaMemset(in.get(), 0, in.bytes()));
  const OwnedStream stream;
  const OwnedEvent start, stop;
  const auto s = reinterpret_cast<Stream>(stream.get());
  for (int k = 0; k < kWarmup; ++k) plan.execute(in.get(), out.get(), s);
  std::vector<float> ms(kSamples);
  for (float& t : ms) {
    EFIELD_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
    for (int k = 0; k < kRunsPerSample; ++k) plan.execute(in.get(), out.get(), s);
    EFIELD_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
    EFIELD_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    EFIELD_CUDA_CHECK(cudaEventElapsedTime(&t, start.get(), stop.get()));
  }
  std::sort(ms.begin(), ms.end());
  return static_cast<double>(ms[kSamples / 2]) / kRunsPerSample;
}

template double time_cuda_plan2d_ms<float>(Plan2DImpl<float>&);
template double time_cuda_plan2d_ms<double>(Plan2DImpl<double>&);

}  // namespace efield::detail
