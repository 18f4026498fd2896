// Plan2D against the float64 definitions of docs/math.md 1, on the CPU backend and (when a GPU is
// present) the CUDA backend: every transform at sizes covering 1, odd, even, prime and
// non-square on both axes, round trips, zero_below, aliasing, host entry points, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_dct2d_common.hpp"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

template <typename T>
void sweep(Backend backend) {
  for (const auto& [rows, cols] : sweep_sizes_2d()) {
    for (Transform2D kind : kAllKinds) expect_2d_matches_definition<T>(kind, rows, cols, backend);
  }
}

template <typename T>
void round_trip(Backend backend) {
  PlanOptions options;
  options.backend = backend;
  for (const auto& [rows, cols] : {std::pair{1, 1}, {1, 9}, {9, 1}, {6, 7}, {64, 33}, {127, 128}}) {
    expect_round_trip<T>(rows, cols, options);
  }
}

template <typename T>
void zero_below(Backend backend) {
  PlanOptions options;
  options.backend = backend;
  for (const auto& [rows, cols] : {std::pair{1, 1}, {1, 16}, {16, 1}, {33, 64}, {64, 64}}) {
    expect_zero_below<T>(rows, cols, options);
  }
}

template <typename T>
void aliasing_and_host(Backend backend) {
  PlanOptions options;
  options.backend = backend;
  for (Transform2D kind : kAllKinds) {
    for (const auto& [rows, cols] : {std::pair{1, 1}, {1, 5}, {5, 1}, {17, 32}}) {
      expect_in_place_host_and_reuse<T>(kind, rows, cols, options);
    }
  }
}

TEST(Plan2DCpu, MatchesDefinitionFloat) { sweep<float>(Backend::Cpu); }
TEST(Plan2DCpu, MatchesDefinitionDouble) { sweep<double>(Backend::Cpu); }
TEST(Plan2DCpu, RoundTrip) {
  round_trip<float>(Backend::Cpu);
  round_trip<double>(Backend::Cpu);
}
TEST(Plan2DCpu, ZeroBelow) {
  zero_below<float>(Backend::Cpu);
  zero_below<double>(Backend::Cpu);
}
TEST(Plan2DCpu, InPlaceHostAndReuse) {
  aliasing_and_host<float>(Backend::Cpu);
  aliasing_and_host<double>(Backend::Cpu);
}
TEST(Plan2DCpu, SingleThreadMatches) {
  PlanOptions options;
  options.backend = Backend::Cpu;
  options.cpu_threads = 1;
  Plan2D<double> plan(Transform2D::IdxstIdct, 37, 20, options);
  const auto x = random_vector<double>(37 * 20, next_seed());
  EXPECT_LE(relative_l2(run_execute(plan, x), dense_2d(Transform2D::IdxstIdct, x, 37, 20)), 1e-12);
}

TEST(Plan2DCuda, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  sweep<float>(Backend::Cuda);
}
TEST(Plan2DCuda, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  sweep<double>(Backend::Cuda);
}
TEST(Plan2DCuda, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  round_trip<float>(Backend::Cuda);
  round_trip<double>(Backend::Cuda);
}
TEST(Plan2DCuda, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  zero_below<float>(Backend::Cuda);
  zero_below<double>(Backend::Cuda);
}
TEST(Plan2DCuda, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  aliasing_and_host<float>(Backend::Cuda);
  aliasing_and_host<double>(Backend::Cuda);
}
TEST(Plan2DCuda, AgreesWithCpu) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) {
    for (const auto& [rows, cols] : {std::pair{1, 64}, {64, 1}, {96, 81}, {256, 512}}) {
      const auto seed = next_seed();
      SCOPED_TRACE(describe(kind, rows, cols, Backend::Cuda, seed));
      PlanOptions cpu, gpu;
      cpu.backend = Backend::Cpu;
      gpu.backend = Backend::Cuda;
      Plan2D<double> a(kind, rows, cols, cpu), b(kind, rows, cols, gpu);
      const auto x = random_vector<double>(static_cast<size_t>(rows) * cols, seed);
      EXPECT_LE(relative_l2(run_execute(b, x), run_execute(a, x)), 1e-13);
    }
  }
}
TEST(Plan2DCuda, LargeSquareFloat) {
  EFIELD_REQUIRE_GPU();
  // 1024^2 against the CPU backend in double (the dense reference would be slow here).
  for (Transform2D kind : kAllKinds) {
    const auto seed = next_seed();
    SCOPED_TRACE(describe(kind, 1024, 1024, Backend::Cuda, seed));
    PlanOptions cpu, gpu;
    cpu.backend = Backend::Cpu;
    gpu.backend = Backend::Cuda;
    Plan2D<double> ref(kind, 1024, 1024, cpu);
    Plan2D<float> fast(kind, 1024, 1024, gpu);
    const auto x = random_vector<float>(1024 * 1024, seed);
    EXPECT_LE(relative_l2(run_execute(fast, x), run_execute(ref, to_double(x))), 1e-5);
  }
}

// ---- errors --------------------------------------------------------------------------------------

