// make_region_fillers (docs/math.md "Fillers per fence region"): the per-region rule against a
// hand computation, the no-fence case against make_fillers, and every refusal.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/placement_helpers.hpp"
#include "support/random.hpp"

namespace {

using efield::CellSizes;
using efield::FenceRegion;
using efield::FixedCells;
using efield::Rect;
using efield::RegionFillerOptions;
using efield::make_region_fillers;

void expect_error(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no efield::Error (expected one containing '" << fragment << "')";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// Region [0, 100) x [0, 50). Fence 0: [0, 20) x [0, 20) (area 400). Fence 1: an L of
// [60, 100) x [0, 10) and [60, 70) x [10, 30) (area 600). Fixed: [10, 30) x [10, 30) and, inside
// it, [15, 25) x [15, 25): their union is 400, so S = 4600 and the default field's A = 3600.
struct Small {
  std::vector<FenceRegion> fences{FenceRegion{{Rect{0, 0, 20, 20}}},
                                  FenceRegion{{Rect{60, 0, 100, 10}, Rect{60, 10, 70, 30}}}};
  FixedCells fixed{{20, 10}, {20, 10}, {10, 15}, {10, 15}};
  CellSizes movable;
  std::vector<int> region;
  Small() {
    const auto add = [&](double w, double h, int k) {
      movable.widths.push_back(w), movable.heights.push_back(h), region.push_back(k);
    };
    for (double w : {2, 4, 6, 8}) add(w, 1, 0);             // area 20
    for (double w : {10, 10, 10}) add(w, 10, 1);            // area 300
    add(20, 5, 1);                                          // area 100
    for (int i = 0; i < 10; ++i) add(10, 1, i % 2 ? 2 : INT_MAX);  // default, both spellings
    add(20, 10, 2);                                         // a macro in the default field
  }
  std::vector<efield::RegionFillerSpec> run(RegionFillerOptions o = {}) const {
    if (o.target_density == 1.0) o.target_density = 0.3;
    o.row_height = 1;
    return make_region_fillers(movable, region, fences, fixed, 0, 0, 100, 50, o);
  }
};

TEST(RegionFillers, HandComputation) {
  const Small s;
  const auto f = s.run();
  ASSERT_EQ(f.size(), 3u);
  // Fence 0: u = 20 / 400 < td 0.3, so td stays 0.3 and the floor lifts it to 0.35. Widths
  // 2 4 6 8: p5 = 2.3, p95 = 7.7, so the mean of 4 and 6 (the index slice would give 4).
  EXPECT_DOUBLE_EQ(f[0].placeable_area, 400);
  EXPECT_DOUBLE_EQ(f[0].movable_area, 20);
  EXPECT_DOUBLE_EQ(f[0].utilization, 0.05);
  EXPECT_DOUBLE_EQ(f[0].target_density, 0.35);
  EXPECT_DOUBLE_EQ(f[0].fillers.width, 5);
  EXPECT_DOUBLE_EQ(f[0].fillers.height, 1);
  EXPECT_DOUBLE_EQ(f[0].fillers.total_area, 400 * 0.35 - 20);
  EXPECT_EQ(f[0].fillers.count, 24);
  EXPECT_EQ(f[0].num_movable, 4);
  // Fence 1 (the L): u = 400 / 600 > td, so td = u + 0.01; widths 10 10 10 20: p95 = 18.5.
  EXPECT_DOUBLE_EQ(f[1].placeable_area, 600);
  EXPECT_DOUBLE_EQ(f[1].target_density, 400.0 / 600 + 0.01);
  EXPECT_DOUBLE_EQ(f[1].fillers.width, 10);
  EXPECT_NEAR(f[1].fillers.total_area, 6, 1e-12);
  EXPECT_EQ(f[1].fillers.count, 1);  // 0.6 rounds to 1
  // Default field: A = 5000 - 400 - 1000; u = 300 / 3600; td 0.35; widths ten 10s and a 20.
  EXPECT_DOUBLE_EQ(f[2].placeable_area, 3600);
  EXPECT_DOUBLE_EQ(f[2].movable_area, 300);
  EXPECT_DOUBLE_EQ(f[2].target_density, 0.35);
  EXPECT_DOUBLE_EQ(f[2].fillers.width, 10);
  EXPECT_DOUBLE_EQ(f[2].fillers.total_area, 3600 * 0.35 - 300);
  EXPECT_EQ(f[2].fillers.count, 96);
  EXPECT_EQ(f[2].num_movable, 11);
}

TEST(RegionFillers, GivenTargetDensityAndTiesToEven) {
  const Small s;
  RegionFillerOptions o;
  // Fence 0 at td 5/32: total 62.5 - 20 = 42.5, 8.5 fillers of 5 x 1 round to 8 (ties to even).
  o.field_target_density = {0.15625, 0, 1.0};
  const auto f = s.run(o);
  EXPECT_DOUBLE_EQ(f[0].target_density, 0.15625);
  EXPECT_DOUBLE_EQ(f[0].fillers.total_area, 42.5);
  EXPECT_EQ(f[0].fillers.count, 8);
  EXPECT_DOUBLE_EQ(f[1].target_density, 400.0 / 600 + 0.01);  // 0 keeps the rule
  EXPECT_DOUBLE_EQ(f[2].target_density, 1.0);
  EXPECT_DOUBLE_EQ(f[2].fillers.total_area, 3600 - 300);
  // A design td above a field's utilization is kept as it is.
  RegionFillerOptions high;
  high.target_density = 0.9;
  EXPECT_DOUBLE_EQ(s.run(high)[1].target_density, 0.9);
}

TEST(RegionFillers, NoFencesIsMakeFillers) {
  const std::uint64_t seed = efield::test::next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using efield::test::random_vector;
  const CellSizes movable{random_vector<double>(997, seed, 1, 40), random_vector<double>(997, seed + 1, 1, 8)};
  // Some fixed cells overlap each other and the region's edge.
  const FixedCells fixed{random_vector<double>(30, seed + 2, 5, 80), random_vector<double>(30, seed + 3, 5, 80),
                         random_vector<double>(30, seed + 4, -20, 480), random_vector<double>(30, seed + 5, -20, 380)};
  for (double td : {0.2, 0.7, 1.0}) {
    for (double row : {0.0, 4.0}) {
      const auto want = efield::make_fillers(movable, fixed, 0, 0, 500, 400, td, row);
      RegionFillerOptions o;
      o.target_density = td;
      o.row_height = row;
      for (const std::vector<int>& ids : {std::vector<int>{}, std::vector<int>(997, 0), std::vector<int>(997, INT_MAX)}) {
        const auto got = make_region_fillers(movable, ids, {}, fixed, 0, 0, 500, 400, o);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].fillers.width, want.width);
        EXPECT_EQ(got[0].fillers.height, want.height);
        EXPECT_EQ(got[0].fillers.count, want.count);
        EXPECT_EQ(got[0].fillers.total_area, want.total_area);
        EXPECT_EQ(got[0].target_density, td);
        EXPECT_EQ(got[0].num_movable, 997);
      }
    }
  }
}

