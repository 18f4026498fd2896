// The synthetic design generator (determinism, the properties its header promises) and the
// Bookshelf writer (writer -> loader gives back the same design, bit for bit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "bookshelf/design_compare.hpp"
#include "efield/bookshelf.hpp"
#include "efield/error.hpp"
#include "efield/synthetic_design.hpp"
#include "support/random.hpp"

namespace {

using efield::Design;
using efield::NodeKind;
using efield::SyntheticDesignSpec;

SyntheticDesignSpec small_spec(std::uint64_t seed) {
  SyntheticDesignSpec s;
  s.name = "small";
  s.num_movable = 3000;
  s.num_movable_macros = 12;
  s.num_fixed_macros = 15;
  s.num_io_pads = 40;
  s.utilization = 0.65;
  s.macro_area_fraction = 0.2;
  s.aspect_ratio = 1.5;
  s.seed = seed;
  return s;
}

std::filesystem::path fresh_dir(const std::string& tag) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("efield_" + tag + "_" + std::to_string(efield::test::next_seed()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(SyntheticDesign, SameSeedSameDesignOtherSeedOtherDesign) {
  const Design a = efield::generate_synthetic_design(small_spec(7));
  const Design b = efield::generate_synthetic_design(small_spec(7));
  EXPECT_TRUE(efield::test::designs_equal(a, b));
  const Design c = efield::generate_synthetic_design(small_spec(8));
  EXPECT_FALSE(efield::test::designs_equal(a, c));
}

TEST(SyntheticDesign, CountsRegionUtilizationAndMacros) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const SyntheticDesignSpec spec = small_spec(seed);
  const Design d = efield::generate_synthetic_design(spec);
  d.check_consistent();
  EXPECT_EQ(d.count(NodeKind::Movable), spec.num_movable);
  EXPECT_EQ(d.count(NodeKind::Fixed), spec.num_fixed_macros);
  EXPECT_EQ(d.count(NodeKind::FixedNI), spec.num_io_pads);
  for (int i = 0; i < spec.num_movable; ++i) ASSERT_EQ(d.kind[i], NodeKind::Movable) << "movable nodes come first";

  const efield::Region r = d.region();
  EXPECT_EQ(r.xl, 0);
  EXPECT_EQ(r.yl, 0);
  EXPECT_NEAR(r.width() / r.height(), spec.aspect_ratio, 0.05 * spec.aspect_ratio);
  for (const auto& row : d.rows) EXPECT_EQ(row.height, spec.row_height);
  for (int i = 0; i < d.num_nodes(); ++i) {
    ASSERT_GE(d.x[i], r.xl) << i;
    ASSERT_GE(d.y[i], r.yl) << i;
    ASSERT_LE(d.x[i] + d.width[i], r.xh) << i;
    ASSERT_LE(d.y[i] + d.height[i], r.yh) << i;
    if (d.kind[i] == NodeKind::Movable) {
      ASSERT_EQ(std::fmod(d.y[i], spec.row_height), 0.0) << "movable cells sit on rows";
      ASSERT_EQ(std::fmod(d.height[i], spec.row_height), 0.0);
    }
  }
  const double macro_area = d.fixed_area_in_region();
  EXPECT_NEAR(macro_area / (r.width() * r.height()), spec.macro_area_fraction, 0.02);
  EXPECT_NEAR(d.movable_area() / (r.width() * r.height() - macro_area), spec.utilization, 0.02);

  // Fixed macros never overlap one another.
  std::vector<int> macros;
  for (int i = 0; i < d.num_nodes(); ++i)
    if (d.kind[i] == NodeKind::Fixed) macros.push_back(i);
  for (std::size_t p = 0; p < macros.size(); ++p)
    for (std::size_t q = p + 1; q < macros.size(); ++q) {
      const int a = macros[p], b = macros[q];
      const double ox = std::min(d.x[a] + d.width[a], d.x[b] + d.width[b]) - std::max(d.x[a], d.x[b]);
      const double oy = std::min(d.y[a] + d.height[a], d.y[b] + d.height[b]) - std::max(d.y[a], d.y[b]);
      EXPECT_FALSE(ox > 0 && oy > 0) << "macros " << a << " and " << b << " overlap";
    }
}

TEST(SyntheticDesign, NetsAreValidAndLocal) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const SyntheticDesignSpec spec = small_spec(seed);
  const Design d = efield::generate_synthetic_design(spec);
  ASSERT_TRUE(d.has_nets);
  EXPECT_EQ(d.num_nets(), spec.num_movable);
  const efield::Region r = d.region();
  double hpwl = 0;
  int movable_only = 0;
  for (int k = 0; k < d.num_nets(); ++k) {
    const int begin = d.net_pin_start[k], end = d.net_pin_start[k + 1];
    ASSERT_GE(end - begin, 1);
    std::set<int> nodes;
    double xl = 1e300, xh = -1e300, yl = 1e300, yh = -1e300;
    bool all_movable = true;
    for (int p = begin; p < end; ++p) {
      const efield::Pin& pin = d.pins[p];
      ASSERT_TRUE(nodes.insert(pin.node).second) << "net " << k << " names node " << pin.node << " twice";
      ASSERT_LE(std::abs(pin.offset_x), d.width[pin.node] / 2 + 0.5);
      ASSERT_LE(std::abs(pin.offset_y), d.height[pin.node] / 2 + 0.5);
      const double px = d.x[pin.node] + d.width[pin.node] / 2 + pin.offset_x;
      const double py = d.y[pin.node] + d.height[pin.node] / 2 + pin.offset_y;
      xl = std::min(xl, px), xh = std::max(xh, px), yl = std::min(yl, py), yh = std::max(yh, py);
      all_movable = all_movable && d.kind[pin.node] == NodeKind::Movable;
    }
    if (all_movable) hpwl += (xh - xl) + (yh - yl), ++movable_only;
  }
  // Local nets: far shorter than random ones (whose mean half-perimeter is about
  // (W + H) / 3 for two pins and more for bigger nets).
  const double mean = hpwl / movable_only;
  EXPECT_LT(mean, 0.15 * (r.width() + r.height())) << "mean net half-perimeter " << mean;
}

TEST(SyntheticDesign, WriterLoaderRoundTripIsExact) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  SyntheticDesignSpec spec = small_spec(seed);
  spec.site_width = 0.7;   // coordinates that are not integers
  spec.row_height = 8.4;
  Design d = efield::generate_synthetic_design(spec);
  d.net_weight[3] = 2.5;   // the .wts file carries weights
  d.node_weight[5] = 0.0;
  d.orientation[7] = efield::Orientation::FS;
  d.kind[9] = NodeKind::Fixed;  // /FIXED on a node .nodes calls movable... written as terminal
  const auto dir = fresh_dir("roundtrip");
  efield::write_bookshelf(d, dir.string(), "small");
  const Design back = efield::load_bookshelf((dir / "small.aux").string());
  EXPECT_TRUE(efield::test::designs_equal(d, back));
  std::filesystem::remove_all(dir);
}

