// DREAMPlace's movable-macro rule (docs/math.md 2.1, CellSizes::movable_macro_mask): below
// td = 1 a marked movable cell's density ratio is td. CPU and CUDA (the CUDA tests skip without a
// device) against the float64 reference; td = 1 leaves the results bitwise unchanged; a mask
// given through update_movable_sizes gives the bits of a system built with it; bad masks are
// refused.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "efield/electrostatic_system.hpp"
#include "efield/error.hpp"
#include "electrostatics/compare.hpp"
#include "support/gpu.hpp"
#if EFIELD_HAS_CUDA
#include "electrostatics/cuda_runs.hpp"
#endif

namespace efield::test {
namespace {

// Marks the cells wider than 4 bins (the random designs' macros) and every seventh small one (a
// stretched cell whose ratio the rule replaces too).
std::vector<std::uint8_t> macro_mask(const TestDesign& d) {
  const double bx = (d.options.xh - d.options.xl) / d.options.num_bins_x;
  std::vector<std::uint8_t> mask(d.movable.widths.size(), 0);
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = d.movable.widths[i] > 4 * bx || i % 7 == 3;
  return mask;
}

// A random design at target density td with the mask above.
TestDesign masked_design(double td, std::uint64_t seed, int gap = 0) {
  DesignSpec spec;
  spec.M = 17;
  spec.N = 24;
  spec.td = td;
  spec.gap = gap;
  TestDesign d = make_random_design(spec, seed);
  d.movable.movable_macro_mask = macro_mask(d);
  return d;
}

template <typename T>
SystemOutput run_on(Backend backend, const TestDesign& d, const CellSizes& movable) {
  ElectrostaticSystem es(with(d.options, backend, sizeof(T) == 4 ? Precision::Float : Precision::Double), movable,
                         d.fillers, d.fixed);
#if EFIELD_HAS_CUDA
  if (backend == Backend::Cuda) return run_device<T>(es, d);
#endif
  return run_host<T>(es, d);
}

// Both precisions on one backend against the reference, at td 0.7 (rule on) with a DREAMPlace gap.
void expect_masked_matches_reference(Backend backend) {
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const TestDesign d = masked_design(0.7, seed, 5);
  const ReferenceResult ref = reference_of(d);
  TestDesign unmasked = d;
  unmasked.movable.movable_macro_mask.clear();
  const ReferenceResult plain = reference_of(unmasked);
  ASSERT_GT(relative_l2(ref.rho, plain.rho), 1e-3) << "the mask must change the reference";
  expect_matches_reference(run_on<float>(backend, d, d.movable), ref, 1e-4, "float");
  expect_matches_reference(run_on<double>(backend, d, d.movable), ref, 1e-10, "double");
}

// td = 1: a mask changes nothing, bitwise.
template <typename T>
void expect_mask_without_effect_at_td_one(Backend backend) {
  const TestDesign d = masked_design(1.0, next_seed());
  CellSizes unmasked = d.movable;
  unmasked.movable_macro_mask.clear();
  expect_same_bits(run_on<T>(backend, d, d.movable), run_on<T>(backend, d, unmasked), "td 1");
}

// A mask set, changed and removed through update_movable_sizes gives the bits of a system built
// with that mask (and the sizes updated with it).
template <typename T>
void expect_update_equals_fresh_build(Backend backend) {
  const TestDesign d = masked_design(0.8, next_seed());
  const Precision p = sizeof(T) == 4 ? Precision::Float : Precision::Double;
  CellSizes none = d.movable;
  none.movable_macro_mask.clear();
  CellSizes inflated = d.movable;  // routability inflation: sizes and mask change together
  for (size_t i = 0; i < inflated.widths.size(); i += 3) inflated.widths[i] *= 1.25;
  inflated.movable_macro_mask[0] = 1;
  ElectrostaticSystem es(with(d.options, backend, p), none, d.fillers, d.fixed);
  const auto run = [&](ElectrostaticSystem& s, const TestDesign& design) {
#if EFIELD_HAS_CUDA
    if (backend == Backend::Cuda) return run_device<T>(s, design);
#endif
    return run_host<T>(s, design);
  };
  run(es, d);
  for (const CellSizes* sizes : std::initializer_list<const CellSizes*>{&d.movable, &inflated, &none}) {
    es.update_movable_sizes(*sizes);
    TestDesign now = d;
    now.movable = *sizes;
    ElectrostaticSystem fresh(with(d.options, backend, p), *sizes, d.fillers, d.fixed);
    expect_same_bits(run(es, now), run(fresh, now), "after update_movable_sizes");
  }
}

TEST(MovableMacros, CpuMatchesReference) { expect_masked_matches_reference(Backend::Cpu); }
TEST(MovableMacros, CpuMaskWithoutEffectAtTargetDensityOne) {
  expect_mask_without_effect_at_td_one<float>(Backend::Cpu);
  expect_mask_without_effect_at_td_one<double>(Backend::Cpu);
}
TEST(MovableMacros, CpuUpdateEqualsFreshBuild) {
  expect_update_equals_fresh_build<float>(Backend::Cpu);
  expect_update_equals_fresh_build<double>(Backend::Cpu);
}

TEST(MovableMacros, CudaMatchesReference) {
  EFIELD_REQUIRE_GPU();
  expect_masked_matches_reference(Backend::Cuda);
}
TEST(MovableMacros, CudaMaskWithoutEffectAtTargetDensityOne) {
  EFIELD_REQUIRE_GPU();
  expect_mask_without_effect_at_td_one<float>(Backend::Cuda);
  expect_mask_without_effect_at_td_one<double>(Backend::Cuda);
}
TEST(MovableMacros, CudaUpdateEqualsFreshBuild) {
  EFIELD_REQUIRE_GPU();
  expect_update_equals_fresh_build<float>(Backend::Cuda);
  expect_update_equals_fresh_build<double>(Backend::Cuda);
}
// CUDA and CPU agree with the mask (double, tight).
TEST(MovableMacros, CudaAgreesWithCpu) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = masked_design(0.6, next_seed());
  expect_close(run_on<double>(Backend::Cuda, d, d.movable), run_on<double>(Backend::Cpu, d, d.movable), 1e-12);
}

TEST(MovableMacros, BadMasksAreRefused) {
  const TestDesign d = masked_design(0.9, next_seed());
  const ElectrostaticOptions o = with(d.options, Backend::Cpu, Precision::Double);
  CellSizes short_mask = d.movable;
  short_mask.movable_macro_mask.pop_back();
  try {
    ElectrostaticSystem es(o, short_mask, d.fillers, d.fixed);
    FAIL() << "a mask of the wrong length was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("movable_macro_mask has"), std::string::npos) << e.what();
  }
  CellSizes filler_mask = d.fillers;
  filler_mask.movable_macro_mask.assign(filler_mask.widths.size(), 1);
  EXPECT_THROW(ElectrostaticSystem(o, d.movable, filler_mask, d.fixed), Error);
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  EXPECT_THROW(es.update_movable_sizes(short_mask), Error);
  EXPECT_THROW(es.update_filler_sizes(filler_mask), Error);
}

}  // namespace
}  // namespace efield::test
