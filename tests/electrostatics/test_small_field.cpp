// The CUDA pipeline's small-grid path (kernels/electrostatics/small_field.cu: rho through both
// FFTs, the spectral step, the field tiles and finalize in one block): against the float64
// reference, against the general path (forced through the layout hook), on the grids it takes
// (power-of-two sides up to the policy table's limit) and on those it leaves to the general path
// (odd, prime, non-power-of-two, too large), bitwise reruns, accumulate and weight, async, and a
// pile-up. The density stage is the same on both paths, so the density map and max density are
// the same bits; the FFTs differ (one block's radix-2 against cuFFT), so the rest agrees to
// rounding. GPU tests skip without a device; the table's test runs everywhere.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/cuda_runs.hpp"
#include "electrostatics/pipeline_layout.hpp"
#include "electrostatics/pipeline_policy.cuh"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

// The small-grid path forced on (wherever the kernel can take the grid, whatever the policy
// table says) or off for the systems made in this scope.
class ScopedSmallField {
 public:
  explicit ScopedSmallField(bool on) {
    detail::EsPipelineLayout layout = detail::es_pipeline_layout();
    using Mode = detail::EsPipelineLayout::SmallField;
    layout.small_field = on ? Mode::Always : Mode::Never;
    before_ = detail::set_es_pipeline_layout(layout);
  }
  ~ScopedSmallField() { detail::set_es_pipeline_layout(before_); }
  ScopedSmallField(const ScopedSmallField&) = delete;
  ScopedSmallField& operator=(const ScopedSmallField&) = delete;

 private:
  detail::EsPipelineLayout before_;
};

// An M x N grid of 10-unit bins, about two cells per bin, fixed macros, movable macros and cells
// partly outside (make_random_design).
DesignSpec grid_spec(int M, int N) {
  DesignSpec s;
  s.M = M;
  s.N = N;
  s.xl = -20;
  s.yl = 7;
  s.xh = s.xl + 10.0 * M;
  s.yh = s.yl + 8.0 * N;  // non-square bins
  s.td = 0.9;
  s.num_movable = 2 * M * N;
  s.num_fillers = M * N / 2;
  s.num_fixed = 4 + M * N / 512;
  return s;
}

template <typename T>
SystemOutput run_with(const TestDesign& d, Precision p, bool small_field) {
  const ScopedSmallField scope(small_field);
  ElectrostaticSystem es(with(d.options, Backend::Cuda, p), d.movable, d.fillers, d.fixed);
  return run_device<T>(es, d);
}

std::string grid_name(int M, int N) { return std::to_string(M) + "x" + std::to_string(N); }

struct Grid {
  int M, N;
};
// Grids the one-block kernel takes (power-of-two sides; 128 x 128 in float only: shared memory).
const Grid kSmallGrids[] = {{4, 4}, {16, 16}, {32, 128}, {64, 64}, {4, 64}, {64, 8}};
// Grids it leaves to the general path: odd, prime, even but not powers of two, more than shared
// memory holds.
const Grid kOtherGrids[] = {{17, 24}, {15, 9}, {13, 13}, {31, 16}, {64, 48}, {8, 12}, {256, 256}};

// The table never takes a grid the kernel cannot, and never more bins in double than in float.
TEST(SmallFieldPolicy, TableTakesOnlyGridsTheKernelCan) {
  for (const Grid g : kSmallGrids) EXPECT_TRUE(detail::es_small_field_shape(g.M, g.N)) << grid_name(g.M, g.N);
  EXPECT_FALSE(detail::es_small_field_shape(2, 16));  // a side below kEsSmallFieldMinSide
  for (const Grid g : kOtherGrids) {
    if (g.M * g.N > 128 * 128) continue;  // a power-of-two shape, refused for its shared memory
    EXPECT_FALSE(detail::es_small_field_shape(g.M, g.N)) << grid_name(g.M, g.N);
    EXPECT_FALSE(detail::es_small_field_applies(g.M, g.N, false, 90)) << grid_name(g.M, g.N);
  }
  for (const detail::EsSmallFieldRow& row : detail::kEsSmallFieldRows) {
    EXPECT_LE(row.max_bins_double, row.max_bins_float);
    EXPECT_LE(row.max_bins_float, 128 * 128);  // float's shared memory limit on sm_90
  }
}

TEST(SmallFieldCuda, MatchesTheReference) {
  EFIELD_REQUIRE_GPU();
  std::vector<Grid> grids(std::begin(kSmallGrids), std::end(kSmallGrids));
  grids.push_back({128, 128});
  for (const Grid g : grids) {
    const TestDesign d = make_random_design(grid_spec(g.M, g.N), next_seed());
    const ReferenceResult ref = reference_of(d);
    expect_matches_reference(run_with<float>(d, Precision::Float, true), ref, 1e-4, grid_name(g.M, g.N) + " float");
    if (g.M * g.N <= 64 * 64)
      expect_matches_reference(run_with<double>(d, Precision::Double, true), ref, 1e-10,
                               grid_name(g.M, g.N) + " double");
  }
}