TEST(SyntheticDesign, TinyDesignRoundTrip) {
  const Design tiny = efield::load_bookshelf(EFIELD_TEST_DATA_DIR "/bookshelf/valid/tiny.aux");
  const auto dir = fresh_dir("tiny");
  efield::write_bookshelf(tiny, dir.string(), "tiny");
  EXPECT_TRUE(efield::test::designs_equal(tiny, efield::load_bookshelf((dir / "tiny.aux").string())));
  std::filesystem::remove_all(dir);
}

TEST(SyntheticDesign, WithoutNetsWritesNoNetsFile) {
  SyntheticDesignSpec spec = small_spec(3);
  spec.with_nets = false;
  const Design d = efield::generate_synthetic_design(spec);
  EXPECT_FALSE(d.has_nets);
  const auto dir = fresh_dir("nonets");
  efield::write_bookshelf(d, dir.string(), "nonets");
  EXPECT_FALSE(std::filesystem::exists(dir / "nonets.nets"));
  efield::BookshelfLoadOptions options;
  options.allow_missing_nets = true;
  EXPECT_TRUE(efield::test::designs_equal(d, efield::load_bookshelf((dir / "nonets.aux").string(), options)));
  std::filesystem::remove_all(dir);
}

TEST(SyntheticDesign, SizesSampledFromADesign) {
  const Design tiny = efield::load_bookshelf(EFIELD_TEST_DATA_DIR "/bookshelf/valid/tiny.aux");
  SyntheticDesignSpec spec = small_spec(5);
  spec.num_movable_macros = 0;
  spec.row_height = 10;
  efield::sample_sizes_from(tiny, spec);
  ASSERT_EQ(spec.sample_widths.size(), 4u);  // the tiny design's movable cells
  const Design d = efield::generate_synthetic_design(spec);
  std::set<std::pair<double, double>> allowed, seen;
  for (std::size_t i = 0; i < spec.sample_widths.size(); ++i) allowed.emplace(spec.sample_widths[i], spec.sample_heights[i]);
  for (int i = 0; i < spec.num_movable; ++i) seen.emplace(d.width[i], d.height[i]);
  EXPECT_EQ(seen, allowed);
}

