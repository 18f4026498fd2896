#pragma once
// Internal: the CUDA graphs of the 3D pipeline's evaluate (pipeline3d_cuda.cu).
#include <cuda_runtime.h>

#include "electrostatics/graph_cache.cuh"  // GraphExec

namespace efield::detail {

// A few graphs of evaluate, one per set of pointers (and accumulate): a placer whose gradient
// buffers alternate between a few allocations (PyTorch's caching allocator) replays instead of
// capturing again; the least recently used one is captured over.
template <typename Key>
class GraphSlots {
 public:
  template <typename F>
  void launch(const Key& key, cudaStream_t capture_stream, cudaStream_t stream, F&& enqueue) {
    int slot = -1, oldest = 0;
    for (int i = 0; i < kSlots; ++i) {
      if (graphs_[i].ready() && keys_[i] == key) slot = i;
      if (used_[i] < used_[oldest]) oldest = i;
    }
    if (slot < 0) {
      slot = oldest;
      graphs_[slot].capture(capture_stream, enqueue);
      keys_[slot] = key;
    }
    used_[slot] = ++clock_;
    graphs_[slot].launch(stream);
  }
  void reset() {
    for (int i = 0; i < kSlots; ++i) graphs_[i].reset(), used_[i] = 0;
  }

 private:
  static constexpr int kSlots = 4;
  GraphExec graphs_[kSlots];
  Key keys_[kSlots];
  unsigned long long used_[kSlots] = {0, 0, 0, 0};
  unsigned long long clock_ = 0;
};

}  // namespace efield::detail
