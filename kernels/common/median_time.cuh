#pragma once
// Internal: the plan-time timings of measure mode (PlanEffort::Measure for Plan2D, and
// ElectrostaticOptions::plan_effort for the CUDA electrostatic system): the median time of one
// enqueued piece of work on a stream of its own, after a warm-up. Plan time only: it makes a
// stream and two events and waits for the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/host_staging.cuh"

namespace efield::detail {

class OwnedTimingEvent {
 public:
  OwnedTimingEvent() { EFIELD_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~OwnedTimingEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  OwnedTimingEvent(const OwnedTimingEvent&) = delete;
  OwnedTimingEvent& operator=(const OwnedTimingEvent&) = delete;
  cudaEvent_t get() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Warm-up runs, then timed samples of kRunsPerSample runs each (short work takes a few
// microseconds: one sample per run would time the events).
struct MedianTimeRuns {
  int warmup = 3;
  int samples = 5;
  int runs_per_sample = 4;
};

// `enqueue(stream)` puts one run on `stream`; returns the median milliseconds of one run.
template <typename Enqueue>
double median_enqueue_ms(Enqueue&& enqueue, const MedianTimeRuns& runs = {}) {
  const OwnedStream stream;
  const OwnedTimingEvent start, stop;
  for (int k = 0; k < runs.warmup; ++k) enqueue(stream.get());
  std::vector<float> ms(static_cast<std::size_t>(std::max(runs.samples, 1)));
  for (float& t : ms) {
    EFIELD_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
    for (int k = 0; k < runs.runs_per_sample; ++k) enqueue(stream.get());
    EFIELD_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
    EFIELD_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    EFIELD_CUDA_CHECK(cudaEventElapsedTime(&t, start.get(), stop.get()));
  }
  std::sort(ms.begin(), ms.end());
  return static_cast<double>(ms[ms.size() / 2]) / std::max(runs.runs_per_sample, 1);
}

}  // namespace efield::detail
