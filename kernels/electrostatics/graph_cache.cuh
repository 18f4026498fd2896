#pragma once
// Internal: the CUDA graphs of one pipeline. Each evaluate runs as one graph replay: captured on
// first use for its choice (host or device arrays, the bins, accumulate or write), and for device
// arrays again when the caller's pointers change. A size update drops them all (launch shapes
// depend on the sizes).
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "electrostatics/pipeline_policy.cuh"

namespace efield::detail {

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

// The graph of each choice. T: the position type (the pointers a device graph was captured for).
template <typename T>
class GraphCache {
 public:
  struct Pointers {
    const T* x = nullptr;
    const T* y = nullptr;
    T* gx = nullptr;
    T* gy = nullptr;
    bool operator==(const Pointers& o) const { return x == o.x && y == o.y && gx == o.gx && gy == o.gy; }
  };

  // Replays the graph of (on_device, bins, accumulate), capturing `enqueue` into it first when it
  // has none yet or (device arrays) was captured for other pointers.
  template <typename F>
  void launch(bool on_device, Bins bins, bool accumulate, const Pointers& pointers, cudaStream_t stream,
              F&& enqueue) {
    const int b = static_cast<int>(bins), acc = accumulate ? 1 : 0;
    GraphExec& graph = on_device ? device_[b][acc] : host_[b];
    Pointers& captured_for = device_pointers_[b][acc];
    if (!graph.ready() || (on_device && !(pointers == captured_for))) {
      graph.capture(stream, enqueue);
      if (on_device) captured_for = pointers;
    }
    graph.launch(stream);
  }

  void reset() {
    for (GraphExec& g : host_) g.reset();
    for (auto& pair : device_)
      for (GraphExec& g : pair) g.reset();
  }

 private:
  // [Bins]; device arrays also [accumulate] (host arrays add on the host).
  GraphExec host_[kBinsKinds], device_[kBinsKinds][2];
  Pointers device_pointers_[kBinsKinds][2] = {};
};

}  // namespace efield::detail
