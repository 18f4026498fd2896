// Plan2D / Plan3D on the CUDA backend inside CUDA graphs and on user streams: execute() only
// enqueues work (no allocation, no synchronization), so it can be captured once and replayed on
// new data in the same buffers.
//
// A .cpp with the CUDA runtime API behind EFIELD_HAS_CUDA, so the CPU-only build compiles it too
// (and reports the skip).
#include "test_dct2d_common.hpp"

#include <gtest/gtest.h>

#include "support/gpu.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>

#include "graph_replay.hpp"

namespace efield::test {
namespace {

template <typename T>
void graph_2d(cudaStreamCaptureMode mode) {
  for (Transform2D kind : {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst, Transform2D::IdxstIdct}) {
    for (const auto& [rows, cols] : {std::pair{1, 1}, {1, 33}, {40, 1}, {64, 50}, {127, 256}}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      PlanOptions o;
      o.backend = Backend::Cuda;
      Plan2D<T> plan(kind, rows, cols, o);
      capture_and_replay<T>(plan, static_cast<size_t>(rows) * cols, mode,
                            [&](const std::vector<double>& x) { return dense_2d(kind, x, rows, cols); });
    }
  }
}

TEST(Plan2DGraph, CaptureGlobalModeAndReplayFloat) {
  EFIELD_REQUIRE_GPU();
  graph_2d<float>(cudaStreamCaptureModeGlobal);
}
TEST(Plan2DGraph, CaptureThreadLocalModeAndReplayDouble) {
  EFIELD_REQUIRE_GPU();
  graph_2d<double>(cudaStreamCaptureModeThreadLocal);
}

TEST(Plan3DGraph, CaptureAndReplay) {
  EFIELD_REQUIRE_GPU();
  for (Transform3D kind : {Transform3D::Dct, Transform3D::Idct}) {
    for (const auto& d : {std::array<int, 3>{1, 5, 6}, {6, 7, 8}}) {
      PlanOptions o;
      o.backend = Backend::Cuda;
      Plan3D<float> plan(kind, d[0], d[1], d[2], o);
      capture_and_replay<float>(plan, static_cast<size_t>(d[0]) * d[1] * d[2], cudaStreamCaptureModeGlobal,
                                [&](const std::vector<double>& x) { return dense_3d(kind, x, d[0], d[1], d[2]); });
    }
  }
}

// Work on a user stream is ordered after earlier work on that stream, without a device sync.
TEST(Plan2DStream, ExecuteOnUserStream) {
  EFIELD_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int rows = 96, cols = 80;
  PlanOptions o;
  o.backend = Backend::Cuda;
  Plan2D<float> fwd(Transform2D::Dct2, rows, cols, o), inv(Transform2D::Idct2, rows, cols, o);
  const auto x = random_vector<float>(rows * cols, next_seed());
  DeviceArray<float> a(x), b(poisoned<float>(x.size()));
  fwd.execute(a.get(), b.get(), reinterpret_cast<Stream>(stream));
  inv.execute(b.get(), b.get(), reinterpret_cast<Stream>(stream));
  ok(cudaStreamSynchronize(stream));
  std::vector<double> scaled(x.size());
  for (size_t i = 0; i < x.size(); ++i) scaled[i] = double(rows) * cols * x[i];
  EXPECT_LE(relative_l2(b.download(), scaled), 1e-5);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace efield::test
#else
TEST(Plan2DGraph, NeedsCuda) { GTEST_SKIP() << "efield was built without CUDA"; }
#endif