// A large grid's system still runs after a small grid's was made (the kernel's shared-memory
// limit is the kernel's, shared by both).
TEST(SmallFieldCuda, SystemsOfDifferentSizesSideBySide) {
  EFIELD_REQUIRE_GPU();
  const TestDesign large = make_random_design(grid_spec(128, 128), next_seed());
  const TestDesign small = make_random_design(grid_spec(16, 16), next_seed());
  const ScopedSmallField on(true);
  const auto system = [](const TestDesign& d) {
    return std::make_unique<ElectrostaticSystem>(with(d.options, Backend::Cuda, Precision::Float), d.movable,
                                                 d.fillers, d.fixed);
  };
  const std::unique_ptr<ElectrostaticSystem> a = system(large), b = system(small);
  expect_matches_reference(run_device<float>(*a, large), reference_of(large), 1e-4, "128x128 after 16x16 was made");
  expect_matches_reference(run_device<float>(*b, small), reference_of(small), 1e-4, "16x16");
}

// The same density stage: the same density map and max density; the rest to rounding.
TEST(SmallFieldCuda, AgreesWithTheGeneralPath) {
  EFIELD_REQUIRE_GPU();
  for (const Grid g : kSmallGrids) {
    const TestDesign d = make_random_design(grid_spec(g.M, g.N), next_seed());
    for (Precision p : {Precision::Float, Precision::Double}) {
      const bool f = p == Precision::Float;
      SCOPED_TRACE(grid_name(g.M, g.N) + (f ? " float" : " double"));
      const SystemOutput small = f ? run_with<float>(d, p, true) : run_with<double>(d, p, true);
      const SystemOutput general = f ? run_with<float>(d, p, false) : run_with<double>(d, p, false);
      EXPECT_EQ(small.rho, general.rho);
      EXPECT_EQ(small.result.max_density, general.result.max_density);
      const double tol = f ? 2e-5 : 1e-12;
      expect_close(small, general, tol);
      EXPECT_LE(relative_l2(small.phi, general.phi), tol);
    }
  }
}

TEST(SmallFieldCuda, OtherGridsTakeTheGeneralPath) {
  EFIELD_REQUIRE_GPU();
  for (const Grid g : kOtherGrids) {
    const TestDesign d = make_random_design(grid_spec(g.M, g.N), next_seed());
    const SystemOutput on = run_with<float>(d, Precision::Float, true);
    const SystemOutput off = run_with<float>(d, Precision::Float, false);
    expect_same_bits(on, off, grid_name(g.M, g.N));
    EXPECT_EQ(on.ex, off.ex);
    EXPECT_EQ(on.phi, off.phi);
    expect_matches_reference(on, reference_of(d), 1e-4, grid_name(g.M, g.N));
  }
}

TEST(SmallFieldCuda, RerunsGiveTheSameBits) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = make_random_design(grid_spec(64, 64), next_seed());
  const ScopedSmallField small(true);
  for (Precision p : {Precision::Float, Precision::Double}) {
    const bool f = p == Precision::Float;
    ElectrostaticSystem es(with(d.options, Backend::Cuda, p), d.movable, d.fillers, d.fixed);
    const SystemOutput a = f ? run_device<float>(es, d) : run_device<double>(es, d);
    const SystemOutput b = f ? run_device<float>(es, d) : run_device<double>(es, d);
    expect_same_bits(a, b, f ? "float" : "double");
    EXPECT_EQ(a.ex, b.ex);
    EXPECT_EQ(a.ey, b.ey);
  }
}

// evaluate_async's float results (64-bit bins in two maps: the kernel takes the density pass too,
// or in one map: it does not) against the general path's: the same density map, the rest to
// rounding.
TEST(SmallFieldCuda, AsyncAgreesWithTheGeneralPath) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = make_random_design(grid_spec(64, 32), next_seed());
  for (Maps maps : {Maps::BySize, Maps::One}) {
    SCOPED_TRACE(maps == Maps::One ? "one map" : "two maps");
    const ScopedLayout layout(maps);
    SystemOutput out[2];
    for (int k = 0; k < 2; ++k) {
      const ScopedSmallField small(k == 0);
      ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
      DeviceArray<float> x(d.array<float>(d.cx)), y(d.array<float>(d.cy));
      DeviceArray<float> gx(poisoned<float>(d.array_size)), gy(poisoned<float>(d.array_size));
      es.evaluate_async(x.get(), y.get(), gx.get(), gy.get());
      const EvaluateResult r = es.wait_result();
      out[k] = collect_output(es, d, r, gx.download(), gy.download());
    }
    EXPECT_EQ(out[0].rho, out[1].rho);
    EXPECT_EQ(out[0].result.max_density, out[1].result.max_density);
    EXPECT_EQ(out[0].result.movable_area_outside, out[1].result.movable_area_outside);
    expect_close(out[0], out[1], 2e-5);
    expect_matches_reference(out[0], reference_of(d), 1e-4, "async, small-grid path");
  }
}

