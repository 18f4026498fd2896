// Plan3D against the float64 definition (dct along all three axes; idct likewise), on the CPU
// backend and (when a GPU is present) CUDA: shapes with dimensions of 1 (run through Plan2D),
// odd, even and prime sizes, round trips, zero_below, aliasing, host entry points, errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "support/gpu.hpp"
#include "test_dct2d_common.hpp"

namespace efield::test {
namespace {

constexpr std::array<std::array<int, 3>, 16> kShapes{{{1, 1, 1},
                                                      {1, 1, 7},
                                                      {1, 6, 1},
                                                      {5, 1, 1},
                                                      {3, 1, 4},
                                                      {2, 2, 2},
                                                      {2, 3, 5},
                                                      {5, 3, 2},
                                                      {7, 8, 4},
                                                      {4, 7, 9},
                                                      {16, 17, 9},
                                                      {13, 11, 16},
                                                      {7, 8, 9},
                                                      {16, 15, 2},
                                                      {2, 2, 3},
                                                      {33, 64, 17}}};

std::string describe3(Transform3D kind, const std::array<int, 3>& d, Backend b, std::uint64_t seed) {
  return std::string(to_string(kind)) + " " + std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]) + " on " + to_string(b) + ", seed " + std::to_string(seed);
}

size_t count(const std::array<int, 3>& d) { return static_cast<size_t>(d[0]) * d[1] * d[2]; }

template <typename T>
void sweep(Backend backend) {
  for (const auto& d : kShapes) {
    for (Transform3D kind : {Transform3D::Dct, Transform3D::Idct}) {
      const auto seed = next_seed();
      SCOPED_TRACE(describe3(kind, d, backend, seed) + " " + type_name<T>());
      PlanOptions o;
      o.backend = backend;
      Plan3D<T> plan(kind, d[0], d[1], d[2], o);
      const auto x = random_vector<T>(count(d), seed);
      const auto ref = dense_3d(kind, to_double(x), d[0], d[1], d[2]);
      EXPECT_LE(relative_l2(run_execute(plan, x), ref), tolerance<T>());
      EXPECT_LE(relative_l2(run_in_place(plan, x), ref), tolerance<T>());
      EXPECT_LE(relative_l2(run_host(plan, x), ref), tolerance<T>());
    }
  }
}

template <typename T>
void round_trip_and_threshold(Backend backend) {
  for (const auto& d : {std::array<int, 3>{1, 4, 1}, {6, 5, 7}, {9, 16, 8}}) {
    const auto seed = next_seed();
    SCOPED_TRACE(describe3(Transform3D::Dct, d, backend, seed));
    PlanOptions o;
    o.backend = backend;
    Plan3D<T> fwd(Transform3D::Dct, d[0], d[1], d[2], o), inv(Transform3D::Idct, d[0], d[1], d[2], o);
    const auto x = random_vector<T>(count(d), seed);
    std::vector<double> scaled(x.size());
    for (size_t i = 0; i < x.size(); ++i) scaled[i] = double(count(d)) * x[i];
    EXPECT_LE(relative_l2(run_execute(inv, run_execute(fwd, x)), scaled), 10 * tolerance<T>());

    const auto ref = dense_3d(Transform3D::Dct, to_double(x), d[0], d[1], d[2]);
    double mean_abs = 0;
    for (double r : ref) mean_abs += std::fabs(r) / ref.size();
    o.zero_below = mean_abs;
    Plan3D<T> thresholded(Transform3D::Dct, d[0], d[1], d[2], o);
    const auto out = run_execute(thresholded, x);
    for (size_t i = 0; i < ref.size(); ++i) {
      const double a = std::fabs(ref[i]);
      if (a < o.zero_below * 0.999) EXPECT_EQ(out[i], T(0)) << "element " << i;
      if (a > o.zero_below * 1.001) EXPECT_NEAR(out[i], ref[i], 1e3 * tolerance<T>() * (1 + a)) << "element " << i;
    }
  }
}

