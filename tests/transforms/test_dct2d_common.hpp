#pragma once
// Helpers of the Plan2D / Plan3D tests: run a plan on fresh random input with a NaN-poisoned
// output, on either backend, and compare with the float64 dense reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "reference/dense_transforms.hpp"
#include "support/device_array.hpp"
#include "support/random.hpp"

namespace efield::test {

constexpr Transform2D kAllKinds[] = {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst,
                                     Transform2D::IdxstIdct};

// The CUDA backend with `method`.
inline PlanOptions cuda_options(Cuda2DMethod method) {
  PlanOptions o;
  o.backend = Backend::Cuda;
  o.cuda_2d_method = method;
  return o;
}

template <typename T>
const char* type_name() {
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

// Runs `plan` on `in` with execute() in the backend's memory; `out` starts as NaN everywhere.
template <typename T, typename Plan>
std::vector<T> run_execute(Plan& plan, const std::vector<T>& in) {
  if (plan.backend() == Backend::Cuda) {
    DeviceArray<T> d_in(in);
    DeviceArray<T> d_out(poisoned<T>(in.size()));
    plan.execute(d_in.get(), d_out.get(), nullptr);
    device_synchronize();
    return d_out.download();
  }
  std::vector<T> out = poisoned<T>(in.size());
  plan.execute(in.data(), out.data());
  return out;
}

// Same with in == out.
template <typename T, typename Plan>
std::vector<T> run_in_place(Plan& plan, const std::vector<T>& in) {
  if (plan.backend() == Backend::Cuda) {
    DeviceArray<T> d(in);
    plan.execute(d.get(), d.get(), nullptr);
    device_synchronize();
    return d.download();
  }
  std::vector<T> data = in;
  plan.execute(data.data(), data.data());
  return data;
}

template <typename T, typename Plan>
std::vector<T> run_host(Plan& plan, const std::vector<T>& in) {
  std::vector<T> out = poisoned<T>(in.size());
  plan.execute_host(in.data(), out.data());
  return out;
}

inline std::string describe(Transform2D kind, int rows, int cols, Backend backend, std::uint64_t seed) {
  return std::string(to_string(kind)) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
         " on " + to_string(backend) + ", seed " + std::to_string(seed);
}

// One fresh random check of a 2D transform against the dense definition.
template <typename T>
void expect_2d_matches_definition(Transform2D kind, int rows, int cols, Backend backend,
                                  Cuda2DMethod method = Cuda2DMethod::Auto) {
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE(describe(kind, rows, cols, backend, seed) + " (" + type_name<T>() + ", " + to_string(method) + ")");
  PlanOptions options;
  options.backend = backend;
  options.cuda_2d_method = method;
  Plan2D<T> plan(kind, rows, cols, options);
  const auto x = random_vector<T>(static_cast<size_t>(rows) * cols, seed);
  const auto ref = dense_2d(kind, to_double(x), rows, cols);
  EXPECT_LE(relative_l2(run_execute(plan, x), ref), tolerance<T>());
}

// Every transform at every (rows, cols) of `sizes` on the CUDA backend with `method`.
template <typename T>
void expect_cuda_method_matches_definition(const std::vector<std::pair<int, int>>& sizes, Cuda2DMethod method) {
  for (const auto& [rows, cols] : sizes) {
    for (Transform2D kind : kAllKinds) expect_2d_matches_definition<T>(kind, rows, cols, Backend::Cuda, method);
  }
}

// Large sizes, where the dense reference would be slow: `method` in float against OneFft in
// double, every transform.
inline void expect_float_method_agrees_with_one_fft(int rows, int cols, Cuda2DMethod method) {
  for (Transform2D kind : kAllKinds) {
    const auto seed = next_seed();
    SCOPED_TRACE(describe(kind, rows, cols, Backend::Cuda, seed) + " (" + to_string(method) + ")");
    PlanOptions fast_options, ref_options;
    fast_options.backend = ref_options.backend = Backend::Cuda;
    fast_options.cuda_2d_method = method;
    ref_options.cuda_2d_method = Cuda2DMethod::OneFft;
    Plan2D<float> fast(kind, rows, cols, fast_options);
    Plan2D<double> ref(kind, rows, cols, ref_options);
    const auto x = random_vector<float>(static_cast<size_t>(rows) * cols, seed);
    EXPECT_LE(relative_l2(run_execute(fast, x), run_execute(ref, to_double(x))), tolerance<float>());
  }
}

// `out`, a dct2 made with PlanOptions::zero_below, against `ref`, the same coefficients without
// it: exactly 0 where |ref| is below zero_below, within tolerance * (1 + |ref|) of ref where it
// is above; values within 0.1% of zero_below may go either way (rounding). Any other element
// fails (the first five are named). Returns how many were below.
template <typename T, typename R>
int expect_thresholded(const std::vector<T>& out, const std::vector<R>& ref, double zero_below, double tolerance) {
  int zeros = 0, mismatches = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double a = std::fabs(static_cast<double>(ref[i]));
    bool ok = true;
    if (a < zero_below * 0.999) {
      ok = out[i] == T(0);
      ++zeros;
    } else if (a > zero_below * 1.001) {
      ok = std::fabs(static_cast<double>(out[i]) - static_cast<double>(ref[i])) <= tolerance * (1 + a);
    }
    if (!ok && ++mismatches <= 5) ADD_FAILURE() << "element " << i << ": " << out[i] << " against " << ref[i];
  }
  EXPECT_EQ(mismatches, 0);
  return zeros;
}

// dct2 with PlanOptions::zero_below set to the mean |coefficient|, against the float64
// definition (expect_thresholded). `options` gives the backend and method; zero_below is set here.
template <typename T>
void expect_zero_below(int rows, int cols, PlanOptions options) {
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " seed " + std::to_string(seed));
  const auto x = random_vector<T>(static_cast<size_t>(rows) * cols, seed);
  const auto ref = dense_2d(Transform2D::Dct2, to_double(x), rows, cols);
  double mean_abs = 0;
  for (double r : ref) mean_abs += std::fabs(r) / ref.size();
  options.zero_below = mean_abs;
  Plan2D<T> plan(Transform2D::Dct2, rows, cols, options);
  const int zeros = expect_thresholded(run_execute(plan, x), ref, mean_abs, 1e3 * tolerance<T>());
  if (ref.size() > 1) EXPECT_GT(zeros, 0);
}

