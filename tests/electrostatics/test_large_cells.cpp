// Movable large cells by difference map and summed-area tables (kernels/electrostatics/
// large_cells.cuh, docs/math.md 2.12). CPU (CI): the rectangles' integers after an exact integer
// prefix sum are the per-bin paths' integers bitwise where bins are a power of two wide, and
// within the stated bound elsewhere; a double summed-area table's rectangle sums stay within the
// bound of docs/math.md 2.12. CUDA (skips without a device): macros from 1 bin to the whole
// region, partly and wholly outside it, on bin edges, by difference map and in chunks, against
// the one-block-per-cell path (the density bitwise: on power-of-two bins for the difference map,
// on any bins in chunks; the gradient within round-off) and against the float64 reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "electrostatics/cell_layout.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/large_cell_segments.hpp"
#include "electrostatics/pipeline_layout.hpp"
#include "support/gpu.hpp"
#if EFIELD_HAS_CUDA
#include "electrostatics/cuda_runs.hpp"
#endif

namespace efield::test {
namespace {

using detail::CellGeometry;
using detail::Footprint;

template <typename T>
CellGeometry<T> grid(int M, int N, double bx, double by) {
  CellGeometry<T> g;
  g.M = M;
  g.N = N;
  g.bx = static_cast<T>(bx);
  g.by = static_cast<T>(by);
  g.inv_bx = static_cast<T>(1 / bx);
  g.inv_by = static_cast<T>(1 / by);
  g.min_w = static_cast<T>(std::sqrt(2.0) * bx);
  g.min_h = static_cast<T>(std::sqrt(2.0) * by);
  g.wx = detail::split_bin_width(g.bx, M);
  g.wy = detail::split_bin_width(g.by, N);
  g.num_movable = g.num_cells = 1;
  return g;
}

// The bins' integers of one footprint through the rectangles' corners and an integer 2D prefix sum.
template <typename T>
std::vector<std::int64_t> by_difference_map(const Footprint<T>& f, const CellGeometry<T>& g, T to_fixed) {
  std::vector<std::int64_t> d(static_cast<size_t>(g.M) * g.N, 0);
  const auto corner = [&](int m, int n, std::int64_t v) {
    if (m < g.M && n < g.N) d[static_cast<size_t>(m) * g.N + n] += v;
  };
  const detail::FootprintSegments<T> s = detail::footprint_segments(f, g);
  for (int p = 0; p < s.x.count; ++p)
    for (int r = 0; r < s.y.count; ++r) {
      const std::int64_t v = detail::fixed_weight(s.weight(p, r), to_fixed);
      corner(s.x.first[p], s.y.first[r], v);
      corner(s.x.last[p] + 1, s.y.first[r], -v);
      corner(s.x.first[p], s.y.last[r] + 1, -v);
      corner(s.x.last[p] + 1, s.y.last[r] + 1, v);
    }
  for (int m = 0; m < g.M; ++m)
    for (int n = 0; n < g.N; ++n) {
      std::int64_t& v = d[static_cast<size_t>(m) * g.N + n];
      if (n > 0) v += d[static_cast<size_t>(m) * g.N + n - 1];
    }
  for (int m = 1; m < g.M; ++m)
    for (int n = 0; n < g.N; ++n) d[static_cast<size_t>(m) * g.N + n] += d[static_cast<size_t>(m - 1) * g.N + n];
  return d;
}

// Footprints from 1 bin to past the whole grid, partly outside, on bin edges, and random ones.
std::vector<std::vector<double>> footprint_cases(double bx, double by, int M, int N, std::uint64_t seed) {
  std::vector<std::vector<double>> cases = {  // x, y, w, h
      {3 * bx, 4 * by, 1 * bx, 1 * by},          {3 * bx, 4 * by, 5 * bx, 7 * by},
      {0, 0, M * bx, N * by},                    {-7.3 * bx, (N - 5.5) * by, 20.2 * bx, 25 * by},
      {-2 * M * bx, 0, 3 * M * bx, 3 * N * by},  {1.25 * bx, 2.5 * by, 9.75 * bx, 4.125 * by}};
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 0; k < 300; ++k)  // every third one thin (stretched on x)
    cases.push_back({(u(gen) * 1.2 - 0.1) * M * bx, (u(gen) * 1.2 - 0.1) * N * by,
                     (0.5 + u(gen) * 30) * bx * (k % 3 == 0 ? 1e-3 + u(gen) : 1.0), (0.5 + u(gen) * 30) * by});
  return cases;
}

template <typename T>
void expect_difference_map_matches_bins(double bx, double by, bool power_of_two) {
  const int M = 48, N = 40;
  const CellGeometry<T> g = grid<T>(M, N, bx, by);
  const T to_fixed = static_cast<T>(std::ldexp(1.0, detail::FixedPointBits<T>::value) / (bx * by));
  for (const std::vector<double>& c : footprint_cases(bx, by, M, N, 41)) {
    SCOPED_TRACE("cell " + std::to_string(c[0]) + " " + std::to_string(c[1]) + " " + std::to_string(c[2]) + " " +
                 std::to_string(c[3]));
    const Footprint<T> f = detail::cell_footprint(g, 0, static_cast<T>(c[0]), static_cast<T>(c[1]),
                                                  static_cast<T>(c[2]), static_cast<T>(c[3]));
    const std::vector<std::int64_t> d = by_difference_map(f, g, to_fixed);
    // An inner bin's per-bin overlap is b, or b less a hair where rounding put the side's start
    // past its first bin (side_overlap at a bin's magnitude): a few units in the last place of b.
    const double slack =
        1 + static_cast<double>(to_fixed) * f.charge * bx * by * std::ldexp(1.0, 3 - std::numeric_limits<T>::digits);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        const bool in = m >= f.m0 && m <= f.m1 && n >= f.n0 && n <= f.n1;
        const std::int64_t bin = in ? detail::fixed_weight(detail::footprint_weight(f, g, m, n), to_fixed) : 0;
        const std::int64_t got = d[static_cast<size_t>(m) * N + n];
        if (power_of_two) ASSERT_EQ(got, bin) << "bin " << m << ", " << n;
        else ASSERT_LE(std::fabs(static_cast<double>(got - bin)), slack) << "bin " << m << ", " << n;
      }
  }
}