TEST(SyntheticDesign, Ispd2005StandIns) {
  const auto& designs = efield::ispd2005_designs();
  ASSERT_EQ(designs.size(), 8u);
  EXPECT_STREQ(designs[0].name, "adaptec1");
  EXPECT_EQ(designs[0].num_movable, 210904);
  EXPECT_EQ(designs[5].num_terminals, 23084);
  EXPECT_EQ(designs[7].num_movable, 2169183);
  EXPECT_EQ(designs[7].bins, 2048);
  EXPECT_EQ(designs[1].bins, 1024);
  EXPECT_DOUBLE_EQ(designs[6].utilization, 0.857);
  const SyntheticDesignSpec s = efield::ispd2005_standin_spec("bigblue2");
  EXPECT_EQ(s.num_movable, 534782);
  EXPECT_EQ(s.num_fixed_macros + s.num_io_pads, 23084);
  EXPECT_NE(s.name.find("synthetic"), std::string::npos);
  EXPECT_THROW(efield::ispd2005_standin_spec("adaptec9"), efield::Error);

  // The adaptec1 stand-in at full size: counts and utilization.
  const Design d = efield::generate_synthetic_design(efield::ispd2005_standin_spec("adaptec1"));
  EXPECT_EQ(d.count(NodeKind::Movable), 210904);
  EXPECT_EQ(d.num_terminals(), 543);
  const efield::Region r = d.region();
  EXPECT_NEAR(d.movable_area() / (r.width() * r.height() - d.fixed_area_in_region()), 0.757, 0.01);
}

TEST(SyntheticDesign, InvalidSpecsAreRejected) {
  const auto rejects = [](auto change, const char* field) {
    SyntheticDesignSpec s = small_spec(1);
    change(s);
    try {
      efield::generate_synthetic_design(s);
      ADD_FAILURE() << "accepted a bad " << field;
    } catch (const efield::Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  rejects([](SyntheticDesignSpec& s) { s.num_movable = 0; }, "num_movable");
  rejects([](SyntheticDesignSpec& s) { s.utilization = 1.5; }, "utilization");
  rejects([](SyntheticDesignSpec& s) { s.utilization = std::nan(""); }, "utilization");
  rejects([](SyntheticDesignSpec& s) { s.macro_area_fraction = 0.9; }, "macro_area_fraction");
  rejects([](SyntheticDesignSpec& s) { s.row_height = -1; }, "row_height");
  rejects([](SyntheticDesignSpec& s) { s.sample_widths = {1, 2}; }, "sample_widths");
  rejects([](SyntheticDesignSpec& s) { s.num_movable_macros = 5000; }, "num_movable_macros");
}

}  // namespace

namespace {

// data/synthetic2000 is `bench_ispd --synthetic 2000 --write ...`: the shipped files must still
// be what the generator makes (the generator promises the same design for the same seed).
TEST(SyntheticDesign, ShippedDesignMatchesTheGenerator) {
  efield::SyntheticDesignSpec spec = efield::default_synthetic_spec();
  spec.num_movable = 2000;
  spec.name = "synthetic2000";
  spec.seed = 1;
  const Design generated = efield::generate_synthetic_design(spec);
  const Design shipped = efield::load_bookshelf(EFIELD_SOURCE_DIR "/data/synthetic2000/synthetic2000.aux");
  EXPECT_TRUE(efield::test::designs_equal(generated, shipped));
}

}  // namespace
