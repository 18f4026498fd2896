// MultiFieldPipeline::Batched (kernels/multi_field/batched_multi_field.cu): all fields in one
// CUDA pipeline, against the per-field pipeline and the float64 dense reference. Which
// comparisons are bitwise:
//   - the density maps, overflow, max density and the areas outside the region: bitwise equal to
//     the per-field pipeline's (64-bit fixed-point bins are order-free; the density pass and
//     finalize are the 2D pipeline's, with the same blocks per field);
//   - energy and gradients: to round-off (cuFFT's batched plans against its single plans, and
//     large cells summed by a block instead of a warp or chunks);
//   - the batched pipeline against itself: bitwise (a rerun, the graph's replay, no graph, host
//     arrays against device arrays).
// The option's validation runs on the CPU in CI; the rest skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/multi_field_cases.hpp"
#include "electrostatics/reference_electrostatics.hpp"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

template <typename T>
Precision precision_of() {
  return std::is_same_v<T, float> ? Precision::Float : Precision::Double;
}

// |a - b| / max |b| over the vector: round-off, whatever the gradient's scale.
double max_relative(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff = std::max(diff, std::fabs(a[i] - b[i])), scale = std::max(scale, std::fabs(b[i]));
  return scale > 0 ? diff / scale : diff;
}

// The batched pipeline against the per-field one on the same case: bitwise where the header says.
template <typename T>
void expect_batched_matches_per_field(MultiCase c, const std::string& what) {
  SCOPED_TRACE(what);
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  c.options.pipeline = MultiFieldPipeline::PerField;
  MultiFieldSystem per_field(c.options, c.fields);
  c.options.pipeline = MultiFieldPipeline::Batched;
  MultiFieldSystem batched(c.options, c.fields);
  const MultiRun a = run_multi<T>(per_field, c, true), b = run_multi<T>(batched, c, true);
  ASSERT_EQ(b.results.size(), c.fields.size());
  for (int k = 0; k < static_cast<int>(c.fields.size()); ++k) {
    SCOPED_TRACE("field " + std::to_string(k));
    const EvaluateResult &ra = a.results[static_cast<size_t>(k)], &rb = b.results[static_cast<size_t>(k)];
    EXPECT_EQ(batched.density_map(k), per_field.density_map(k));
    EXPECT_EQ(rb.overflow, ra.overflow);
    EXPECT_EQ(rb.max_density, ra.max_density);
    EXPECT_EQ(rb.movable_area_outside, ra.movable_area_outside);
    EXPECT_EQ(rb.filler_area_outside, ra.filler_area_outside);
    EXPECT_LE(std::fabs(rb.energy - ra.energy), tol * std::fabs(ra.energy)) << rb.energy << " vs " << ra.energy;
    std::vector<double> gxa, gya, gxb, gyb;
    field_gradient(c, k, a, gxa, gya);
    field_gradient(c, k, b, gxb, gyb);
    EXPECT_LE(max_relative(gxb, gxa), tol);
    EXPECT_LE(max_relative(gyb, gya), tol);
  }
  // Entries no field owns: untouched by both.
  std::vector<char> owned(c.x.size(), 0);
  for (const FieldSpec& f : c.fields)
    for (const auto* index : {&f.movable_index, &f.filler_index})
      for (std::int64_t e : *index) owned[static_cast<size_t>(e)] = 1;
  for (size_t e = 0; e < owned.size(); ++e)
    if (!owned[e]) EXPECT_EQ(b.gx[e], 0.0) << e;
}

template <typename T>
void compare_all_cases() {
  const Precision p = precision_of<T>();
  expect_batched_matches_per_field<T>(batch_case(1, p, Backend::Cuda), "one field, identity indexing");
  for (int K : {1, 2, 4})
    expect_batched_matches_per_field<T>(fence_case(K, 1500, 32, p, Backend::Cuda), "fences: " + std::to_string(K));
  expect_batched_matches_per_field<T>(batch_case(5, p, Backend::Cuda), "a batch of 5 placements");
}

TEST(MultiFieldBatchedCuda, MatchesThePerFieldPipelineFloat) {
  EFIELD_REQUIRE_GPU();
  compare_all_cases<float>();
}
TEST(MultiFieldBatchedCuda, MatchesThePerFieldPipelineDouble) {
  EFIELD_REQUIRE_GPU();
  compare_all_cases<double>();
}

// Each field against the float64 dense reference of that field alone (DREAMPlace's per-region
// op), as the per-field pipeline is tested (test_multi_field.cpp).
TEST(MultiFieldBatchedCuda, FenceFieldsMatchTheDenseReference) {
  EFIELD_REQUIRE_GPU();
  for (int K : {2, 4}) {
    SCOPED_TRACE("K = " + std::to_string(K));
    MultiCase c = fence_case(K, 400, 16, Precision::Double, Backend::Cuda, 5);
    c.options.pipeline = MultiFieldPipeline::Batched;
    MultiFieldSystem mf(c.options, c.fields);
    const MultiRun m = run_multi<double>(mf, c, true);
    for (int k = 0; k <= K; ++k) {
      SCOPED_TRACE("field " + std::to_string(k));
      const ReferenceResult r = field_reference(c, k);
      std::vector<double> gx, gy;
      field_gradient(c, k, m, gx, gy);
      const EvaluateResult& got = m.results[static_cast<size_t>(k)];
      EXPECT_LE(relative_l2(mf.density_map(k), r.rho), 1e-9) << "density map";
      EXPECT_LE(relative_l2(gx, r.gx), 1e-9) << "grad x";
      EXPECT_LE(relative_l2(gy, r.gy), 1e-9) << "grad y";
      EXPECT_LE(rel_scalar(got.energy, r.energy), 1e-9) << got.energy << " vs " << r.energy;
      EXPECT_LE(rel_scalar(got.overflow, r.overflow), 1e-9);
      EXPECT_LE(rel_scalar(got.max_density, r.max_density), 1e-9);
    }
  }
}

