// MultiFieldSystem (include/efield/multi_field_system.hpp): every field bitwise equal to a
// separately built system (one field with identity indexing: today's system), fence fields
// against the float64 dense reference, batches, weights, accumulation and unowned entries.
// CPU in CI; the CUDA cases skip without a GPU. On CUDA each field runs its system's
// evaluate_async, so it is compared with separately built systems' evaluate_async (in
// deterministic float that accumulates in 64-bit bins, evaluate in exact float maps: both
// deterministic, not the same bits).
#include <gtest/gtest.h>

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

// One field, every cell at its own index: the multi-field system is today's system.
template <typename T>
void identity_case(Backend b) {
  const Precision p = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  MultiCase c = batch_case(1, p, b);
  MultiFieldSystem mf(c.options, c.fields);
  const bool cuda = b == Backend::Cuda;
  expect_fields_bitwise<T>(mf, c, cuda, cuda);
  if (cuda) {  // host arrays give the same bits as device arrays
    const MultiRun host = run_multi<T>(mf, c, false), device = run_multi<T>(mf, c, true);
    EXPECT_EQ(host.gx, device.gx);
    EXPECT_EQ(host.gy, device.gy);
    expect_same_result(host.results[0], device.results[0]);
  }
}

TEST(MultiFieldCpu, OneFieldIsTheSingleSystemFloat) { identity_case<float>(Backend::Cpu); }
TEST(MultiFieldCpu, OneFieldIsTheSingleSystemDouble) { identity_case<double>(Backend::Cpu); }
TEST(MultiFieldCuda, OneFieldIsTheSingleSystemFloat) {
  EFIELD_REQUIRE_GPU();
  identity_case<float>(Backend::Cuda);
}
TEST(MultiFieldCuda, OneFieldIsTheSingleSystemDouble) {
  EFIELD_REQUIRE_GPU();
  identity_case<double>(Backend::Cuda);
}

template <typename T>
void fence_fields_case(Backend b, int K) {
  SCOPED_TRACE("K = " + std::to_string(K));
  const Precision p = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  const MultiCase c = fence_case(K, 1500, 32, p, b);
  ASSERT_EQ(c.fields.size(), static_cast<size_t>(K + 1));
  MultiFieldSystem mf(c.options, c.fields);
  const bool cuda = b == Backend::Cuda;
  expect_fields_bitwise<T>(mf, c, cuda, cuda);
  // A second evaluate (CUDA: the graph's replay) gives the same bits.
  const MultiRun first = run_multi<T>(mf, c, cuda), second = run_multi<T>(mf, c, cuda);
  EXPECT_EQ(first.gx, second.gx);
  EXPECT_EQ(first.gy, second.gy);
}

TEST(MultiFieldCpu, FenceFieldsAreSeparateSystems) {
  for (int K : {2, 4}) fence_fields_case<float>(Backend::Cpu, K);
  fence_fields_case<double>(Backend::Cpu, 2);
}
TEST(MultiFieldCuda, FenceFieldsAreSeparateSystems) {
  EFIELD_REQUIRE_GPU();
  for (int K : {2, 4}) {
    fence_fields_case<float>(Backend::Cuda, K);
    fence_fields_case<double>(Backend::Cuda, K);
  }
}

// Each field against the float64 dense reference of that field alone (its cells and fillers, the
// fixed cells and its blockages as fixed blocks, its td): DREAMPlace's per-region op.
TEST(MultiFieldCpu, FenceFieldsMatchTheDenseReference) {
  const MultiCase c = fence_case(2, 400, 16, Precision::Double, Backend::Cpu, 5);
  MultiFieldSystem mf(c.options, c.fields);
  const MultiRun m = run_multi<double>(mf, c, false);
  for (int k = 0; k < 3; ++k) {
    const ReferenceResult r = field_reference(c, k);
    SystemOutput s;
    s.result = m.results[static_cast<size_t>(k)];
    field_gradient(c, k, m, s.gx, s.gy);
    const ElectrostaticSystem& es = mf.field(k);
    s.rho = es.density_map(), s.phi = es.potential_map(), s.ex = es.field_x_map(), s.ey = es.field_y_map();
    s.fixed = es.fixed_map();
    expect_matches_reference(s, r, 1e-9, "field " + std::to_string(k));
  }
}

template <typename T>
void batch_test(Backend b) {
  const Precision p = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  const MultiCase c = batch_case(5, p, b);
  MultiFieldSystem mf(c.options, c.fields);
  const bool cuda = b == Backend::Cuda;
  expect_fields_bitwise<T>(mf, c, cuda, cuda);
  const MultiRun m = run_multi<T>(mf, c, cuda);
  EXPECT_NE(m.results[0].energy, m.results[1].energy);  // members at their own positions
}
TEST(MultiFieldCpu, BatchMembersAreSeparateSystems) { batch_test<float>(Backend::Cpu); }
TEST(MultiFieldCuda, BatchMembersAreSeparateSystems) {
  EFIELD_REQUIRE_GPU();
  batch_test<float>(Backend::Cuda);
  batch_test<double>(Backend::Cuda);
}

TEST(MultiFieldCpu, WeightsAccumulateAndUnownedEntries) {
  expect_weights_accumulate_unowned<float>(Backend::Cpu);
  expect_weights_accumulate_unowned<double>(Backend::Cpu);
}
// The form that fills the caller's vector gives the returned vector's results, in the vector it
// was given (a placer loop keeps it: nothing allocated per iteration).
TEST(MultiFieldCpu, ResultsIntoTheCallersVector) {
  MultiCase c = fence_case(2, 400, 16, Precision::Double, Backend::Cpu, 3);
  MultiFieldSystem mf(c.options, c.fields);
  const std::size_t n = c.x.size();
  std::vector<double> gx(n, 0.0), gy(n, 0.0);
  const std::vector<EvaluateResult> returned = mf.evaluate(c.x.data(), c.y.data(), gx.data(), gy.data());
  std::vector<EvaluateResult> kept;
  kept.reserve(3);
  const EvaluateResult* storage = kept.data();
  for (int i = 0; i < 2; ++i) {
    mf.evaluate(c.x.data(), c.y.data(), gx.data(), gy.data(), kept);
    ASSERT_EQ(kept.size(), returned.size());
    EXPECT_EQ(kept.data(), storage);
    for (std::size_t k = 0; k < kept.size(); ++k) expect_same_result(kept[k], returned[k]);
  }
}

TEST(MultiFieldCuda, WeightsAccumulateAndUnownedEntries) {
  EFIELD_REQUIRE_GPU();
  expect_weights_accumulate_unowned<float>(Backend::Cuda);
  expect_weights_accumulate_unowned<double>(Backend::Cuda);
}

// Without graphs the CUDA backend gives the same bits.
TEST(MultiFieldCuda, WithoutGraphs) {
  EFIELD_REQUIRE_GPU();
  MultiCase c = fence_case(4, 1500, 32, Precision::Float, Backend::Cuda);
  MultiFieldSystem with_graph(c.options, c.fields);
  c.options.system.use_cuda_graph = false;
  MultiFieldSystem without(c.options, c.fields);
  const MultiRun a = run_multi<float>(with_graph, c, true), a2 = run_multi<float>(with_graph, c, true);
  const MultiRun b = run_multi<float>(without, c, true);
  EXPECT_EQ(a2.gx, b.gx);
  EXPECT_EQ(a.gy, b.gy);
  for (size_t k = 0; k < a.results.size(); ++k) expect_same_result(a2.results[k], b.results[k]);
}

}  // namespace
}  // namespace efield::test
