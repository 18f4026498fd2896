// The callback path of the CUDA Plan2D (two batched 1D cuFFT transforms with the pre/postprocess
// in cuFFT LTO callbacks), forced through EFIELD_DCT2D_PATH=callbacks: all four transforms in
// float and double against the float64 dense definition, odd and tiny sizes, in == out,
// zero_below, agreement with the three-pass path, and CUDA graphs replayed around direct
// executes with other pointers (the callbacks read the caller's pointers from device memory).
// Few plans and small sizes: every callback plan JIT-links its callbacks at construction.
//
// A .cpp with the CUDA runtime API behind EFIELD_HAS_CUDA, so the CPU-only build compiles it too
// (and reports the skips).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

#include "support/gpu.hpp"
#include "test_dct2d_common.hpp"
#include "transforms/plan2d_callbacks.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace efield::test {
namespace {

constexpr Transform2D kAllKinds[] = {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst,
                                     Transform2D::IdxstIdct};

// EFIELD_DCT2D_PATH for the lifetime of the object (plans read it at construction).
class ForcedPath {
 public:
  explicit ForcedPath(const char* path) {
    const char* old = std::getenv("EFIELD_DCT2D_PATH");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("EFIELD_DCT2D_PATH", path, 1);
  }
  ~ForcedPath() {
    if (had_) {
      setenv("EFIELD_DCT2D_PATH", old_.c_str(), 1);
    } else {
      unsetenv("EFIELD_DCT2D_PATH");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

PlanOptions cuda_options(double zero_below = 0.0) {
  PlanOptions o;
  o.backend = Backend::Cuda;
  o.zero_below = zero_below;
  return o;
}

// Whether this machine's cuFFT makes the callback plans at all (one small try, cached). Where it
// does not, Plan2D logs a warning and uses the three-pass path, and the tests below skip: there
// is no callback path to check (the fallback itself is checked by UnsupportedShapesFallBack and
// by test_dct2d).
bool callback_path_available() {
  static const bool available = [] {
    ForcedPath forced("callbacks");
    const long long before = detail::callback_plans_made();
    Plan2D<float> probe(Transform2D::Dct2, 16, 16, cuda_options());
    return detail::callback_plans_made() == before + 1;
  }();
  return available;
}

#define REQUIRE_CALLBACK_PATH()                                                                     \
  do {                                                                                              \
    EFIELD_REQUIRE_GPU();                                                                           \
    if (!callback_path_available())                                                                 \
      GTEST_SKIP() << "cuFFT could not make the LTO callback plans on this machine (see the logged " \
                      "warning); Plan2D falls back to the three-pass path";                          \
  } while (0)

// A plan that must be on the callback path.
template <typename T>
std::unique_ptr<Plan2D<T>> callback_plan(Transform2D kind, int rows, int cols, double zero_below = 0.0) {
  ForcedPath forced("callbacks");
  const long long before = detail::callback_plans_made();
  const auto start = std::chrono::steady_clock::now();
  auto plan = std::make_unique<Plan2D<T>>(kind, rows, cols, cuda_options(zero_below));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(detail::callback_plans_made(), before + 1) << "the callback path was not taken";
  std::cout << "  callback plan " << to_string(kind) << " " << rows << "x" << cols << " ("
            << type_name<T>() << "): made in " << seconds << " s\n";
  return plan;
}

template <typename T>
void matches_definition(std::initializer_list<std::pair<int, int>> sizes) {
  for (Transform2D kind : kAllKinds) {
    for (const auto& [rows, cols] : sizes) {
      auto plan = callback_plan<T>(kind, rows, cols);
      const auto seed = next_seed();
      SCOPED_TRACE(describe(kind, rows, cols, Backend::Cuda, seed) + " (" + type_name<T>() + ", callbacks)");
      const auto x = random_vector<T>(static_cast<size_t>(rows) * cols, seed);
      const auto ref = dense_2d(kind, to_double(x), rows, cols);
      EXPECT_LE(relative_l2(run_execute(*plan, x), ref), tolerance<T>());
      EXPECT_LE(relative_l2(run_in_place(*plan, x), ref), tolerance<T>());
      EXPECT_LE(relative_l2(run_host(*plan, x), ref), tolerance<T>());
      // The same plan again on a new input in new arrays (the callbacks' pointers change).
      const auto y = random_vector<T>(x.size(), next_seed());
      EXPECT_LE(relative_l2(run_execute(*plan, y), dense_2d(kind, to_double(y), rows, cols)), tolerance<T>());
    }
  }
}

TEST(Plan2DCallbacks, MatchesDefinitionFloat) {
  REQUIRE_CALLBACK_PATH();
  matches_definition<float>({{64, 64}, {128, 96}, {2, 8}, {15, 9}, {7, 2}});
}

TEST(Plan2DCallbacks, MatchesDefinitionDouble) {
  REQUIRE_CALLBACK_PATH();
  matches_definition<double>({{128, 96}, {15, 9}, {2, 2}});
}

TEST(Plan2DCallbacks, LargerSquare) {
  REQUIRE_CALLBACK_PATH();
  for (Transform2D kind : {Transform2D::Dct2, Transform2D::Idct2}) {
    auto plan = callback_plan<float>(kind, 256, 256);
    const auto seed = next_seed();
    SCOPED_TRACE(describe(kind, 256, 256, Backend::Cuda, seed));
    const auto x = random_vector<float>(256 * 256, seed);
    EXPECT_LE(relative_l2(run_execute(*plan, x), dense_2d(kind, to_double(x), 256, 256)), 1e-5);
  }
}

// Same input through both CUDA paths.
TEST(Plan2DCallbacks, AgreesWithThreePassPath) {
  REQUIRE_CALLBACK_PATH();
  for (Transform2D kind : kAllKinds) {
    const int rows = 96, cols = 130;
    auto fused = callback_plan<double>(kind, rows, cols);
    const long long before = detail::callback_plans_made();
    ForcedPath forced("kernels");
    Plan2D<double> three_pass(kind, rows, cols, cuda_options());
    EXPECT_EQ(detail::callback_plans_made(), before) << "EFIELD_DCT2D_PATH=kernels was not honoured";
    const auto seed = next_seed();
    SCOPED_TRACE(describe(kind, rows, cols, Backend::Cuda, seed));
    const auto x = random_vector<double>(static_cast<size_t>(rows) * cols, seed);
    EXPECT_LE(relative_l2(run_execute(*fused, x), run_execute(three_pass, x)), 1e-13);
  }
}

// Shapes the callback path does not take (a length-1 axis) still give the definition.
TEST(Plan2DCallbacks, UnsupportedShapesFallBack) {
  EFIELD_REQUIRE_GPU();
  ForcedPath forced("callbacks");
  for (const auto& [rows, cols] : {std::pair{1, 33}, {40, 1}, {1, 1}}) {
    const long long before = detail::callback_plans_made();
    Plan2D<float> plan(Transform2D::IdctIdxst, rows, cols, cuda_options());
    EXPECT_EQ(detail::callback_plans_made(), before);
    const auto x = random_vector<float>(static_cast<size_t>(rows) * cols, next_seed());
    EXPECT_LE(relative_l2(run_execute(plan, x), dense_2d(Transform2D::IdctIdxst, to_double(x), rows, cols)), 1e-5);
  }
}

TEST(Plan2DCallbacks, ZeroBelow) {
  REQUIRE_CALLBACK_PATH();
  const int rows = 48, cols = 40;
  const double threshold = 2.0;
  auto plan = callback_plan<double>(Transform2D::Dct2, rows, cols, threshold);
  const auto x = random_vector<double>(static_cast<size_t>(rows) * cols, next_seed());
  const auto ref = dense_2d(Transform2D::Dct2, x, rows, cols);
  const auto got = run_execute(*plan, x);
  int zeroed = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::abs(ref[i]) < threshold * 0.999) {
      EXPECT_EQ(got[i], 0.0) << "index " << i;
      ++zeroed;
    } else if (std::abs(ref[i]) > threshold * 1.001) {
      EXPECT_NEAR(got[i], ref[i], 1e-9 * (1 + std::abs(ref[i]))) << "index " << i;
    }
  }
  EXPECT_GT(zeroed, 0);
}

#if EFIELD_HAS_CUDA
void ok(cudaError_t e) { ASSERT_EQ(e, cudaSuccess) << cudaGetErrorString(e); }

// Two graphs captured with different arrays, replayed in turn with direct executes on yet other
// arrays in between (and a direct execute repeating earlier pointers after a replay).
template <typename T>
void graphs_and_direct_calls(Transform2D kind, int rows, int cols) {
  SCOPED_TRACE(std::string(to_string(kind)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
  auto plan = callback_plan<T>(kind, rows, cols);
  const size_t n = static_cast<size_t>(rows) * cols;
  cudaStream_t stream = nullptr;
  ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<T> in1(n), out1(n), in2(n), out2(n), in3(n), out3(n);
  cudaGraphExec_t exec[2] = {nullptr, nullptr};
  cudaGraph_t graph[2] = {nullptr, nullptr};
  DeviceArray<T>* ins[2] = {&in1, &in2};
  DeviceArray<T>* outs[2] = {&out1, &out2};
  for (int g = 0; g < 2; ++g) {
    ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    plan->execute(ins[g]->get(), outs[g]->get(), reinterpret_cast<Stream>(stream));
    ok(cudaStreamEndCapture(stream, &graph[g]));
    ok(cudaGraphInstantiate(&exec[g], graph[g], 0));
  }
  auto check = [&](DeviceArray<T>& in, DeviceArray<T>& out, auto&& launch, const char* what) {
    const auto seed = next_seed();
    SCOPED_TRACE(std::string(what) + ", seed " + std::to_string(seed));
    const auto x = random_vector<T>(n, seed);
    in.upload(x);
    out.upload(poisoned<T>(n));
    // cudaMemcpy from pageable memory may return before its DMA lands; the launch below runs on
    // a non-blocking stream that would not wait for it.
    ok(cudaDeviceSynchronize());
    launch();
    ok(cudaStreamSynchronize(stream));
    EXPECT_LE(relative_l2(out.download(), dense_2d(kind, to_double(x), rows, cols)), tolerance<T>());
  };
  auto direct = [&](DeviceArray<T>& in, DeviceArray<T>& out) {
    return [&] { plan->execute(in.get(), out.get(), reinterpret_cast<Stream>(stream)); };
  };
  auto replay = [&](int g) { return [&, g] { ok(cudaGraphLaunch(exec[g], stream)); }; };
  check(in3, out3, direct(in3, out3), "direct 3");
  check(in1, out1, replay(0), "graph 1");
  check(in3, out3, direct(in3, out3), "direct 3 again after graph 1");
  check(in2, out2, replay(1), "graph 2");
  check(in1, out1, replay(0), "graph 1 after graph 2");
  check(in3, out3, direct(in3, out3), "direct 3 after graph 1");
  check(in3, out3, direct(in3, out3), "direct 3 repeated");
  for (int g = 0; g < 2; ++g) {
    cudaGraphExecDestroy(exec[g]);
    cudaGraphDestroy(graph[g]);
  }
  cudaStreamDestroy(stream);
}

TEST(Plan2DCallbacks, GraphsWithChangingPointers) {
  REQUIRE_CALLBACK_PATH();
  graphs_and_direct_calls<float>(Transform2D::Dct2, 64, 48);
  graphs_and_direct_calls<double>(Transform2D::IdxstIdct, 33, 64);
}
#endif

TEST(Plan2DCallbacks, PathVariableIsReadAtConstruction) {
  // Holds on any build: an unknown value falls back to auto (with a warning), not an error.
  ForcedPath forced("no-such-path");
  EXPECT_EQ(detail::requested_dct2d_path(), detail::Dct2dPath::Auto);
  ForcedPath kernels("kernels");
  EXPECT_EQ(detail::requested_dct2d_path(), detail::Dct2dPath::Kernels);
}

}  // namespace
}  // namespace efield::test