// evaluate_async with accumulate adds exactly what a writing call with the same weight writes;
// the weight scales the gradient (the same arrays, a new weight each call: the graph's weight node
// changed in place); two async runs give the same bits; async agrees with evaluate. Both paths.
void check_async_accumulate_and_weight(bool small_field) {
  const TestDesign d = make_random_design(grid_spec(64, 64), next_seed());
  const ScopedSmallField small(small_field);
  ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
  const std::size_t n = static_cast<std::size_t>(d.array_size);
  DeviceArray<float> x(d.array<float>(d.cx)), y(d.array<float>(d.cy)), gx(n), gy(n);
  std::vector<float> g0(n);
  for (std::size_t i = 0; i < n; ++i) g0[i] = 0.25f * static_cast<float>(i % 17) - 2.0f;
  const auto async_run = [&](const std::vector<float>& start, double weight, bool accumulate, EvaluateResult* r) {
    gx.upload(start);
    gy.upload(start);
    EvaluateOptions eo;
    eo.weight = weight;
    eo.accumulate = accumulate;
    es.evaluate_async(x.get(), y.get(), gx.get(), gy.get(), eo);
    *r = es.wait_result();
    return std::make_pair(gx.download(), gy.download());
  };
  const double w = 0.37;
  EvaluateResult r_write, r_again, r_acc, r_one;
  const auto unweighted = async_run(g0, 1.0, false, &r_one);
  const auto written = async_run(g0, w, false, &r_write);
  const auto added = async_run(g0, w, true, &r_acc);
  async_run(g0, 2.5, false, &r_again);  // another weight between the two writing runs
  const auto again = async_run(g0, w, false, &r_again);
  EXPECT_EQ(written.first, again.first);
  EXPECT_EQ(written.second, again.second);
  EXPECT_EQ(r_write.energy, r_again.energy);
  std::vector<float> sx(n), sy(n), wx(n), wy(n);
  for (std::size_t i = 0; i < n; ++i) {
    sx[i] = g0[i] + written.first[i];
    sy[i] = g0[i] + written.second[i];
    wx[i] = static_cast<float>(w) * unweighted.first[i];
    wy[i] = static_cast<float>(w) * unweighted.second[i];
  }
  EXPECT_EQ(added.first, sx);
  EXPECT_EQ(added.second, sy);
  EXPECT_LE(relative_l2(d.per_cell(written.first), d.per_cell(wx)), 1e-6);
  EXPECT_LE(relative_l2(d.per_cell(written.second), d.per_cell(wy)), 1e-6);
  // The blocking evaluate (exact float bins) against async (64-bit bins): the same to rounding.
  DeviceArray<float> bx(g0), by(g0);
  const EvaluateResult blocking = es.evaluate(x.get(), y.get(), bx.get(), by.get());
  EXPECT_LE(rel_scalar(blocking.energy, r_one.energy), 1e-5);
  EXPECT_LE(rel_scalar(blocking.overflow, r_one.overflow), 1e-5);
  EXPECT_LE(relative_l2(d.per_cell(bx.download()), d.per_cell(unweighted.first)), 1e-5);
  expect_matches_reference(collect_output(es, d, blocking, bx.download(), by.download()), reference_of(d), 1e-4,
                           "blocking after async");
}

TEST(SmallFieldCuda, AsyncAccumulateAndWeight) {
  EFIELD_REQUIRE_GPU();
  check_async_accumulate_and_weight(true);
}
TEST(SmallFieldCuda, GeneralPathAsyncAccumulateAndWeight) {
  EFIELD_REQUIRE_GPU();
  check_async_accumulate_and_weight(false);
}

// A pile-up (exact float bins flagged, the evaluate runs again with the movable cells in 64-bit
// tiles) on a small grid: the same density map as the general path and the reference's result.
TEST(SmallFieldCuda, PileUpAgreesWithTheGeneralPath) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec = grid_spec(32, 32);
  spec.min_size_bins = 1.0;
  const TestDesign piled = piled_up(make_random_design(spec, next_seed()));
  const SystemOutput small = run_with<float>(piled, Precision::Float, true);
  const SystemOutput general = run_with<float>(piled, Precision::Float, false);
  EXPECT_EQ(small.rho, general.rho);
  expect_close(small, general, 2e-5);
  expect_matches_reference(small, reference_of(piled), 1e-4, "piled");
}

}  // namespace
}  // namespace efield::test
