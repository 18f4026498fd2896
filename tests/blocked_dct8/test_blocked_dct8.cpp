// The 8-point Loeffler network and the blocked 8x8 DCT against docs/math.md's dense definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "efield/blocked_dct8.hpp"
#include "efield/error.hpp"
#include "math/loeffler8.hpp"
#include "reference/dense_transforms.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"
#include "support/random.hpp"

namespace {

using efield::BlockedDct8;
using efield::BlockedDct8Options;
using efield::Transform1D;
using efield::Transform2D;

// A number that counts the arithmetic done on it, to check the network's cost.
struct Counted {
  double v = 0;
  static inline int muls = 0;
  static inline int adds = 0;
  Counted() = default;
  explicit Counted(double x) : v(x) {}
};
Counted operator*(Counted a, Counted b) { ++Counted::muls; return Counted(a.v * b.v); }
Counted operator+(Counted a, Counted b) { ++Counted::adds; return Counted(a.v + b.v); }
Counted operator-(Counted a, Counted b) { ++Counted::adds; return Counted(a.v - b.v); }

template <typename T>
double max_abs_diff(const std::vector<T>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m;
}

// docs/math.md dct2 / idct2 of every 8x8 block, in float64, by dense sums.
std::vector<double> dense_blocked(Transform2D kind, const std::vector<double>& x, int rows, int cols) {
  std::vector<double> y(x.size()), block(64);
  for (int r0 = 0; r0 < rows; r0 += 8) {
    for (int c0 = 0; c0 < cols; c0 += 8) {
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) block[8 * r + c] = x[(r0 + r) * cols + c0 + c];
      const std::vector<double> t = efield::test::dense_2d(kind, block, 8, 8);
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) y[(r0 + r) * cols + c0 + c] = t[8 * r + c];
    }
  }
  return y;
}

TEST(BlockedDct8Network, ForwardCostsElevenMultiplicationsAndTwentyNineAdditions) {
  Counted v[8];
  for (int i = 0; i < 8; ++i) v[i] = Counted(i + 1.0);
  Counted::muls = Counted::adds = 0;
  efield::detail::loeffler8_forward(v);
  EXPECT_EQ(Counted::muls, 11);
  EXPECT_EQ(Counted::adds, 29);
  Counted::muls = Counted::adds = 0;
  efield::detail::loeffler8_inverse(v);
  EXPECT_EQ(Counted::muls, 11);
  EXPECT_EQ(Counted::adds, 29);
}

template <typename T>
void check_network_against_definition(double tol) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const int batch = 64;
  const auto x = efield::test::random_vector<T>(8 * batch, seed);
  const auto ref = efield::test::dense_1d(Transform1D::Dct, efield::test::to_double(x), 8, batch);
  std::vector<T> raw(x.size()), scaled(x.size());
  std::vector<double> ref_raw(x.size());
  for (int b = 0; b < batch; ++b) {
    T v[8];
    for (int i = 0; i < 8; ++i) v[i] = x[8 * b + i];
    efield::detail::loeffler8_forward(v);
    for (int k = 0; k < 8; ++k) {
      raw[8 * b + k] = v[k];
      // The documented scale of the network: X[0] and sqrt(2) X[k].
      ref_raw[8 * b + k] = ref[8 * b + k] * (k == 0 ? 1.0 : std::sqrt(2.0));
      scaled[8 * b + k] = v[k] * efield::detail::loeffler8_dct_scale<T>(k);
    }
  }
  EXPECT_LE(efield::test::relative_l2(raw, ref_raw), tol);
  EXPECT_LE(efield::test::relative_l2(scaled, ref), tol);
}

TEST(BlockedDct8Network, ForwardEqualsScaledDefinitionFloat) { check_network_against_definition<float>(1e-6); }
TEST(BlockedDct8Network, ForwardEqualsScaledDefinitionDouble) { check_network_against_definition<double>(1e-14); }