TEST(Plan3DCpu, MatchesDefinitionFloat) { sweep<float>(Backend::Cpu); }
TEST(Plan3DCpu, MatchesDefinitionDouble) { sweep<double>(Backend::Cpu); }
TEST(Plan3DCpu, RoundTripAndZeroBelow) {
  round_trip_and_threshold<float>(Backend::Cpu);
  round_trip_and_threshold<double>(Backend::Cpu);
}

TEST(Plan3DCuda, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  sweep<float>(Backend::Cuda);
}
TEST(Plan3DCuda, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  sweep<double>(Backend::Cuda);
}
TEST(Plan3DCuda, RoundTripAndZeroBelow) {
  EFIELD_REQUIRE_GPU();
  round_trip_and_threshold<float>(Backend::Cuda);
  round_trip_and_threshold<double>(Backend::Cuda);
}
// Odd, even and prime mixes, so every axis meets the group edge cases of the pre/post passes
// (index 0 without a mirror, index n/2 its own mirror, odd n with neither).
TEST(Plan3DCuda, AgreesWithCpu) {
  EFIELD_REQUIRE_GPU();
  const std::array<std::array<int, 3>, 7> shapes{
      {{32, 48, 33}, {2, 3, 5}, {7, 8, 9}, {16, 15, 2}, {33, 64, 17}, {2, 2, 3}, {3, 2, 2}}};
  for (const auto& d : shapes) {
    for (Transform3D kind : {Transform3D::Dct, Transform3D::Idct}) {
      const auto seed = next_seed();
      SCOPED_TRACE(describe3(kind, d, Backend::Cuda, seed));
      PlanOptions cpu, gpu;
      cpu.backend = Backend::Cpu;
      gpu.backend = Backend::Cuda;
      Plan3D<double> a(kind, d[0], d[1], d[2], cpu), b(kind, d[0], d[1], d[2], gpu);
      const auto x = random_vector<double>(count(d), seed);
      EXPECT_LE(relative_l2(run_execute(b, x), run_execute(a, x)), 1e-13);
      Plan3D<float> af(kind, d[0], d[1], d[2], cpu), bf(kind, d[0], d[1], d[2], gpu);
      const auto xf = random_vector<float>(count(d), seed);
      EXPECT_LE(relative_l2(run_execute(bf, xf), to_double(run_execute(af, xf))), 1e-5);
    }
  }
}

TEST(Plan3DErrors, BadArguments) {
  PlanOptions cpu;
  cpu.backend = Backend::Cpu;
  auto message = [](auto&& fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  auto msg = message([&] { Plan3D<float>(Transform3D::Dct, 2, 0, 2, cpu); });
  EXPECT_NE(msg.find("d1 must be >= 1 (got 0)"), std::string::npos) << msg;
  msg = message([&] { Plan3D<double>(static_cast<Transform3D>(9), 2, 2, 2, cpu); });
  EXPECT_NE(msg.find("kind"), std::string::npos) << msg;
  msg = message([&] { Plan3D<float>(Transform3D::Dct, 2048, 2048, 2048, cpu); });
  EXPECT_NE(msg.find("exceed"), std::string::npos) << msg;
  Plan3D<float> plan(Transform3D::Idct, 2, 3, 4, cpu);
  EXPECT_EQ(plan.dim(0), 2);
  EXPECT_EQ(plan.dim(2), 4);
  EXPECT_EQ(plan.kind(), Transform3D::Idct);
  msg = message([&] { (void)plan.dim(3); });
  EXPECT_NE(msg.find("axis"), std::string::npos) << msg;
  std::vector<float> buf(24, 1.0f);
  msg = message([&] { plan.execute(buf.data(), nullptr); });
  EXPECT_NE(msg.find("`out` is null"), std::string::npos) << msg;
}

}  // namespace
}  // namespace efield::test
