// The CPU pipeline gives bitwise the same results for every thread count (its rasterize adds
// chunks of cells, claimed by whichever thread is free, into per-thread copies of the maps in
// fixed point and sums the copies; its gather sums each cell on one thread): gradients, maps and
// scalars at 1, 2, 3 and 5 threads, on designs with macros spanning many rows and columns, cells
// outside the region, a pile-up of every movable cell in a few bins, DREAMPlace's flat layout,
// and many chunks per thread after the cells moved.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "efield/efield.hpp"
#include "electrostatics/compare.hpp"

namespace efield::test {
namespace {

// One system at `threads` threads: evaluate at `before` positions when given, then twice at
// (cx, cy) (the second starts from copies the first wrote and cleared), then everything it hands
// out (compare.hpp).
template <typename T>
SystemOutput run(const TestDesign& d, int threads, const std::vector<double>& cx, const std::vector<double>& cy,
                 GradientScale scale, const EvaluateOptions& eo,
                 const std::pair<std::vector<double>, std::vector<double>>* before = nullptr) {
  ElectrostaticOptions o = d.options;
  o.backend = Backend::Cpu;
  o.precision = sizeof(T) == 4 ? Precision::Float : Precision::Double;
  o.cpu_threads = threads;
  o.gradient_scale = scale;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  const std::vector<T> x = d.array<T>(cx), y = d.array<T>(cy);
  EvaluateResult result;
  std::vector<T> gx, gy;
  if (before) {
    const std::vector<T> bx = d.array<T>(before->first), by = d.array<T>(before->second);
    gx.assign(bx.size(), T(0)), gy.assign(bx.size(), T(0));
    es.evaluate(bx.data(), by.data(), gx.data(), gy.data());
  }
  for (int k = 0; k < 2; ++k) {
    gx = d.array<T>(std::vector<double>(cx.size(), 0.25));
    gy = d.array<T>(std::vector<double>(cx.size(), -0.5));
    result = es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo);
  }
  return collect_output(es, d, result, gx, gy);
}

template <typename V>
bool same_bits(const V& a, const V& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
}

template <typename T>
void expect_same_for_every_thread_count(const TestDesign& d, const std::vector<double>& cx,
                                        const std::vector<double>& cy, const std::string& what,
                                        GradientScale scale = GradientScale::DreamPlace, EvaluateOptions eo = {},
                                        const std::pair<std::vector<double>, std::vector<double>>* before = nullptr) {
  const SystemOutput one = run<T>(d, 1, cx, cy, scale, eo);
  for (const int threads : {2, 3, 5}) {
    SCOPED_TRACE(what + ", " + std::to_string(threads) + " threads");
    const SystemOutput t = run<T>(d, threads, cx, cy, scale, eo, before);
    // The gradients as doubles converted from T: bitwise equal exactly when the T values are.
    EXPECT_TRUE(same_bits(one.gx, t.gx));
    EXPECT_TRUE(same_bits(one.gy, t.gy));
    EXPECT_TRUE(same_bits(one.rho, t.rho));
    EXPECT_TRUE(same_bits(one.ex, t.ex));
    EXPECT_TRUE(same_bits(one.ey, t.ey));
    EXPECT_TRUE(same_bits(one.phi, t.phi));
    EXPECT_EQ(std::memcmp(&one.result.energy, &t.result.energy, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&one.result.overflow, &t.result.overflow, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&one.result.max_density, &t.result.max_density, sizeof(double)), 0);
    EXPECT_EQ(one.result.movable_area_outside, t.result.movable_area_outside);
    EXPECT_EQ(one.result.filler_area_outside, t.result.filler_area_outside);
  }
}

DesignSpec big_spec() {
  DesignSpec s;
  s.M = 64, s.N = 48;
  s.xh = 640, s.yh = 480;
  s.num_movable = 3000, s.num_fillers = 1500, s.num_fixed = 12;
  return s;
}

TEST(ElectrostaticCpuThreads, RandomDesignsAreBitwiseTheSame) {
  for (const std::uint64_t seed : {1u, 2u}) {
    TestDesign d = make_random_design(big_spec(), seed);
    // A few cells wider (along y) than the gather's and rasterize's column buffers (8 bins).
    for (std::size_t c = 0; c < 6; ++c) d.movable.heights[c] = 12.5 * 10;
    expect_same_for_every_thread_count<float>(d, d.cx, d.cy, "float, seed " + std::to_string(seed));
    expect_same_for_every_thread_count<double>(d, d.cx, d.cy, "double, seed " + std::to_string(seed));
  }
}

TEST(ElectrostaticCpuThreads, ExactGradientAndAccumulateAreBitwiseTheSame) {
  const TestDesign d = make_random_design(big_spec(), 3);
  EvaluateOptions eo;
  eo.weight = 0.75;
  eo.accumulate = true;
  expect_same_for_every_thread_count<float>(d, d.cx, d.cy, "exact, accumulate", GradientScale::Exact, eo);
  expect_same_for_every_thread_count<double>(d, d.cx, d.cy, "weighted", GradientScale::DreamPlace, eo);
}

TEST(ElectrostaticCpuThreads, PileUpIsBitwiseTheSame) {
  // Every movable cell within a bin or two of one point (a placer's first iteration), fillers
  // spread: most of the sorted cells share a few rows, so several threads' bands overlap there.
  const TestDesign d = make_random_design(big_spec(), 4);
  std::vector<double> cx = d.cx, cy = d.cy;
  const std::size_t nm = d.movable.widths.size();
  for (std::size_t c = 0; c < nm; ++c) {
    cx[c] = 300 + static_cast<double>(c % 7);
    cy[c] = 200 + static_cast<double>(c % 5);
  }
  expect_same_for_every_thread_count<float>(d, cx, cy, "pile-up, float");
  expect_same_for_every_thread_count<double>(d, cx, cy, "pile-up, double");
  // Everything on one row of bins, and everything outside the region.
  for (std::size_t c = 0; c < cx.size(); ++c) cy[c] = 5;
  expect_same_for_every_thread_count<float>(d, cx, cy, "one row");
  for (std::size_t c = 0; c < cx.size(); ++c) cx[c] = -1e4;
  expect_same_for_every_thread_count<float>(d, cx, cy, "all outside");
}

TEST(ElectrostaticCpuThreads, FlatLayoutAndFewCellsAreBitwiseTheSame) {
  DesignSpec s = big_spec();
  s.gap = 17;
  const TestDesign d = make_random_design(s, 5);
  expect_same_for_every_thread_count<float>(d, d.cx, d.cy, "flat layout");
  DesignSpec few;
  few.num_movable = 3, few.num_fillers = 1, few.num_fixed = 1;
  const TestDesign f = make_random_design(few, 6);
  expect_same_for_every_thread_count<double>(f, f.cx, f.cy, "fewer cells than threads");
  for (const auto& [M, N] : {std::pair{1, 8}, std::pair{8, 1}, std::pair{1, 1}}) {
    DesignSpec line = big_spec();
    line.M = M, line.N = N, line.num_movable = 200, line.num_fillers = 50;
    const TestDesign l = make_random_design(line, 7);
    expect_same_for_every_thread_count<float>(l, l.cx, l.cy, std::to_string(M) + " x " + std::to_string(N) + " bins");
  }
}

TEST(ElectrostaticCpuThreads, ManyChunksAfterCellsMovedAreBitwiseTheSame) {
  // Enough cells for several chunks per thread; the systems with several threads first evaluate
  // other positions (every cell elsewhere, rows written that the second placement leaves empty).
  DesignSpec s = big_spec();
  s.num_movable = 30000, s.num_fillers = 12000;
  const TestDesign d = make_random_design(s, 8);
  std::pair<std::vector<double>, std::vector<double>> before{d.cx, d.cy};
  for (std::size_t c = 0; c < d.cx.size(); ++c) before.first[c] = 640 - d.cx[c], before.second[c] = 0.3 * d.cy[c];
  expect_same_for_every_thread_count<float>(d, d.cx, d.cy, "moved, float", GradientScale::DreamPlace, {}, &before);
  expect_same_for_every_thread_count<double>(d, d.cx, d.cy, "moved, double", GradientScale::DreamPlace, {}, &before);
}

}  // namespace
}  // namespace efield::test