template <typename T>
void check_inverse_network(double tol) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const int batch = 64;
  const auto X = efield::test::random_vector<T>(8 * batch, seed);
  const auto ref = efield::test::dense_1d(Transform1D::Idct, efield::test::to_double(X), 8, batch);
  std::vector<T> got(X.size()), round_trip(X.size());
  std::vector<double> eight_x(X.size());
  for (int b = 0; b < batch; ++b) {
    T v[8];
    for (int k = 0; k < 8; ++k) v[k] = X[8 * b + k] * efield::detail::loeffler8_idct_scale<T>(k);
    efield::detail::loeffler8_inverse(v);
    for (int i = 0; i < 8; ++i) got[8 * b + i] = v[i];
    // inverse(forward(x)) = 8 x: L^T L = 8 I.
    for (int i = 0; i < 8; ++i) v[i] = X[8 * b + i];
    efield::detail::loeffler8_forward(v);
    efield::detail::loeffler8_inverse(v);
    for (int i = 0; i < 8; ++i) {
      round_trip[8 * b + i] = v[i];
      eight_x[8 * b + i] = 8.0 * X[8 * b + i];
    }
  }
  EXPECT_LE(efield::test::relative_l2(got, ref), tol);
  EXPECT_LE(efield::test::relative_l2(round_trip, eight_x), tol);
}

TEST(BlockedDct8Network, InverseEqualsIdctFloat) { check_inverse_network<float>(1e-6); }
TEST(BlockedDct8Network, InverseEqualsIdctDouble) { check_inverse_network<double>(1e-14); }

template <typename T>
void check_blocked_cpu(Transform2D kind, int rows, int cols, double tol) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << efield::to_string(kind) << " " << rows << "x" << cols);
  const auto x = efield::test::random_vector<T>(static_cast<size_t>(rows) * cols, seed);
  const auto ref = dense_blocked(kind, efield::test::to_double(x), rows, cols);
  BlockedDct8Options opt;
  opt.backend = efield::Backend::Cpu;
  BlockedDct8<T> plan(kind, rows, cols, opt);
  auto out = efield::test::poisoned<T>(x.size());
  plan.execute(x.data(), out.data());
  EXPECT_LE(efield::test::relative_l2(out, ref), tol);
  // Twice on the same plan: nothing carried over from the first call.
  out = efield::test::poisoned<T>(x.size());
  plan.execute_host(x.data(), out.data());
  EXPECT_LE(efield::test::relative_l2(out, ref), tol);
  // In place.
  auto inplace = x;
  plan.execute(inplace.data(), inplace.data());
  EXPECT_LE(efield::test::relative_l2(inplace, ref), tol);
}

TEST(BlockedDct8Cpu, ForwardMatchesDenseDct2PerBlockFloat) {
  check_blocked_cpu<float>(Transform2D::Dct2, 8, 8, 1e-6);
  check_blocked_cpu<float>(Transform2D::Dct2, 48, 72, 1e-6);
}
TEST(BlockedDct8Cpu, ForwardMatchesDenseDct2PerBlockDouble) {
  check_blocked_cpu<double>(Transform2D::Dct2, 40, 16, 1e-13);
}
TEST(BlockedDct8Cpu, InverseMatchesDenseIdct2PerBlockFloat) {
  check_blocked_cpu<float>(Transform2D::Idct2, 8, 8, 1e-6);
  check_blocked_cpu<float>(Transform2D::Idct2, 24, 64, 1e-6);
}
TEST(BlockedDct8Cpu, InverseMatchesDenseIdct2PerBlockDouble) {
  check_blocked_cpu<double>(Transform2D::Idct2, 16, 56, 1e-13);
}

TEST(BlockedDct8Cpu, RoundTripWithInverseScaleIsIdentity) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const int rows = 64, cols = 96;
  const auto x = efield::test::random_vector<float>(rows * cols, seed);
  BlockedDct8Options fo, io;
  fo.backend = io.backend = efield::Backend::Cpu;
  io.inverse_scale = 1.0 / 64;
  BlockedDct8<float> fwd(Transform2D::Dct2, rows, cols, fo), inv(Transform2D::Idct2, rows, cols, io);
  auto coeffs = efield::test::poisoned<float>(x.size()), back = efield::test::poisoned<float>(x.size());
  fwd.execute(x.data(), coeffs.data());
  inv.execute(coeffs.data(), back.data());
  EXPECT_LE(max_abs_diff(back, efield::test::to_double(x)), 1e-5);
}

