#pragma once
// Internal: the CUDA graphs of one pipeline. Each evaluate runs as one graph replay: captured on
// first use for its choice (host or device arrays, the bins, accumulate or write), and for device
// arrays for each set of the caller's pointers: the graphs of the latest kPointerSlots sets are
// kept, so a caller that takes turns between a few buffers (the compiled PyTorch op's new gradient
// tensor per forward, which the caching allocator hands out from a few blocks; double buffering)
// replays them instead of capturing and instantiating a graph per call. A size update drops them
// all (launch shapes depend on the sizes). The gradient's weight is a kernel node of each graph
// (set_weight_kernel) whose value is changed in the instantiated graph when the caller's weight
// changes, so a placer's new weight every iteration costs no launch of its own.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"
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

  // The kernel node of `kernel` (none: nullptr) and its captured parameters. Nodes whose
  // parameters the runtime does not hand out (kernels of other libraries, e.g. cuFFT's) are skipped.
  cudaGraphNode_t find_kernel_node(const void* kernel, cudaKernelNodeParams* params) const {
    std::size_t count = 0;
    EFIELD_CUDA_CHECK(cudaGraphGetNodes(graph_, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    EFIELD_CUDA_CHECK(cudaGraphGetNodes(graph_, nodes.data(), &count));
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type;
      EFIELD_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
      if (type != cudaGraphNodeTypeKernel) continue;
      if (cudaGraphKernelNodeGetParams(node, params) != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky: clears the error this query left
        continue;
      }
      if (params->func == kernel) return node;
    }
    return nullptr;
  }
  // The instantiated graph's kernel `node` runs with `params` from the next replay on.
  void set_kernel_params(cudaGraphNode_t node, const cudaKernelNodeParams& params) {
    EFIELD_CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec_, node, &params));
  }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The graphs of each choice. T: the position type (the pointers a device graph was captured for).
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
  // Pointer sets whose graphs are kept per choice of device arrays (the least recently replayed
  // one is captured over when a new set comes).
  static constexpr int kPointerSlots = 4;

  // Replays the graph of (on_device, bins, accumulate) and, for device arrays, these pointers with
  // the gradient's weight, capturing `enqueue` (which enqueues the weight's kernel with the weight
  // it is given) into it first when there is none yet.
  template <typename F>
  void launch(bool on_device, Bins bins, bool accumulate, const Pointers& pointers, T weight, cudaStream_t stream,
              F&& enqueue) {
    const int b = static_cast<int>(bins), acc = accumulate ? 1 : 0;
    Slot& slot = on_device ? device_slot(device_[b][acc], pointers) : host_[b];
    slot.used = ++clock_;
    WeightNode& w = slot.weight;
    // A graph whose weight node was not found (never expected) is captured again for a new weight.
    const bool stale_weight = w.node == nullptr && !(w.value == weight);
    if (!slot.graph.ready() || (on_device && !(pointers == slot.pointers)) || stale_weight) {
      slot.graph.capture(stream, [&] { enqueue(weight); });
      slot.pointers = pointers;
      w.node = slot.graph.find_kernel_node(set_weight_kernel<T>(), &w.params);
      w.value = weight;
    }
    if (w.node != nullptr && !(w.value == weight)) {  // the captured value, changed in place
      cudaKernelNodeParams p = w.params;
      T value = weight;
      void* args[2] = {w.params.kernelParams[0], &value};
      p.kernelParams = args;
      p.extra = nullptr;
      slot.graph.set_kernel_params(w.node, p);
      w.value = weight;
    }
    slot.graph.launch(stream);
  }

  void reset() {
    for (Slot& s : host_) s.graph.reset();
    for (auto& choice : device_)
      for (auto& slots : choice)
        for (Slot& s : slots) s.graph.reset();
  }

 private:
  // A graph's weight node (set_weight_kernel: arguments T* weight, T value), its captured
  // parameters and the value it now sets.
  struct WeightNode {
    cudaGraphNode_t node = nullptr;
    cudaKernelNodeParams params{};
    T value = T(0);
  };
  struct Slot {
    GraphExec graph;
    WeightNode weight;
    Pointers pointers;       // device arrays: what the graph was captured for
    std::uint64_t used = 0;  // clock_ at its latest replay
  };

  // The slot of a choice whose graph was captured for `pointers`, else the one to capture into: an
  // empty one, or the least recently replayed.
  Slot& device_slot(Slot (&slots)[kPointerSlots], const Pointers& pointers) {
    Slot* pick = &slots[0];
    for (Slot& s : slots) {
      if (s.graph.ready() && s.pointers == pointers) return s;
      if (pick->graph.ready() && (!s.graph.ready() || s.used < pick->used)) pick = &s;
    }
    return *pick;
  }

  // [Bins]; device arrays also [accumulate] (host arrays add on the host), then the pointer sets.
  Slot host_[kBinsKinds], device_[kBinsKinds][2][kPointerSlots];
  std::uint64_t clock_ = 0;
};

}  // namespace efield::detail