TEST(RegionFillers, UnionArea) {
  EXPECT_DOUBLE_EQ(efield::union_area({}), 0);
  EXPECT_DOUBLE_EQ(efield::union_area({Rect{0, 0, 2, 2}, Rect{1, 1, 3, 3}}), 7);
  EXPECT_DOUBLE_EQ(efield::union_area({Rect{0, 0, 4, 4}, Rect{1, 1, 2, 2}, Rect{4, 0, 5, 1}}), 17);
  EXPECT_DOUBLE_EQ(efield::union_area({Rect{0, 0, 1, 3}, Rect{0, 1, 3, 2}}), 5);  // a cross
}

TEST(RegionFillers, Refusals) {
  const Small base;
  const auto with = [&](auto change, const std::string& fragment) {
    Small s = base;
    change(s);
    expect_error([&] { s.run(); }, fragment);
  };
  with([](Small& s) { s.region[0] = -1; }, "region_id[0] = -1 is out of range");
  with([](Small& s) { s.region[0] = 3; }, "region_id[0] = 3 is out of range");
  with([](Small& s) { s.region.pop_back(); }, "region_id has 18 entries for 19");
  with([](Small& s) { s.fences[1].rects.clear(); }, "fence 1 has no rectangles");
  with([](Small& s) { s.fences[0].rects[0].xh = 0; }, "is empty or not finite");
  with([](Small& s) { s.fences[0].rects[0].yh = NAN; }, "is empty or not finite");
  with([](Small& s) { s.fences[1].rects[0].xh = 101; }, "is not inside the placement region");
  with([](Small& s) { s.fences[0].rects[0].xl = -1; }, "is not inside the placement region");
  with([](Small& s) { s.fences[0].rects[0].xh = 61, s.fences[0].rects[0].yh = 2; }, "overlaps fence 1");
  with([](Small& s) { s.fences[1].rects[1].yl = 9; }, "overlaps fence 1");  // within one fence
  with([](Small& s) { s.movable.widths[0] = 21; }, "does not fit fence 0");
  with([](Small& s) { s.movable.heights[5] = 31; }, "does not fit fence 1");
  with([](Small& s) { s.fences[0].rects = {Rect{0, 0, 20, 1}, Rect{0, 1, 1, 20}}, s.movable.widths[0] = 10, s.movable.heights[0] = 5; },
       "does not fit fence 0");  // inside the bounding box, but larger than the fence's area
  with([](Small& s) { for (int& r : s.region) if (r == 0) r = 2; }, "fence 0 has no movable cells");
  with([](Small& s) { for (int& r : s.region) if (r != 0 && r != 1) r = 0; }, "the default region has no movable cells");
  with([](Small& s) { s.fences[0].rects = {Rect{0, 0, 60, 50}}, s.fences[1].rects = {Rect{60, 0, 100, 50}}; },
       "the default region has no placeable area");
  Small s = base;
  RegionFillerOptions o;
  o.field_target_density = {0.5, 0.5};
  expect_error([&] { s.run(o); }, "field_target_density has 2 entries for 3 fields");
  o.field_target_density = {0.5, 1.5, 0};
  expect_error([&] { s.run(o); }, "field_target_density[1] = 1.5");
  o = {};
  o.target_density = 0;
  expect_error([&] { make_region_fillers(s.movable, s.region, s.fences, s.fixed, 0, 0, 100, 50, o); }, "target_density");
  expect_error([&] { make_region_fillers(s.movable, s.region, s.fences, s.fixed, 0, 0, 0, 50, {}); }, "region");
  expect_error([&] { make_region_fillers(CellSizes{}, {}, s.fences, s.fixed, 0, 0, 100, 50, {}); }, "no movable");
}

}  // namespace
