#pragma once
// CUDA-graph helper of the transform tests: capture one execute() of a plan on a stream, then
// replay the graph on fresh random input in the same buffers (output poisoned with NaN each
// time) and compare with the float64 reference. CUDA builds only.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "test_dct2d_common.hpp"

namespace efield::test {

inline void ok(cudaError_t e) { ASSERT_EQ(e, cudaSuccess) << cudaGetErrorString(e); }

// `reference` maps the float64 input to the expected output.
template <typename T, typename Plan, typename Reference>
void capture_and_replay(Plan& plan, size_t n, cudaStreamCaptureMode mode, Reference reference) {
  cudaStream_t stream = nullptr;
  ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<T> in(n), out(n);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ok(cudaStreamBeginCapture(stream, mode));
  plan.execute(in.get(), out.get(), reinterpret_cast<Stream>(stream));
  ok(cudaStreamEndCapture(stream, &graph));
  ok(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    const auto seed = next_seed();
    SCOPED_TRACE("replay " + std::to_string(replay) + ", seed " + std::to_string(seed));
    const auto x = random_vector<T>(n, seed);
    in.upload(x);
    out.upload(poisoned<T>(n));
    ok(cudaGraphLaunch(exec, stream));
    ok(cudaStreamSynchronize(stream));
    EXPECT_LE(relative_l2(out.download(), reference(to_double(x))), tolerance<T>());
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// A float plan of `method` for each of `kinds`, captured and replayed against the definition.
inline void expect_method_captured_in_graph(Cuda2DMethod method, int rows, int cols,
                                            std::initializer_list<Transform2D> kinds) {
  for (Transform2D kind : kinds) {
    SCOPED_TRACE(std::string(to_string(method)) + " " + to_string(kind));
    Plan2D<float> plan(kind, rows, cols, cuda_options(method));
    capture_and_replay<float>(plan, static_cast<size_t>(rows) * cols, cudaStreamCaptureModeGlobal,
                              [&](const std::vector<double>& x) { return dense_2d(kind, x, rows, cols); });
  }
}

}  // namespace efield::test
