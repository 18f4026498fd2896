// ElectrostaticOptions::plan_effort: the option is checked; the CPU ignores it; on CUDA a measured
// system gives the bits of the default one (every candidate of a measured choice is exact), its
// choice goes into the wisdom, is saved and loaded back, and is what a later system takes; a
// wisdom file from another GPU or a corrupt one is ignored with a warning.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "common/device_properties.hpp"
#include "efield/error.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/cuda_runs.hpp"
#include "support/gpu.hpp"
#include "support/log_capture.hpp"
#include "transforms/wisdom.hpp"

namespace efield::test {
namespace {

ElectrostaticOptions with_effort(ElectrostaticOptions o, PlanEffort effort) {
  o.plan_effort = effort;
  return o;
}

TEST(MeasureMode, PlanEffortIsValidated) {
  const TestDesign d = make_random_design(DesignSpec{}, 7);
  const ElectrostaticOptions o =
      with_effort(with(d.options, Backend::Cpu, Precision::Double), static_cast<PlanEffort>(7));
  try {
    ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    FAIL() << "an invalid plan_effort was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("plan_effort"), std::string::npos) << e.what();
  }
}

TEST(MeasureMode, TheCpuIgnoresIt) {
  const TestDesign d = make_random_design(reference_specs()[1], next_seed());
  ElectrostaticSystem estimate(with(d.options, Backend::Cpu, Precision::Double), d.movable, d.fillers, d.fixed);
  ElectrostaticSystem measure(with_effort(with(d.options, Backend::Cpu, Precision::Double), PlanEffort::Measure),
                              d.movable, d.fillers, d.fixed);
  expect_same_bits(run_host<double>(estimate, d), run_host<double>(measure, d), "measure against estimate");
}

// The wisdom key of a system's accumulator maps (measured_choices.cuh).
detail::EsWisdomKey maps_key(const TestDesign& d, Precision p) {
  const auto cells = static_cast<double>(d.movable.widths.size() + d.fillers.widths.size());
  return detail::EsWisdomKey{detail::current_device_identity(),
                             p == Precision::Float ? detail::Scalar::Float : detail::Scalar::Double,
                             detail::kEsAccumulatorMaps, d.options.num_bins_x, d.options.num_bins_y,
                             static_cast<int>(std::floor(std::log2(cells)))};
}

// Both precisions, evaluate and (float) evaluate_async, which takes the 64-bit bins whose layout
// measure mode chooses.
TEST(MeasureModeCuda, GivesTheBitsOfTheDefault) {
  EFIELD_REQUIRE_GPU();
  forget_wisdom();
  for (const DesignSpec& spec : reference_specs()) {
    const TestDesign d = make_random_design(spec, next_seed());
    SCOPED_TRACE("grid " + std::to_string(spec.M) + "x" + std::to_string(spec.N));
    for (const Precision p : {Precision::Float, Precision::Double}) {
      SCOPED_TRACE(p == Precision::Float ? "float" : "double");
      ElectrostaticSystem estimate(with(d.options, Backend::Cuda, p), d.movable, d.fillers, d.fixed);
      ElectrostaticSystem measure(with_effort(with(d.options, Backend::Cuda, p), PlanEffort::Measure), d.movable,
                                  d.fillers, d.fixed);
      const auto key = maps_key(d, p);
      ASSERT_TRUE(detail::Wisdom::process().find(key).has_value()) << "the measured choice is kept";
      if (p == Precision::Float) {
        expect_same_bits(run_device<float>(estimate, d), run_device<float>(measure, d), "evaluate");
        expect_same_bits(run_device_async<float>(estimate, d), run_device_async<float>(measure, d), "evaluate_async");
      } else {
        expect_same_bits(run_device<double>(estimate, d), run_device<double>(measure, d), "evaluate");
      }
      // A second system of the same kind takes the choice from the wisdom without timing again.
      LogCapture log(spdlog::level::info);
      ElectrostaticSystem again(with_effort(with(d.options, Backend::Cuda, p), PlanEffort::Measure), d.movable,
                                d.fillers, d.fixed);
      EXPECT_EQ(log.text().find("measured 64-bit bins"), std::string::npos) << log.text();
    }
  }
  forget_wisdom();
}

// float with deterministic = false never runs 64-bit bins in its usual evaluates: nothing to time.
TEST(MeasureModeCuda, NothingIsTimedWithoutSixtyFourBitBins) {
  EFIELD_REQUIRE_GPU();
  forget_wisdom();
  const TestDesign d = make_random_design(reference_specs()[0], next_seed());
  ElectrostaticOptions o = with_effort(with(d.options, Backend::Cuda, Precision::Float), PlanEffort::Measure);
  o.deterministic = false;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  EXPECT_TRUE(detail::Wisdom::process().empty());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(MeasureModeCuda, WisdomRoundTripsAndRulesLaterSystems) {
  EFIELD_REQUIRE_GPU();
  forget_wisdom();
  const TestDesign d = make_random_design(reference_specs()[2], next_seed());
  const ElectrostaticOptions measure = with_effort(with(d.options, Backend::Cuda, Precision::Double), PlanEffort::Measure);
  ElectrostaticSystem measured(measure, d.movable, d.fillers, d.fixed);
  const SystemOutput reference = run_device<double>(measured, d);
  const auto key = maps_key(d, Precision::Double);
  const auto chosen = detail::Wisdom::process().find(key);
  ASSERT_TRUE(chosen.has_value());

  const std::string path = ::testing::TempDir() + "efield_system_wisdom_test.txt";
  save_wisdom(path);
  EXPECT_NE(read_file(path).find("es2d double accumulator_maps"), std::string::npos) << read_file(path);
  forget_wisdom();
  EXPECT_TRUE(load_wisdom(path));
  ASSERT_TRUE(detail::Wisdom::process().find(key).has_value());
  EXPECT_EQ(detail::Wisdom::process().find(key)->value, chosen->value);

  // Each value in the wisdom is what a later system takes, with the default effort too, and
  // gives the same bits.
  for (const char* value : {"one", "two"}) {
    SCOPED_TRACE(value);
    detail::Wisdom::process().record(key, {value, 0.0});
    LogCapture log(spdlog::level::debug);
    ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Double), d.movable, d.fillers, d.fixed);
    const std::string expected = std::string(value) == "two" ? "2 accumulator map(s)" : "1 accumulator map(s)";
    EXPECT_NE(log.text().find(expected), std::string::npos) << log.text();
    expect_same_bits(reference, run_device<double>(es, d), "the wisdom's choice against the measured one");
  }