TEST(LargeCellsCpu, DifferenceMapIsThePerBinIntegersOnPowerOfTwoBins) {
  expect_difference_map_matches_bins<float>(1.0, 2.0, true);
  expect_difference_map_matches_bins<double>(0.5, 4.0, true);
}
// Elsewhere within a few units in the last place of a bin's weight (docs/math.md 2.12).
TEST(LargeCellsCpu, DifferenceMapWithinRoundingOnOtherBins) {
  for (double bx : {100.0 / 48, 0.1, 1.0 / 3, 7.1, 12345.678 / 48}) {
    expect_difference_map_matches_bins<float>(bx, bx * 1.37, false);
    expect_difference_map_matches_bins<double>(bx, bx * 0.71, false);
  }
}

// docs/math.md 2.12: a summed-area table in double over B float values, rows then columns in any
// association, gives rectangle sums within 4 gamma_B sum|e| (gamma_B = B u / (1 - B u), u = 2^-53).
TEST(LargeCellsCpu, SummedAreaRoundOffWithinBound) {
  const int M = 300, N = 257;
  std::mt19937_64 gen(7);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<float> e(static_cast<size_t>(M) * N);
  double abs_sum = 0;
  for (float& v : e) {
    v = nd(gen) * std::ldexp(1.0f, static_cast<int>(gen() % 20) - 10);  // magnitudes over 6 decades
    abs_sum += std::fabs(v);
  }
  std::vector<double> sat(e.begin(), e.end());
  for (int m = 0; m < M; ++m)
    for (int n = 1; n < N; ++n) sat[static_cast<size_t>(m) * N + n] += sat[static_cast<size_t>(m) * N + n - 1];
  for (int m = 1; m < M; ++m)
    for (int n = 0; n < N; ++n) sat[static_cast<size_t>(m) * N + n] += sat[static_cast<size_t>(m - 1) * N + n];
  const double u = std::ldexp(1.0, -53), B = static_cast<double>(M) * N;
  const double bound = 4 * (B * u / (1 - B * u)) * abs_sum;
  const auto at = [&](int m, int n) { return sat[static_cast<size_t>(m) * N + n]; };
  std::uniform_int_distribution<int> um(0, M - 1), un(0, N - 1);
  double worst = 0;
  for (int k = 0; k < 500; ++k) {
    int m0 = um(gen), m1 = um(gen), n0 = un(gen), n1 = un(gen);
    if (m0 > m1) std::swap(m0, m1);
    if (n0 > n1) std::swap(n0, n1);
    long double exact = 0;
    for (int m = m0; m <= m1; ++m)
      for (int n = n0; n <= n1; ++n) exact += e[static_cast<size_t>(m) * N + n];
    const double got = detail::rectangle_sum<double>(at, 0, 0, m0, m1, n0, n1);
    worst = std::max(worst, static_cast<double>(std::fabs(static_cast<long double>(got) - exact)));
  }
  EXPECT_LE(worst, bound) << "bound " << bound;
}