TEST(BlockedDct8Cpu, ThresholdZeroesSmallCoefficientsOnly) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const int rows = 32, cols = 48;
  const double eps = 1.5;
  const auto x = efield::test::random_vector<float>(rows * cols, seed);
  const auto ref = dense_blocked(Transform2D::Dct2, efield::test::to_double(x), rows, cols);
  BlockedDct8Options opt;
  opt.backend = efield::Backend::Cpu;
  opt.zero_below = eps;
  BlockedDct8<float> plan(Transform2D::Dct2, rows, cols, opt);
  auto out = efield::test::poisoned<float>(x.size());
  plan.execute(x.data(), out.data());
  int zeroed = 0, kept = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const double r = ref[i];
    if (std::abs(std::abs(r) - eps) < 1e-4) continue;  // too close to the threshold to call in float
    if (std::abs(r) < eps) {
      EXPECT_EQ(out[i], 0.0f) << "index " << i << " reference " << r;
      ++zeroed;
    } else {
      EXPECT_NEAR(out[i], r, 1e-5 * (1 + std::abs(r))) << "index " << i;
      ++kept;
    }
  }
  EXPECT_GT(zeroed, 0);
  EXPECT_GT(kept, 0);
}

TEST(BlockedDct8Cpu, ThreadCountDoesNotChangeResults) {
  const auto seed = efield::test::next_seed();
  const int rows = 64, cols = 64;
  const auto x = efield::test::random_vector<double>(rows * cols, seed);
  BlockedDct8Options one, all;
  one.backend = all.backend = efield::Backend::Cpu;
  one.cpu_threads = 1;
  BlockedDct8<double> a(Transform2D::Dct2, rows, cols, one), b(Transform2D::Dct2, rows, cols, all);
  auto ya = efield::test::poisoned<double>(x.size()), yb = efield::test::poisoned<double>(x.size());
  a.execute(x.data(), ya.data());
  b.execute(x.data(), yb.data());
  EXPECT_EQ(ya, yb);
}

TEST(BlockedDct8Errors, BadRequestsRaise) {
  BlockedDct8Options cpu;
  cpu.backend = efield::Backend::Cpu;
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Dct2, 12, 16, cpu), efield::Error);
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Dct2, 16, 20, cpu), efield::Error);
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Dct2, 0, 8, cpu), efield::Error);
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Dct2, -8, 8, cpu), efield::Error);
  EXPECT_THROW(BlockedDct8<double>(Transform2D::IdctIdxst, 8, 8, cpu), efield::Error);
  BlockedDct8Options bad = cpu;
  bad.zero_below = -1;
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Dct2, 8, 8, bad), efield::Error);
  bad.zero_below = std::nan("");
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Dct2, 8, 8, bad), efield::Error);
  bad = cpu;
  bad.inverse_scale = std::numeric_limits<double>::infinity();
  EXPECT_THROW(BlockedDct8<float>(Transform2D::Idct2, 8, 8, bad), efield::Error);
  try {
    BlockedDct8<float>(Transform2D::Dct2, 10, 16, cpu);
    FAIL() << "expected efield::Error";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find("10 x 16"), std::string::npos) << e.what();
  }
  BlockedDct8<float> plan(Transform2D::Dct2, 16, 16, cpu);
  std::vector<float> buf(16 * 16 + 8, 1.0f);
  EXPECT_THROW(plan.execute(nullptr, buf.data()), efield::Error);
  EXPECT_THROW(plan.execute(buf.data(), buf.data() + 8), efield::Error);  // partial overlap
}

