#pragma once
// Internal: the streams and events of one CUDA pipeline: the stream its work is enqueued on (the
// caller's, or one of its own when the caller gave the legacy default stream, which cannot be
// captured into a graph), the ordering against the caller's work, a side stream for a parallel
// branch (finalize beside the inverse FFT and the gather), the event each evaluate's end is
// recorded on, and the profiling events.
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "efield/device.hpp"

namespace efield::detail {

class PipelineStreams {
 public:
  static constexpr int kStageEvents = 6;

  PipelineStreams() = default;
  explicit PipelineStreams(Stream caller) {
    if (caller == nullptr) {
      // The legacy default stream cannot be captured into a graph: work on an own stream, ordered
      // after the caller's legacy-stream work by an event (order_after_caller).
      EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&own_, cudaStreamNonBlocking));
      stream_ = own_;
      uses_own_ = true;
    } else {
      stream_ = reinterpret_cast<cudaStream_t>(caller);
    }
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&caller_done_, cudaEventDisableTiming));
    EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    for (cudaEvent_t& e : stage_events_) EFIELD_CUDA_CHECK(cudaEventCreate(&e));
    EFIELD_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  }
  ~PipelineStreams() { release(); }
  // Waits for our latest evaluate, then destroys the streams and events (the owner calls it with
  // its device current; the destructor again, harmlessly). Nothing of ours may still run then. The
  // event, not the stream: a caller may have destroyed its stream already.
  void release() noexcept {
    if (done_) cudaEventSynchronize(done_);
    for (cudaEvent_t* e : {&caller_done_, &done_, &fork_, &join_}) destroy(e);
    for (cudaEvent_t& e : stage_events_) destroy(&e);
    for (cudaStream_t* s : {&side_, &own_}) {
      if (*s) cudaStreamDestroy(*s);
      *s = nullptr;
    }
    stream_ = nullptr;
  }
  PipelineStreams(const PipelineStreams&) = delete;
  PipelineStreams& operator=(const PipelineStreams&) = delete;

  cudaStream_t stream() const { return stream_; }
  cudaStream_t side() const { return side_; }

  // Before enqueuing: on our own stream, our work waits for the caller's legacy-stream work (the
  // caller's own stream orders everything already).
  void order_after_caller() {
    if (!uses_own_) return;
    EFIELD_CUDA_CHECK(cudaEventRecord(caller_done_, nullptr));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(stream_, caller_done_, 0));
  }
  // The end of an evaluate: recorded on done_; on our own stream, the caller's later
  // legacy-stream work waits for it.
  void record_done() {
    EFIELD_CUDA_CHECK(cudaEventRecord(done_, stream_));
    if (uses_own_) EFIELD_CUDA_CHECK(cudaStreamWaitEvent(nullptr, done_, 0));
  }
  void wait_done() const { EFIELD_CUDA_CHECK(cudaEventSynchronize(done_)); }
  void synchronize() const { EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  // A parallel branch: work on side() after fork() starts after everything enqueued so far on
  // stream(); join() makes stream() wait for the branch.
  void fork() {
    EFIELD_CUDA_CHECK(cudaEventRecord(fork_, stream_));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(side_, fork_, 0));
  }
  void end_branch() { EFIELD_CUDA_CHECK(cudaEventRecord(join_, side_)); }
  void join() { EFIELD_CUDA_CHECK(cudaStreamWaitEvent(stream_, join_, 0)); }

  // Moves later work to `caller` (nullptr: an own stream); the new stream starts after everything
  // enqueued on the old one. Returns whether the stream changed.
  bool set(Stream caller) {
    cudaStream_t next = caller != nullptr ? reinterpret_cast<cudaStream_t>(caller) : own_;
    if (next == nullptr) {  // built on a caller's stream: the legacy default stream needs one of ours
      EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&own_, cudaStreamNonBlocking));
      next = own_;
    }
    if (next == stream_) return false;
    EFIELD_CUDA_CHECK(cudaEventRecord(done_, stream_));
    EFIELD_CUDA_CHECK(cudaStreamWaitEvent(next, done_, 0));
    stream_ = next;
    uses_own_ = stream_ == own_;
    return true;
  }

  // Timing events between the stages (profile).
  cudaEvent_t stage_event(int k) const { return stage_events_[k]; }

 private:
  static void destroy(cudaEvent_t* e) noexcept {
    if (*e) cudaEventDestroy(*e);
    *e = nullptr;
  }

  cudaStream_t own_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool uses_own_ = false;
  cudaEvent_t caller_done_ = nullptr;
  cudaStream_t side_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  cudaEvent_t done_ = nullptr;  // recorded after each evaluate (wait_done, stream changes)
  cudaEvent_t stage_events_[kStageEvents] = {};
};

}  // namespace efield::detail