  // The file as written on another GPU, and a corrupt one: ignored whole, with a warning.
  std::string foreign = read_file(path);
  const std::string device = detail::current_device_identity();
  const std::size_t at = foreign.find(device);
  ASSERT_NE(at, std::string::npos);
  foreign.replace(at, device.size(), "10 1 A GPU from elsewhere");
  const struct {
    std::string text;
    std::string why;
  } bad_files[] = {
      {foreign, "another GPU"},
      {"efield-wisdom 1\ndevice " + device + "\nes2d double accumulator_maps 64 48 8 three 0.1\n", "does not parse"},
      {"efield-wisdom 1\ndevice " + device + "\nes2d double accumulator_maps 64\n", "does not parse"},
  };
  for (const auto& bad : bad_files) {
    SCOPED_TRACE(bad.why);
    std::ofstream(path, std::ios::trunc) << bad.text;
    forget_wisdom();
    LogCapture log;
    EXPECT_FALSE(load_wisdom(path));
    EXPECT_NE(log.text().find(bad.why), std::string::npos) << log.text();
    EXPECT_NE(log.text().find("ignored"), std::string::npos) << log.text();
    EXPECT_TRUE(detail::Wisdom::process().empty());
  }
  std::remove(path.c_str());
  forget_wisdom();
}

}  // namespace
}  // namespace efield::test