// CPU and CUDA agree, and both equal the dense reference; device pointers, host pointers, in place,
// and a misaligned device pointer (the kernel's scalar path).
template <typename T>
void check_cpu_and_cuda_agree(Transform2D kind, int rows, int cols, double zero_below, double tol) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << efield::to_string(kind) << " " << rows << "x" << cols);
  const size_t n = static_cast<size_t>(rows) * cols;
  const auto x = efield::test::random_vector<T>(n, seed, -2.0, 2.0);
  BlockedDct8Options co, go;
  co.backend = efield::Backend::Cpu;
  go.backend = efield::Backend::Cuda;
  co.zero_below = go.zero_below = zero_below;
  co.inverse_scale = go.inverse_scale = 0.5;
  BlockedDct8<T> cpu(kind, rows, cols, co), gpu(kind, rows, cols, go);
  ASSERT_EQ(gpu.backend(), efield::Backend::Cuda);
  auto ref = efield::test::poisoned<T>(n);
  cpu.execute(x.data(), ref.data());
  if (zero_below == 0) {
    auto dense = dense_blocked(kind, efield::test::to_double(x), rows, cols);
    if (kind == Transform2D::Idct2)
      for (auto& v : dense) v *= 0.5;
    EXPECT_LE(efield::test::relative_l2(ref, dense), tol);
  }
  const auto ref_d = efield::test::to_double(ref);

  // execute on device pointers, out of place.
  efield::test::DeviceArray<T> din(x), dout(efield::test::poisoned<T>(n));
  gpu.execute(din.get(), dout.get());
  efield::test::device_synchronize();
  auto got = dout.download();
  EXPECT_LE(efield::test::relative_l2(got, ref_d), tol);
  if (zero_below > 0) {
    // The same coefficients are zeroed, except ties within float rounding of the threshold.
    int differ = 0;
    for (size_t i = 0; i < n; ++i) differ += (got[i] == 0) != (ref[i] == 0);
    EXPECT_LE(differ, 2);
  }

  // In place on the device.
  efield::test::DeviceArray<T> dio(x);
  gpu.execute(dio.get(), dio.get());
  efield::test::device_synchronize();
  EXPECT_LE(efield::test::relative_l2(dio.download(), ref_d), tol);

  // Misaligned device pointers (one element past a 256-byte boundary): the scalar path.
  std::vector<T> padded(n + 1, T(7));
  std::copy(x.begin(), x.end(), padded.begin() + 1);
  efield::test::DeviceArray<T> dpin(padded), dpout(efield::test::poisoned<T>(n + 1));
  gpu.execute(dpin.get() + 1, dpout.get() + 1);
  efield::test::device_synchronize();
  const auto pgot = dpout.download();
  EXPECT_TRUE(std::isnan(static_cast<double>(pgot[0]))) << "wrote before the output";
  EXPECT_LE(efield::test::relative_l2(std::vector<T>(pgot.begin() + 1, pgot.end()), ref_d), tol);

  // Host pointers through execute_host.
  auto host = efield::test::poisoned<T>(n);
  gpu.execute_host(x.data(), host.data());
  EXPECT_LE(efield::test::relative_l2(host, ref_d), tol);
}

TEST(BlockedDct8Gpu, CpuAndCudaAgreeFloat) {
  EFIELD_REQUIRE_GPU();
  check_cpu_and_cuda_agree<float>(Transform2D::Dct2, 8, 8, 0.0, 1e-6);
  check_cpu_and_cuda_agree<float>(Transform2D::Dct2, 136, 1032, 0.0, 1e-6);  // partial last CUDA block
  check_cpu_and_cuda_agree<float>(Transform2D::Dct2, 64, 256, 0.5, 1e-6);
  check_cpu_and_cuda_agree<float>(Transform2D::Idct2, 72, 520, 0.0, 1e-6);
}

TEST(BlockedDct8Gpu, CpuAndCudaAgreeDouble) {
  EFIELD_REQUIRE_GPU();
  check_cpu_and_cuda_agree<double>(Transform2D::Dct2, 48, 1040, 0.0, 1e-13);
  check_cpu_and_cuda_agree<double>(Transform2D::Dct2, 64, 64, 0.5, 1e-13);
  check_cpu_and_cuda_agree<double>(Transform2D::Idct2, 40, 264, 0.0, 1e-13);
}

TEST(BlockedDct8Gpu, WrongMemoryKindRaises) {
  EFIELD_REQUIRE_GPU();
  BlockedDct8Options go, co;
  go.backend = efield::Backend::Cuda;
  co.backend = efield::Backend::Cpu;
  BlockedDct8<float> gpu(Transform2D::Dct2, 8, 8, go), cpu(Transform2D::Dct2, 8, 8, co);
  std::vector<float> host(64, 1.0f);
  efield::test::DeviceArray<float> dev(host);
  EXPECT_THROW(gpu.execute(host.data(), host.data()), efield::Error);
  EXPECT_THROW(cpu.execute(dev.get(), dev.get()), efield::Error);
}

}  // namespace
