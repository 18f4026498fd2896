// Lifetimes on the GPU (issue 40, item 13), meant to be run under compute-sanitizer
// (memcheck, racecheck, synccheck): a system destroyed with an evaluate_async in flight, a
// PinnedHostRange over memory that is already page-locked or no longer mapped, and a caller's CUDA
// graph that captured evaluate_async, replayed and synchronised before the system goes. Each must
// end cleanly: no error, no access to freed memory.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <vector>

#include "efield/efield.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace efield::test {
namespace {

#if EFIELD_HAS_CUDA
ElectrostaticOptions gpu_options() {
  ElectrostaticOptions o;
  o.xh = 256, o.yh = 256;
  o.num_bins_x = o.num_bins_y = 64;
  o.target_density = 0.9;
  o.backend = Backend::Cuda;
  return o;
}

struct SmallDesign {
  CellSizes cells;
  std::vector<float> x, y;
};
SmallDesign small_design(int n = 5000) {
  SmallDesign d;
  for (int i = 0; i < n; ++i) {
    d.cells.widths.push_back(1 + i % 5), d.cells.heights.push_back(1 + i % 3);
    d.x.push_back(static_cast<float>((i * 37) % 250)), d.y.push_back(static_cast<float>((i * 53) % 250));
  }
  return d;
}
#endif

TEST(GpuLifetimes, SystemDestroyedWithAnAsyncEvaluateInFlight) {
  EFIELD_REQUIRE_GPU();
#if EFIELD_HAS_CUDA
  const SmallDesign d = small_design();
  DeviceArray<float> x(d.x), y(d.y), gx(d.x.size()), gy(d.x.size());
  for (int round = 0; round < 3; ++round) {
    ElectrostaticOptions o = gpu_options();
    o.use_cuda_graph = round != 1;
    ElectrostaticSystem es(o, d.cells);
    es.evaluate_async(x.get(), y.get(), gx.get(), gy.get());
    es.evaluate_async(x.get(), y.get(), gx.get(), gy.get(), {2.0, true});
    // No wait_result: the destructor must wait for the work before freeing its buffers.
  }
  device_synchronize();
  ElectrostaticSystem es(gpu_options(), d.cells);
  es.evaluate_async(x.get(), y.get(), gx.get(), gy.get());
  EXPECT_TRUE(std::isfinite(es.wait_result().energy));
#endif
}

TEST(GpuLifetimes, PinnedHostRangeTwiceAndOverUnmappedMemory) {
  EFIELD_REQUIRE_GPU();
#if EFIELD_HAS_CUDA
  std::vector<float> host(1 << 20, 1.0f);
  {
    PinnedHostRange first(host.data(), host.size() * sizeof(float));
    EXPECT_TRUE(first.registered());
    PinnedHostRange again(host.data(), host.size() * sizeof(float));  // already page-locked: left as it is
    EXPECT_FALSE(again.registered());
    PinnedHostRange part(host.data() + 1000, 4096);  // a part of it
    EXPECT_FALSE(part.registered());
    EXPECT_TRUE(is_pinned_host_pointer(host.data()));
  }  // `first` unregisters once; the others do nothing
  EXPECT_FALSE(is_pinned_host_pointer(host.data()));
  // Memory that is no longer mapped: CUDA refuses it, an efield::Error.
  const std::size_t bytes = 1 << 20;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(munmap(p, bytes), 0);
  EXPECT_THROW((void)PinnedHostRange(p, bytes), Error);
  // Moving a registration hands it over once.
  PinnedHostRange a(host.data(), host.size() * sizeof(float));
  PinnedHostRange b(std::move(a));
  EXPECT_FALSE(a.registered());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(b.registered());
#endif
}

TEST(GpuLifetimes, CallersGraphReplayedThenSystemDestroyed) {
  EFIELD_REQUIRE_GPU();
#if EFIELD_HAS_CUDA
  const SmallDesign d = small_design();
  DeviceArray<float> x(d.x), y(d.y), gx(d.x.size()), gy(d.x.size());
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  {
    ElectrostaticOptions o = gpu_options();
    o.stream = stream;
    ElectrostaticSystem es(o, d.cells);
    es.evaluate_async(x.get(), y.get(), gx.get(), gy.get());  // warm-up outside the capture
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    es.evaluate_async(x.get(), y.get(), gx.get(), gy.get(), {1.0, true});
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int k = 0; k < 4; ++k) ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    // The rule (README, Limits): the caller's replays finish before the system goes.
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  // The graph outlives the system but is not replayed again: destroying it is clean.
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  const std::vector<float> g = gx.download();
  for (float v : g) ASSERT_TRUE(std::isfinite(v));
#endif
}

}  // namespace
}  // namespace efield::test