#if EFIELD_HAS_CUDA
using LargeCells = detail::EsPipelineLayout::LargeCells;
class ScopedLargeCells {
 public:
  explicit ScopedLargeCells(LargeCells mode, bool wide_float_bins = false) {
    detail::EsPipelineLayout l;
    l.large_cells = mode;
    l.wide_float_bins = wide_float_bins;
    before_ = detail::set_es_pipeline_layout(l);
  }
  ~ScopedLargeCells() { detail::set_es_pipeline_layout(before_); }
  ScopedLargeCells(const ScopedLargeCells&) = delete;
  ScopedLargeCells& operator=(const ScopedLargeCells&) = delete;

 private:
  detail::EsPipelineLayout before_;
};

// A random 64 x 64 design (bins `bin` wide) with macros of 1 bin, 5 x 7 bins on bin edges, 40 x 30,
// the whole region, partly outside (left and top) and wholly outside.
TestDesign macro_design(double bin, std::uint64_t seed) {
  DesignSpec spec;
  spec.M = spec.N = 64;
  spec.xh = spec.yh = 64 * bin;
  spec.num_movable = 300;
  TestDesign d = make_random_design(spec, seed);
  const std::vector<std::vector<double>> macros = {{10.25, 20.5, 1, 1},   {3, 4, 5, 7},      {12.37, 20.11, 40.3, 30.7},
                                                   {0, 0, 64, 64},        {-7.3, 50.2, 20, 25}, {-30, -30, 10, 10}};
  const size_t nm = d.movable.widths.size();
  for (size_t k = 0; k < macros.size(); ++k) {
    d.movable.widths.push_back(macros[k][2] * bin);
    d.movable.heights.push_back(macros[k][3] * bin);
    d.cx.insert(d.cx.begin() + static_cast<std::ptrdiff_t>(nm + k), macros[k][0] * bin);
    d.cy.insert(d.cy.begin() + static_cast<std::ptrdiff_t>(nm + k), macros[k][1] * bin);
  }
  d.array_size += static_cast<std::int64_t>(macros.size());
  if (d.options.filler_offset >= 0) d.options.filler_offset += static_cast<std::int64_t>(macros.size());
  return d;
}

template <typename T>
SystemOutput run_mode(const TestDesign& d, LargeCells mode, bool wide_float_bins = false, int runs = 1) {
  const ScopedLargeCells scope(mode, wide_float_bins);
  ElectrostaticSystem es(with(d.options, Backend::Cuda, sizeof(T) == 4 ? Precision::Float : Precision::Double),
                         d.movable, d.fillers, d.fixed);
  SystemOutput out;
  for (int k = 0; k < runs; ++k) out = run_device<T>(es, d);
  return out;
}

