// PlanEffort::Measure and the wisdom: the measured plan computes what every method computes, the
// choice is kept and reused, the file round-trips (Plan2D's methods and the electrostatic
// system's choices), and a file from another GPU, of another version or that does not parse is
// ignored with a warning (the file format without a GPU, the rest on one; the system's measure
// mode on a GPU: tests/electrostatics/test_measure_mode.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "common/device_properties.hpp"
#include "common/log.hpp"
#include "support/gpu.hpp"
#include "support/log_capture.hpp"
#include "transforms/test_dct2d_common.hpp"
#include "transforms/wisdom.hpp"

namespace efield::test {
namespace {

using detail::Scalar;
using detail::Wisdom;
using detail::WisdomEntry;
using detail::WisdomKey;
using detail::EsWisdomKey;

const std::string kDevice = "90 132 Some GPU";

WisdomKey key(Transform2D kind, int rows, int cols, Scalar scalar = Scalar::Float) {
  return WisdomKey{kDevice, scalar, kind, rows, cols};
}

TEST(Wisdom, TextRoundTrips) {
  Wisdom w;
  w.record(key(Transform2D::Dct2, 512, 1000), {Cuda2DMethod::PackedFft, 0.0123});
  w.record(key(Transform2D::IdxstIdct, 10000, 100, Scalar::Double), {Cuda2DMethod::PrimeFactorFft, 0.25});
  w.record(WisdomKey{"75 40 Another GPU", Scalar::Float, Transform2D::Idct2, 64, 64}, {Cuda2DMethod::OneFft, 0.01});
  const std::string text = w.text(kDevice);
  EXPECT_EQ(text.find("Another GPU"), std::string::npos) << "only the named device's entries";
  Wisdom back;
  EXPECT_TRUE(back.add_text(text, kDevice, "test"));
  ASSERT_TRUE(back.find(key(Transform2D::Dct2, 512, 1000)).has_value());
  EXPECT_EQ(back.find(key(Transform2D::Dct2, 512, 1000))->method, Cuda2DMethod::PackedFft);
  ASSERT_TRUE(back.find(key(Transform2D::IdxstIdct, 10000, 100, Scalar::Double)).has_value());
  EXPECT_EQ(back.find(key(Transform2D::IdxstIdct, 10000, 100, Scalar::Double))->method, Cuda2DMethod::PrimeFactorFft);
  EXPECT_FALSE(back.find(key(Transform2D::Dct2, 1000, 512)).has_value());
  EXPECT_EQ(back.text(kDevice), text);
}

EsWisdomKey es_key(int bins_x, int bins_y, int cells_log2, Scalar scalar = Scalar::Float) {
  return EsWisdomKey{kDevice, scalar, detail::kEsAccumulatorMaps, bins_x, bins_y, cells_log2};
}

// The system's choices share the file with Plan2D's methods and round-trip beside them.
TEST(Wisdom, SystemChoicesRoundTrip) {
  Wisdom w;
  w.record(key(Transform2D::Dct2, 512, 512), {Cuda2DMethod::OneFft, 0.01});
  w.record(es_key(512, 512, 18), {"two", 0.031});
  w.record(es_key(2048, 2048, 22, Scalar::Double), {"one", 0.42});
  w.record(EsWisdomKey{"75 40 Another GPU", Scalar::Float, detail::kEsAccumulatorMaps, 64, 64, 10}, {"one", 0.01});
  const std::string text = w.text(kDevice);
  EXPECT_NE(text.find("es2d float accumulator_maps 512 512 18 two"), std::string::npos) << text;
  EXPECT_EQ(text.find("Another GPU"), std::string::npos) << "only the named device's entries";
  Wisdom back;
  EXPECT_TRUE(back.add_text(text, kDevice, "test"));
  ASSERT_TRUE(back.find(es_key(512, 512, 18)).has_value());
  EXPECT_EQ(back.find(es_key(512, 512, 18))->value, "two");
  ASSERT_TRUE(back.find(es_key(2048, 2048, 22, Scalar::Double)).has_value());
  EXPECT_EQ(back.find(es_key(2048, 2048, 22, Scalar::Double))->value, "one");
  EXPECT_FALSE(back.find(es_key(512, 512, 17)).has_value()) << "keyed by the cell count's power of two";
  EXPECT_FALSE(back.find(es_key(512, 512, 18, Scalar::Double)).has_value());
  ASSERT_TRUE(back.find(key(Transform2D::Dct2, 512, 512)).has_value());
  EXPECT_EQ(back.text(kDevice), text);
  back.clear();
  EXPECT_TRUE(back.empty());
}

// Each text is ignored whole, with a warning that says why.
TEST(Wisdom, ForeignOrCorruptTextIsIgnoredWithAWarning) {
  Wisdom w;
  w.record(key(Transform2D::Dct2, 512, 1000), {Cuda2DMethod::PackedFft, 0.0123});
  const std::string good = w.text(kDevice);
  const std::string header = "efield-wisdom 1\ndevice " + kDevice + "\n";
  const struct {
    std::string text;
    std::string why;
  } cases[] = {
      {good, "another GPU"},  // read on another device below
      {"", "empty"},
      {"not a wisdom file\n", "not a wisdom file"},
      {"efield-wisdom 2\ndevice " + kDevice + "\n", "format version 2"},
      {"efield-wisdom 1\n", "does not name the device"},
      {header + "plan2d float dct2 512 1000 packed_fft\n", "does not parse"},            // truncated
      {header + "plan2d float dct2 512 1000 no_such_method 0.1\n", "does not parse"},  // unknown method
      {header + "plan2d half dct2 512 1000 one_fft 0.1\n", "does not parse"},          // unknown type
      {header + "plan2d float dct9 512 1000 one_fft 0.1\n", "does not parse"},         // unknown kind
      {header + "plan2d float dct2 -5 1000 one_fft 0.1\n", "does not parse"},          // bad size
      {header + "plan2d float dct2 100 100 two_passes 0.1\n", "does not parse"},       // does not apply
      {header + "plan2d float dct2 512 1000 one_fft 0.1 extra\n", "does not parse"},
      {header + "plan2d float dct2 512 1000 one_fft 0.1\n\x01\x02garbage\n", "does not parse"},
      {header + "es2d float accumulator_maps 512 512 18 three 0.1\n", "does not parse"},  // unknown value
      {header + "es2d float piles 512 512 18 two 0.1\n", "does not parse"},             // unknown choice
      {header + "es2d float accumulator_maps 512 0 18 two 0.1\n", "does not parse"},     // bad grid
      {header + "es2d float accumulator_maps 512 512 -1 two 0.1\n", "does not parse"},   // bad cell count
      {header + "es2d float accumulator_maps 512 512 18 two\n", "does not parse"},       // truncated
      {header + "es2d half accumulator_maps 512 512 18 two 0.1\n", "does not parse"},    // unknown type
      {header + "es2d float accumulator_maps 512 512 18 two 0.1\nes2d float accumulator_maps 8 8 3 two nan\n",
       "line 4 does not parse"},  // a good line before a bad one: nothing of the file is kept
  };
  bool first = true;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    Wisdom target;
    LogCapture log;
    const std::string device = first ? "90 114 Other GPU" : kDevice;
    first = false;
    EXPECT_FALSE(target.add_text(c.text, device, "wisdom.txt"));
    EXPECT_TRUE(target.empty()) << "nothing of an ignored file is kept";
    EXPECT_NE(log.text().find("wisdom.txt"), std::string::npos) << log.text();
    EXPECT_NE(log.text().find(c.why), std::string::npos) << log.text();
    EXPECT_NE(log.text().find("ignored"), std::string::npos) << log.text();
  }
}

TEST(Wisdom, MissingFileIsIgnoredWithAWarning) {
  LogCapture log;
  EXPECT_FALSE(load_wisdom("/nonexistent/efield/wisdom.txt"));
  EXPECT_NE(log.text().find("ignored"), std::string::npos) << log.text();
}

TEST(Wisdom, EffortIsValidated) {
  PlanOptions o;
  o.effort = static_cast<PlanEffort>(7);
  EXPECT_THROW(Plan2D<float>(Transform2D::Dct2, 8, 8, o), Error);
}

// The registry is the one list of the methods: to_string and cuda_2d_methods() read it.
TEST(Wisdom, MethodNamesComeFromTheRegistry) {
  const std::vector<Cuda2DMethod> methods = cuda_2d_methods();
  ASSERT_EQ(methods.size(), detail::cuda_2d_solvers().size());
  for (Cuda2DMethod m : methods) {
    EXPECT_NE(std::string(to_string(m)), "unknown");
    EXPECT_NE(m, Cuda2DMethod::Auto);
  }
  EXPECT_STREQ(to_string(Cuda2DMethod::Auto), "auto");
  EXPECT_STREQ(to_string(static_cast<Cuda2DMethod>(99)), "unknown");
}

// Shapes where several methods apply (and where few do).
const std::pair<int, int> kMeasuredShapes[] = {{64, 64}, {256, 512}, {100, 256}, {20, 12}, {1, 64}, {2048, 100}};

TEST(WisdomCuda, MeasuredPlanMatchesEveryMethod) {
  EFIELD_REQUIRE_GPU();
  forget_wisdom();
  for (const auto& [rows, cols] : kMeasuredShapes) {
    for (Transform2D kind : kAllKinds) {
      const std::uint64_t seed = next_seed();
      SCOPED_TRACE(describe(kind, rows, cols, Backend::Cuda, seed));
      PlanOptions measure;
      measure.backend = Backend::Cuda;
      measure.effort = PlanEffort::Measure;
      Plan2D<float> measured(kind, rows, cols, measure);
      const Cuda2DMethod chosen = measured.cuda_2d_method();
      EXPECT_NE(chosen, Cuda2DMethod::Auto);
      const auto x = random_vector<float>(static_cast<size_t>(rows) * cols, seed);
      const auto y = run_execute(measured, x);
      EXPECT_LE(relative_l2(y, dense_2d(kind, to_double(x), rows, cols)), tolerance<float>());
      for (Cuda2DMethod m : cuda_2d_methods()) {
        PlanOptions explicit_method = cuda_options(m);
        std::unique_ptr<Plan2D<float>> other;
        try {
          other = std::make_unique<Plan2D<float>>(kind, rows, cols, explicit_method);
        } catch (const Error&) {
          continue;  // does not take the shape
        }
        SCOPED_TRACE(to_string(m));
        if (m == chosen) EXPECT_EQ(run_execute(*other, x), y) << "the same method gives the same bits";
        else EXPECT_LE(relative_l2(run_execute(*other, x), y), 2 * tolerance<float>());
      }
      // The choice is in the wisdom: a plan with the default effort takes it without measuring.
      PlanOptions estimate;
      estimate.backend = Backend::Cuda;
      EXPECT_EQ(Plan2D<float>(kind, rows, cols, estimate).cuda_2d_method(), chosen);
    }
  }
  forget_wisdom();
}

TEST(WisdomCuda, SavedWisdomLoadsBack) {
  EFIELD_REQUIRE_GPU();
  forget_wisdom();
  PlanOptions measure;
  measure.backend = Backend::Cuda;
  measure.effort = PlanEffort::Measure;
  const Cuda2DMethod a = Plan2D<float>(Transform2D::Idct2, 256, 512, measure).cuda_2d_method();
  const Cuda2DMethod b = Plan2D<double>(Transform2D::IdctIdxst, 100, 256, measure).cuda_2d_method();
  const std::string path = ::testing::TempDir() + "efield_wisdom_test.txt";
  save_wisdom(path);
  forget_wisdom();
  EXPECT_TRUE(load_wisdom(path));
  const Wisdom& w = Wisdom::process();
  const std::string device = detail::current_device_identity();
  ASSERT_TRUE(w.find(WisdomKey{device, Scalar::Float, Transform2D::Idct2, 256, 512}).has_value());
  EXPECT_EQ(w.find(WisdomKey{device, Scalar::Float, Transform2D::Idct2, 256, 512})->method, a);
  ASSERT_TRUE(w.find(WisdomKey{device, Scalar::Double, Transform2D::IdctIdxst, 100, 256}).has_value());
  EXPECT_EQ(w.find(WisdomKey{device, Scalar::Double, Transform2D::IdctIdxst, 100, 256})->method, b);
  PlanOptions estimate;
  estimate.backend = Backend::Cuda;
  EXPECT_EQ(Plan2D<float>(Transform2D::Idct2, 256, 512, estimate).cuda_2d_method(), a);

  // The same file as written on another GPU: ignored with a warning, nothing added.
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string foreign = text.str();
  const std::size_t at = foreign.find(device);
  ASSERT_NE(at, std::string::npos);
  foreign.replace(at, device.size(), "10 1 A GPU from elsewhere");
  std::ofstream(path, std::ios::trunc) << foreign;
  forget_wisdom();
  {
    LogCapture log;
    EXPECT_FALSE(load_wisdom(path));
    EXPECT_NE(log.text().find("another GPU"), std::string::npos) << log.text();
  }
  EXPECT_TRUE(Wisdom::process().empty());
  std::ofstream(path, std::ios::trunc) << "efield-wisdom 1\ndevice " << device << "\nplan2d float dct2 8 8 what 1\n";
  {
    LogCapture log;
    EXPECT_FALSE(load_wisdom(path));
    EXPECT_NE(log.text().find("does not parse"), std::string::npos) << log.text();
  }
  EXPECT_TRUE(Wisdom::process().empty());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace efield::test
