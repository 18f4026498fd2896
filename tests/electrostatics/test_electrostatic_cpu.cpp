// The CPU backend of ElectrostaticSystem against the float64 reference of docs/math.md section 2,
// determinism, and the gradient against finite differences of the energy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "efield/electrostatic_system.hpp"
#include "electrostatics/compare.hpp"

namespace efield::test {
namespace {

ElectrostaticOptions cpu_options(ElectrostaticOptions o, Precision p) {
  o.backend = Backend::Cpu;
  o.precision = p;
  o.cpu_threads = 2;
  return o;
}

TEST(ElectrostaticCpu, FloatMatchesReference) {
  for (const DesignSpec& spec : reference_specs()) {
    const std::uint64_t seed = next_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " grid " + std::to_string(spec.M) + "x" + std::to_string(spec.N));
    const TestDesign d = make_random_design(spec, seed);
    ElectrostaticSystem es(cpu_options(d.options, Precision::Float), d.movable, d.fillers, d.fixed);
    expect_matches_reference(run_host<float>(es, d), reference_of(d), 1e-4, "cpu float");
  }
}

TEST(ElectrostaticCpu, DoubleMatchesReference) {
  for (const DesignSpec& spec : reference_specs()) {
    const std::uint64_t seed = next_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " grid " + std::to_string(spec.M) + "x" + std::to_string(spec.N));
    const TestDesign d = make_random_design(spec, seed);
    ElectrostaticSystem es(cpu_options(d.options, Precision::Double), d.movable, d.fillers, d.fixed);
    expect_matches_reference(run_host<double>(es, d), reference_of(d), 1e-10, "cpu double");
  }
}

TEST(ElectrostaticCpu, NoFillersNoFixedCells) {
  DesignSpec spec;
  spec.num_fillers = 0;
  spec.num_fixed = 0;
  spec.M = 20;
  spec.N = 12;
  const TestDesign d = make_random_design(spec, next_seed());
  ElectrostaticSystem es(cpu_options(d.options, Precision::Double), d.movable);
  expect_matches_reference(run_host<double>(es, d), reference_of(d), 1e-10, "no fillers");
}

TEST(ElectrostaticCpu, DeterministicBitwise) {
  DesignSpec spec = reference_specs()[2];
  const TestDesign d = make_random_design(spec, next_seed());
  for (Precision p : {Precision::Float, Precision::Double}) {
    ElectrostaticSystem es(cpu_options(d.options, p), d.movable, d.fillers, d.fixed);
    const auto run = [&] {
      return p == Precision::Float ? run_host<float>(es, d) : run_host<double>(es, d);
    };
    const SystemOutput a = run(), b = run();
    EXPECT_EQ(std::memcmp(&a.result, &b.result, sizeof(EvaluateResult)), 0);
    EXPECT_EQ(a.gx, b.gx);
    EXPECT_EQ(a.gy, b.gy);
    EXPECT_EQ(a.rho, b.rho);
    EXPECT_EQ(a.ex, b.ex);
  }
}

TEST(ElectrostaticCpu, UpdateFixedCellsRecomputesTheFixedMap) {
  DesignSpec spec;
  spec.td = 0.8;
  const TestDesign d = make_random_design(spec, next_seed());
  TestDesign moved = d;
  for (double& x : moved.fixed.x) x += 7.5;
  ElectrostaticSystem es(cpu_options(d.options, Precision::Double), d.movable, d.fillers, d.fixed);
  run_host<double>(es, d);
  es.update_fixed_cells(moved.fixed);
  expect_matches_reference(run_host<double>(es, moved), reference_of(moved), 1e-10, "after update");
}

// docs/math.md 2.9: the ePlace gradient is proportional to dE/dx only up to discretization; on cells
// larger than the bins its direction agrees with central finite differences of E.
TEST(ElectrostaticCpu, GradientAgreesWithFiniteDifferences) {
  DesignSpec spec;
  spec.M = 32;
  spec.N = 32;
  spec.xh = 320;
  spec.yh = 320;
  spec.num_movable = 40;
  spec.num_fillers = 0;
  spec.num_fixed = 2;
  spec.macros = false;
  spec.outside = false;
  spec.min_size_bins = 1.5;
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  TestDesign d = make_random_design(spec, seed);
  // 1.5 .. 3 bins: larger than the bins, so no stretching; kept inside the region, where moving a
  // cell does not drop charge across the boundary (that changes E but is not the field's job).
  std::mt19937_64 gen(seed);
  for (size_t i = 0; i < d.movable.widths.size(); ++i) {
    d.movable.widths[i] = std::max(d.movable.widths[i], 15.0);
    d.movable.heights[i] = std::max(d.movable.heights[i], 15.0);
    d.cx[i] = std::uniform_real_distribution<double>(1.0, 319.0 - d.movable.widths[i])(gen);
    d.cy[i] = std::uniform_real_distribution<double>(1.0, 319.0 - d.movable.heights[i])(gen);
  }
  ElectrostaticSystem es(cpu_options(d.options, Precision::Double), d.movable, d.fillers, d.fixed);
  std::vector<double> x = d.array<double>(d.cx), y = d.array<double>(d.cy);
  std::vector<double> gx(x.size()), gy(x.size()), tx(x.size()), ty(x.size());
  es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  const double h = 0.05 * es.bin_width();
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    for (int axis = 0; axis < 2; ++axis) {
      std::vector<double>& p = axis == 0 ? x : y;
      const double keep = p[i];
      p[i] = keep + h;
      const double ep = es.evaluate(x.data(), y.data(), tx.data(), ty.data()).energy;
      p[i] = keep - h;
      const double em = es.evaluate(x.data(), y.data(), tx.data(), ty.data()).energy;
      p[i] = keep;
      const double fd = (ep - em) / (2 * h);
      const double g = axis == 0 ? gx[i] : gy[i];
      dot += fd * g;
      na += fd * fd;
      nb += g * g;
    }
  }
  const double cosine = dot / std::sqrt(na * nb);
  EXPECT_GE(cosine, 0.9);
}

}  // namespace
}  // namespace efield::test