// The difference map against one block per cell: the density (and so energy, overflow, max
// density) bitwise on power-of-two bins, the gradient within round-off.
template <typename T>
void expect_same_density_as_blocks(const TestDesign& d, LargeCells mode, bool wide_float_bins, int runs,
                                   const std::string& what) {
  SCOPED_TRACE(what);
  const SystemOutput a = run_mode<T>(d, mode, wide_float_bins, runs);
  const SystemOutput b = run_mode<T>(d, LargeCells::Blocks, wide_float_bins, runs);
  EXPECT_EQ(a.rho, b.rho);
  EXPECT_EQ(a.result.energy, b.result.energy);
  EXPECT_EQ(a.result.overflow, b.result.overflow);
  EXPECT_EQ(a.result.max_density, b.result.max_density);
  // Summation order only (a region-sized macro's sum cancels to a small gradient in float).
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  EXPECT_LE(relative_l2(a.gx, b.gx), tol);
  EXPECT_LE(relative_l2(a.gy, b.gy), tol);
}

// Every kind of bins: exact float maps, 64-bit bins (float and double), piled (the small cells on
// one spot: the second evaluate starts with Bins::Piled).
void expect_every_bins_as_blocks(const TestDesign& d, LargeCells mode) {
  expect_same_density_as_blocks<float>(d, mode, false, 1, "float, exact float maps");
  expect_same_density_as_blocks<float>(d, mode, true, 1, "float, 64-bit bins");
  expect_same_density_as_blocks<double>(d, mode, false, 1, "double");
  expect_same_density_as_blocks<float>(piled_up(d, 300), mode, false, 2, "float, piled");
}

TEST(LargeCellsCuda, DifferenceMapDensityBitwiseAsBlocksOnPowerOfTwoBins) {
  EFIELD_REQUIRE_GPU();
  expect_every_bins_as_blocks(macro_design(1.0, next_seed()), LargeCells::DifferenceMap);
}

TEST(LargeCellsCuda, ChunkedDensityBitwiseAsBlocks) {
  EFIELD_REQUIRE_GPU();
  expect_every_bins_as_blocks(macro_design(1.0, next_seed()), LargeCells::Chunks);
  expect_every_bins_as_blocks(macro_design(100.0 / 64, next_seed()), LargeCells::Chunks);
  // The default: chunks for the region-sized and 40 x 30 macros, warps and blocks for the rest.
  expect_every_bins_as_blocks(macro_design(100.0 / 64, next_seed()), LargeCells::ByPolicy);
}

TEST(LargeCellsCuda, MatchesReference) {
  EFIELD_REQUIRE_GPU();
  for (double bin : {1.0, 100.0 / 64}) {
    const TestDesign d = macro_design(bin, next_seed());
    const ReferenceResult ref = reference_of(d);
    for (LargeCells mode : {LargeCells::DifferenceMap, LargeCells::Chunks}) {
      SCOPED_TRACE(mode == LargeCells::Chunks ? "chunks" : "difference map");
      expect_matches_reference(run_mode<float>(d, mode), ref, 1e-4, "float");
      expect_matches_reference(run_mode<double>(d, mode), ref, 1e-10, "double");
      expect_close(run_mode<float>(d, mode), run_mode<float>(d, LargeCells::Blocks), 1e-5);
    }
  }
}

// evaluate_async with deterministic = false (float maps with float atomics: the difference map's
// integers scaled back to bin areas) and host arrays, against the reference.
TEST(LargeCellsCuda, FloatAtomicsAndHostArraysMatchReference) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = macro_design(100.0 / 64, next_seed());
  const ReferenceResult ref = reference_of(d);
  for (LargeCells mode : {LargeCells::DifferenceMap, LargeCells::Chunks}) {
    SCOPED_TRACE(mode == LargeCells::Chunks ? "chunks" : "difference map");
    const ScopedLargeCells scope(mode);
    ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
    o.deterministic = false;
    ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    DeviceArray<float> x(d.array<float>(d.cx)), y(d.array<float>(d.cy));
    DeviceArray<float> gx(poisoned<float>(d.array_size)), gy(poisoned<float>(d.array_size));
    es.evaluate_async(x.get(), y.get(), gx.get(), gy.get());
    const EvaluateResult result = es.wait_result();
    expect_matches_reference(collect_output(es, d, result, gx.download(), gy.download()), ref, 1e-4,
                             "evaluate_async, float atomics");
    expect_matches_reference(run_host<float>(es, d), ref, 1e-4, "host arrays");
  }
}
#endif

}  // namespace
}  // namespace efield::test