// The batched pipeline against itself: a rerun (the graph's replay), no graph, host arrays.
template <typename T>
void expect_batched_reproducible() {
  MultiCase c = fence_case(4, 1500, 32, precision_of<T>(), Backend::Cuda);
  c.options.pipeline = MultiFieldPipeline::Batched;
  MultiFieldSystem with_graph(c.options, c.fields);
  c.options.system.use_cuda_graph = false;
  MultiFieldSystem without(c.options, c.fields);
  const MultiRun first = run_multi<T>(with_graph, c, true), replay = run_multi<T>(with_graph, c, true);
  const MultiRun direct = run_multi<T>(without, c, true), host = run_multi<T>(with_graph, c, false);
  for (const MultiRun* other : {&replay, &direct, &host}) {
    EXPECT_EQ(other->gx, first.gx);
    EXPECT_EQ(other->gy, first.gy);
    for (size_t k = 0; k < first.results.size(); ++k) expect_same_result(other->results[k], first.results[k]);
  }
}
TEST(MultiFieldBatchedCuda, RerunsAreBitwiseEqual) {
  EFIELD_REQUIRE_GPU();
  expect_batched_reproducible<float>();
  expect_batched_reproducible<double>();
}

TEST(MultiFieldBatchedCuda, WeightsAccumulateAndUnownedEntries) {
  EFIELD_REQUIRE_GPU();
  expect_weights_accumulate_unowned<float>(Backend::Cuda, MultiFieldPipeline::Batched);
  expect_weights_accumulate_unowned<double>(Backend::Cuda, MultiFieldPipeline::Batched);
}

// The batched pipeline keeps no per-field systems: field(k) says so; density_map(k) and
// field_spec(k) work and check k.
TEST(MultiFieldBatchedCuda, NoPerFieldSystems) {
  EFIELD_REQUIRE_GPU();
  MultiCase c = fence_case(2, 400, 16, Precision::Float, Backend::Cuda);
  c.options.pipeline = MultiFieldPipeline::Batched;
  MultiFieldSystem mf(c.options, c.fields);
  run_multi<float>(mf, c, true);
  EXPECT_THROW(mf.field(0), Error);
  EXPECT_EQ(mf.density_map(2).size(), 16u * 16u);
  EXPECT_THROW(mf.density_map(3), Error);
  EXPECT_EQ(mf.field_spec(1).movable_index, c.fields[1].movable_index);
}

// The option's validation (no GPU needed: it runs before any backend is made).
TEST(MultiFieldBatchedOptions, BadChoicesAreErrors) {
  MultiCase c = fence_case(2, 200, 16, Precision::Float, Backend::Cpu);
  c.options.pipeline = MultiFieldPipeline::Batched;
  EXPECT_THROW(MultiFieldSystem(c.options, c.fields), Error);  // the CPU backend has no batched pipeline
  c.options.system.backend = Backend::Auto;
  c.options.system.gradient_scale = GradientScale::Exact;
  try {
    MultiFieldSystem mf(c.options, c.fields);
    ADD_FAILURE() << "Batched with GradientScale::Exact was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Exact"), std::string::npos) << e.what();
  }
  c.options.system.gradient_scale = GradientScale::DreamPlace;
  c.options.pipeline = static_cast<MultiFieldPipeline>(7);
  EXPECT_THROW(MultiFieldSystem(c.options, c.fields), Error);
}

// Auto (the default) resolves at construction: the CPU backend always runs per field; CUDA runs
// batched for two or more fields with the DREAMPlace scale, per field for one field or Exact.
TEST(MultiFieldBatchedOptions, AutoResolvesToThePipelineThatRuns) {
  MultiCase c = fence_case(2, 200, 16, Precision::Float, Backend::Cpu);
  c.options.pipeline = MultiFieldPipeline::Auto;
  EXPECT_EQ(MultiFieldSystem(c.options, c.fields).options().pipeline, MultiFieldPipeline::PerField);
  EXPECT_EQ(MultiFieldOptions{}.pipeline, MultiFieldPipeline::Auto);
}

TEST(MultiFieldBatchedCuda, AutoIsBatchedForManyFields) {
  EFIELD_REQUIRE_GPU();
  MultiCase c = fence_case(2, 200, 16, Precision::Float, Backend::Cuda);
  c.options.pipeline = MultiFieldPipeline::Auto;
  const MultiFieldSystem many(c.options, c.fields);
  EXPECT_EQ(many.options().pipeline, MultiFieldPipeline::Batched);
  EXPECT_THROW(many.field(0), Error);
  c.options.system.gradient_scale = GradientScale::Exact;
  EXPECT_EQ(MultiFieldSystem(c.options, c.fields).options().pipeline, MultiFieldPipeline::PerField);
  c.options.system.gradient_scale = GradientScale::DreamPlace;
  c.fields.resize(1);
  EXPECT_EQ(MultiFieldSystem(c.options, c.fields).options().pipeline, MultiFieldPipeline::PerField);
}

// density_map(k) of the per-field pipeline is its field's system's map; k is checked.
TEST(MultiFieldBatchedOptions, DensityMapOfEachField) {
  const MultiCase c = fence_case(2, 300, 16, Precision::Double, Backend::Cpu);
  MultiFieldSystem mf(c.options, c.fields);
  run_multi<double>(mf, c, false);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(mf.density_map(k), mf.field(k).density_map());
  EXPECT_THROW(mf.density_map(-1), Error);
  EXPECT_THROW(mf.field_spec(3), Error);
}

}  // namespace
}  // namespace efield::test