template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Plan2DErrors, BadSizesNameTheArgument) {
  PlanOptions cpu;
  cpu.backend = Backend::Cpu;
  auto msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 0, 4, cpu); });
  EXPECT_NE(msg.find("rows must be >= 1 (got 0)"), std::string::npos) << msg;
  msg = error_of([&] { Plan2D<double>(Transform2D::Idct2, 4, -3, cpu); });
  EXPECT_NE(msg.find("cols must be >= 1 (got -3)"), std::string::npos) << msg;
  msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 1 << 16, 1 << 16, cpu); });
  EXPECT_NE(msg.find("exceed"), std::string::npos) << msg;
  msg = error_of([&] { Plan2D<float>(static_cast<Transform2D>(42), 4, 4, cpu); });
  EXPECT_NE(msg.find("kind"), std::string::npos) << msg;
}

TEST(Plan2DErrors, BadOptions) {
  PlanOptions o;
  o.backend = Backend::Cpu;
  o.cpu_threads = -2;
  auto msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 4, 4, o); });
  EXPECT_NE(msg.find("cpu_threads"), std::string::npos) << msg;
  o.cpu_threads = 0;
  o.zero_below = std::nan("");
  msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 4, 4, o); });
  EXPECT_NE(msg.find("zero_below"), std::string::npos) << msg;
  o.zero_below = -1;
  msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 4, 4, o); });
  EXPECT_NE(msg.find("zero_below"), std::string::npos) << msg;
}

TEST(Plan2DErrors, InvalidMethodValue) {
  PlanOptions o;
  o.backend = Backend::Cpu;
  o.cuda_2d_method = static_cast<Cuda2DMethod>(99);
  const auto msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 4, 4, o); });
  EXPECT_NE(msg.find("cuda_2d_method"), std::string::npos) << msg;
}

TEST(Plan2DErrors, NullPointers) {
  PlanOptions cpu;
  cpu.backend = Backend::Cpu;
  Plan2D<float> plan(Transform2D::Dct2, 4, 4, cpu);
  std::vector<float> buf(16, 1.0f);
  auto msg = error_of([&] { plan.execute(nullptr, buf.data()); });
  EXPECT_NE(msg.find("`in` is null"), std::string::npos) << msg;
  msg = error_of([&] { plan.execute(buf.data(), nullptr); });
  EXPECT_NE(msg.find("`out` is null"), std::string::npos) << msg;
  msg = error_of([&] { plan.execute_host(nullptr, buf.data()); });
  EXPECT_NE(msg.find("`in` is null"), std::string::npos) << msg;
}

TEST(Plan2DErrors, MovedFromPlan) {
  PlanOptions cpu;
  cpu.backend = Backend::Cpu;
  Plan2D<float> a(Transform2D::Dct2, 4, 4, cpu);
  Plan2D<float> b(std::move(a));
  EXPECT_EQ(b.rows(), 4);
  std::vector<float> buf(16, 1.0f);
  auto msg = error_of([&] { a.execute(buf.data(), buf.data()); });  // NOLINT(bugprone-use-after-move)
  EXPECT_NE(msg.find("moved from"), std::string::npos) << msg;
}

TEST(Plan2DErrors, CudaUnavailable) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  PlanOptions o;
  o.backend = Backend::Cuda;
  const auto msg = error_of([&] { Plan2D<float>(Transform2D::Dct2, 4, 4, o); });
  EXPECT_NE(msg.find("CUDA"), std::string::npos) << msg;
}

TEST(Plan2DErrors, CudaPlanRejectsHostPointers) {
  EFIELD_REQUIRE_GPU();
  PlanOptions o;
  o.backend = Backend::Cuda;
  Plan2D<float> plan(Transform2D::Dct2, 4, 4, o);
  std::vector<float> buf(16, 1.0f);
  const auto msg = error_of([&] { plan.execute(buf.data(), buf.data()); });
  EXPECT_NE(msg.find("device pointers"), std::string::npos) << msg;
}

TEST(Plan2DApi, AccessorsAndNames) {
  PlanOptions cpu;
  cpu.backend = Backend::Cpu;
  Plan2D<double> plan(Transform2D::IdctIdxst, 3, 9, cpu);
  EXPECT_EQ(plan.kind(), Transform2D::IdctIdxst);
  EXPECT_EQ(plan.rows(), 3);
  EXPECT_EQ(plan.cols(), 9);
  EXPECT_EQ(plan.backend(), Backend::Cpu);
  EXPECT_STREQ(to_string(Transform2D::Dct2), "dct2");
  EXPECT_STREQ(to_string(Transform2D::Idct2), "idct2");
  EXPECT_STREQ(to_string(Transform2D::IdctIdxst), "idct_idxst");
  EXPECT_STREQ(to_string(Transform2D::IdxstIdct), "idxst_idct");
  EXPECT_STREQ(to_string(Transform3D::Dct), "dct3d");
  EXPECT_STREQ(to_string(Transform3D::Idct), "idct3d");
  EXPECT_STREQ(to_string(Transform1D::Idxst), "idxst");
  EXPECT_STREQ(to_string(DctAlgorithm::Mirrored2N), "mirrored2n");
  EXPECT_STREQ(to_string(Cuda2DMethod::OneFft), "one_fft");
  EXPECT_STREQ(to_string(Cuda2DMethod::Auto), "auto");
}

}  // namespace
}  // namespace efield::test