// dct2 then idct2 through plans made with `options` gives M N x (the definitions are
// unnormalized).
template <typename T>
void expect_round_trip(int rows, int cols, const PlanOptions& options) {
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " seed " + std::to_string(seed));
  Plan2D<T> forward(Transform2D::Dct2, rows, cols, options);
  Plan2D<T> inverse(Transform2D::Idct2, rows, cols, options);
  const auto x = random_vector<T>(static_cast<size_t>(rows) * cols, seed);
  const auto back = run_execute(inverse, run_execute(forward, x));
  std::vector<double> scaled(x.size());
  for (size_t i = 0; i < x.size(); ++i) scaled[i] = double(rows) * cols * x[i];
  EXPECT_LE(relative_l2(back, scaled), 10 * tolerance<T>());
}

// One plan made with `options`: in place, through host pointers, and reused on a second input.
template <typename T>
void expect_in_place_host_and_reuse(Transform2D kind, int rows, int cols, const PlanOptions& options) {
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE(describe(kind, rows, cols, options.backend, seed));
  Plan2D<T> plan(kind, rows, cols, options);
  const auto x = random_vector<T>(static_cast<size_t>(rows) * cols, seed);
  const auto ref = dense_2d(kind, to_double(x), rows, cols);
  EXPECT_LE(relative_l2(run_in_place(plan, x), ref), tolerance<T>());
  EXPECT_LE(relative_l2(run_host(plan, x), ref), tolerance<T>());
  const auto y = random_vector<T>(x.size(), next_seed());
  EXPECT_LE(relative_l2(run_execute(plan, y), dense_2d(kind, to_double(y), rows, cols)), tolerance<T>());
}

// Every transform through a plan made with `options` on device arrays that start one element
// past an allocation (4 or 8 bytes off a 16-byte quad): the plans that read or write quads stage
// such arrays, so the result is the same and nothing is written outside the array.
template <typename T>
void expect_unaligned_device_pointers(int rows, int cols, const PlanOptions& options) {
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  for (Transform2D kind : kAllKinds) {
    const std::uint64_t seed = next_seed();
    SCOPED_TRACE(describe(kind, rows, cols, options.backend, seed));
    Plan2D<T> plan(kind, rows, cols, options);
    const auto x = random_vector<T>(n, seed);
    std::vector<T> shifted_in(n + 1, T(7));
    std::copy(x.begin(), x.end(), shifted_in.begin() + 1);
    DeviceArray<T> d_in(shifted_in);
    DeviceArray<T> d_out(poisoned<T>(n + 2));
    plan.execute(d_in.get() + 1, d_out.get() + 1, nullptr);
    device_synchronize();
    auto out = d_out.download();
    EXPECT_TRUE(std::isnan(out.front()));
    EXPECT_TRUE(std::isnan(out.back()));
    const std::vector<T> result(out.begin() + 1, out.end() - 1);
    EXPECT_LE(relative_l2(result, dense_2d(kind, to_double(x), rows, cols)), tolerance<T>());
  }
}

// Asking for `method` where it does not apply (a Plan2D<T> of `kind`) throws, and the message
// names the method's rule and the shape.
template <typename T = float>
void expect_method_rejected(Cuda2DMethod method, Transform2D kind, int rows, int cols, const std::string& rule) {
  std::string msg;
  try {
    Plan2D<T>(kind, rows, cols, cuda_options(method));
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find(rule), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(rows) + "x" + std::to_string(cols)), std::string::npos) << msg;
}

// A CPU plan of `kind` takes any Cuda2DMethod (the option is for the CUDA backend only), runs no
// CUDA method and gives the definition.
inline void expect_cpu_backend_ignores_method(Cuda2DMethod method, Transform2D kind) {
  PlanOptions o;
  o.backend = Backend::Cpu;
  o.cuda_2d_method = method;
  const int rows = 3, cols = 5;  // not a power of two, nor a shape every method takes
  Plan2D<double> plan(kind, rows, cols, o);
  EXPECT_EQ(plan.cuda_2d_method(), Cuda2DMethod::Auto);
  const auto x = random_vector<double>(rows * cols, next_seed());
  EXPECT_LE(relative_l2(run_execute(plan, x), dense_2d(kind, x, rows, cols)), tolerance<double>());
}

// The sizes of the 2D correctness sweep: 1, 2, odd, even, prime and powers of two on both axes,
// non-square both ways (not the full cross product, to keep the suite fast).
inline std::vector<std::pair<int, int>> sweep_sizes_2d() {
  return {{1, 1},    {1, 2},    {2, 1},    {1, 17},   {17, 1},   {2, 2},   {2, 3},
          {3, 2},    {3, 5},    {5, 7},    {7, 8},    {8, 7},    {8, 8},   {16, 17},
          {17, 16},  {31, 64},  {64, 31},  {100, 127}, {127, 100}, {128, 128}, {1, 255},
          {255, 1},  {2, 255},  {255, 2},  {5, 128},  {255, 255}, {100, 31}};
}

}  // namespace efield::test
