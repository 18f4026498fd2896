// RowColumnPlan2D (the row-column baseline): Dct2 and Idct2 against the float64 dense 2D
// reference of docs/math.md 1, on the CPU and (when a device is present) the CUDA backend.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "efield/efield.hpp"
#include "reference/dense_transforms.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"
#include "support/random.hpp"

namespace {

using efield::Backend;
using efield::PlanOptions;
using efield::RowColumnPlan2D;
using efield::Transform2D;
namespace et = efield::test;

// 1, odd, even, non-square, and shapes that leave partial 32 x 32 transpose tiles.
const std::vector<std::pair<int, int>> kShapes{{1, 1}, {1, 7},   {6, 1},   {2, 2},   {8, 8},
                                               {7, 12}, {16, 31}, {33, 64}, {100, 37}, {65, 129}};

PlanOptions on(Backend b) {
  PlanOptions o;
  o.backend = b;
  o.cpu_threads = 2;
  return o;
}

enum class Memory { Host, Device, HostThroughExecuteHost };

template <typename T>
void check_case(Backend backend, Memory memory, Transform2D kind, int rows, int cols, bool in_place) {
  const auto seed = et::next_seed();
  SCOPED_TRACE(std::string(kind == Transform2D::Dct2 ? "Dct2 " : "Idct2 ") + std::to_string(rows) + "x" +
               std::to_string(cols) + " seed=" + std::to_string(seed) + (in_place ? " in-place" : ""));
  const size_t count = static_cast<size_t>(rows) * cols;
  const auto x = et::random_vector<T>(count, seed);
  RowColumnPlan2D<T> plan(kind, rows, cols, on(backend));
  EXPECT_EQ(plan.backend(), backend);
  std::vector<T> y = et::poisoned<T>(count);
  if (memory == Memory::Device) {
    et::DeviceArray<T> din(x);
    if (in_place) {
      plan.execute(din.get(), din.get());
      y = din.download();
    } else {
      et::DeviceArray<T> dout(et::poisoned<T>(count));
      plan.execute(din.get(), dout.get());
      y = dout.download();
    }
  } else {
    const bool host = memory == Memory::Host;
    if (in_place) {
      y = x;
      host ? plan.execute(y.data(), y.data()) : plan.execute_host(y.data(), y.data());
    } else {
      host ? plan.execute(x.data(), y.data()) : plan.execute_host(x.data(), y.data());
    }
  }
  const auto ref = et::dense_2d(kind, et::to_double(x), rows, cols);
  EXPECT_LE(et::relative_l2(y, ref), et::tolerance<T>());
}

template <typename T>
class RowColumn : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RowColumn, Types);

TYPED_TEST(RowColumn, CpuMatchesDense) {
  for (auto kind : {Transform2D::Dct2, Transform2D::Idct2})
    for (auto [rows, cols] : kShapes) {
      check_case<TypeParam>(Backend::Cpu, Memory::Host, kind, rows, cols, false);
      check_case<TypeParam>(Backend::Cpu, Memory::HostThroughExecuteHost, kind, rows, cols, true);
    }
}

// Large enough for the OpenMP paths (more than 2^15 elements per pass and transpose).
TYPED_TEST(RowColumn, CpuLargeMatchesDense) {
  check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform2D::Dct2, 200, 257, false);
  check_case<TypeParam>(Backend::Cpu, Memory::Host, Transform2D::Idct2, 257, 200, true);
}

TYPED_TEST(RowColumn, CudaMatchesDense) {
  EFIELD_REQUIRE_GPU();
  for (auto kind : {Transform2D::Dct2, Transform2D::Idct2})
    for (auto [rows, cols] : kShapes) {
      check_case<TypeParam>(Backend::Cuda, Memory::Device, kind, rows, cols, false);
      check_case<TypeParam>(Backend::Cuda, Memory::Device, kind, rows, cols, true);
      check_case<TypeParam>(Backend::Cuda, Memory::HostThroughExecuteHost, kind, rows, cols, false);
    }
  check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform2D::Dct2, 200, 257, false);
  check_case<TypeParam>(Backend::Cuda, Memory::Device, Transform2D::Idct2, 257, 200, false);
}

TYPED_TEST(RowColumn, RoundTripIsMNTimesInput) {
  using T = TypeParam;
  std::vector<Backend> backends{Backend::Cpu};
  if (efield::built_with_cuda() && efield::cuda_device_count() > 0) backends.push_back(Backend::Cuda);
  for (Backend b : backends) {
    const int rows = 24, cols = 17;
    const auto seed = et::next_seed();
    SCOPED_TRACE(std::string(efield::to_string(b)) + " seed=" + std::to_string(seed));
    const auto x = et::random_vector<T>(static_cast<size_t>(rows) * cols, seed);
    RowColumnPlan2D<T> forward(Transform2D::Dct2, rows, cols, on(b));
    RowColumnPlan2D<T> inverse(Transform2D::Idct2, rows, cols, on(b));
    auto y = et::poisoned<T>(x.size());
    forward.execute_host(x.data(), y.data());
    inverse.execute_host(y.data(), y.data());
    std::vector<double> mnx(x.size());
    for (size_t i = 0; i < x.size(); ++i) mnx[i] = double(rows) * cols * x[i];
    EXPECT_LE(et::relative_l2(y, mnx), et::tolerance<T>());
  }
}

template <typename F>
void expect_error_naming(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected efield::Error naming '" << needle << "'";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RowColumnArguments, BadArgumentsRaise) {
  const auto cpu = on(Backend::Cpu);
  expect_error_naming([&] { RowColumnPlan2D<float>(Transform2D::IdctIdxst, 8, 8, cpu); }, "IdctIdxst");
  expect_error_naming([&] { RowColumnPlan2D<float>(Transform2D::IdxstIdct, 8, 8, cpu); }, "IdxstIdct");
  expect_error_naming([&] { RowColumnPlan2D<float>(static_cast<Transform2D>(11), 8, 8, cpu); }, "Transform2D");
  expect_error_naming([&] { RowColumnPlan2D<double>(Transform2D::Dct2, 0, 8, cpu); }, "rows must be >= 1");
  expect_error_naming([&] { RowColumnPlan2D<double>(Transform2D::Dct2, 8, -1, cpu); }, "cols must be >= 1");
  RowColumnPlan2D<float> plan(Transform2D::Dct2, 4, 4, cpu);
  std::vector<float> x(16, 1.0f);
  expect_error_naming([&] { plan.execute(nullptr, x.data()); }, "`in` is null");
  expect_error_naming([&] { plan.execute_host(x.data(), nullptr); }, "`out` is null");
}

TEST(RowColumnGpu, HostPointersToExecuteRaise) {
  EFIELD_REQUIRE_GPU();
  RowColumnPlan2D<float> plan(Transform2D::Dct2, 4, 4, on(Backend::Cuda));
  std::vector<float> x(16, 1.0f), y(16);
  expect_error_naming([&] { plan.execute(x.data(), y.data()); }, "device pointers");
}

}  // namespace
