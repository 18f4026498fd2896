// MultiFieldSystem's and the field builders' inputs: fence blockages (disjoint, inside the region,
// covering exactly region - fence - fixed cells), and every bad input throwing efield::Error
// naming it while a system built before stays usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "electrostatics/multi_field_cases.hpp"
#include "support/expect_error.hpp"

namespace efield::test {
namespace {

bool overlap(const Rect& a, const Rect& b) {
  return std::min(a.xh, b.xh) > std::max(a.xl, b.xl) && std::min(a.yh, b.yh) > std::max(a.yl, b.yl);
}

TEST(MultiFieldBlockages, CoverRegionMinusFenceMinusFixed) {
  const MultiCase c = fence_case(4, 1500, 32, Precision::Float, Backend::Cpu);
  const ElectrostaticOptions& o = c.options.system;
  std::vector<Rect> fixed;
  for (size_t i = 0; i < c.fixed.widths.size(); ++i)
    fixed.push_back(Rect{std::max(c.fixed.x[i], o.xl), std::max(c.fixed.y[i], o.yl),
                         std::min(c.fixed.x[i] + c.fixed.widths[i], o.xh), std::min(c.fixed.y[i] + c.fixed.heights[i], o.yh)});
  const double region = (o.xh - o.xl) * (o.yh - o.yl);
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE("fence " + std::to_string(k));
    const std::vector<Rect> b = fence_blockages(k, c.fences, c.fixed, o.xl, o.yl, o.xh, o.yh);
    ASSERT_FALSE(b.empty());
    double area = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      EXPECT_TRUE(b[i].xh > b[i].xl && b[i].yh > b[i].yl);
      EXPECT_TRUE(b[i].xl >= o.xl && b[i].yl >= o.yl && b[i].xh <= o.xh && b[i].yh <= o.yh);
      for (size_t j = i + 1; j < b.size(); ++j) EXPECT_FALSE(overlap(b[i], b[j])) << i << " " << j;
      for (const Rect& r : c.fences[k].rects) EXPECT_FALSE(overlap(b[i], r));
      for (const Rect& f : fixed) EXPECT_FALSE(overlap(b[i], f));
      area += b[i].area();
    }
    EXPECT_NEAR(area, union_area(b), 1e-9 * region);
    // Blockages, fence and fixed cells together tile the region.
    std::vector<Rect> all = b;
    all.insert(all.end(), c.fences[k].rects.begin(), c.fences[k].rects.end());
    all.insert(all.end(), fixed.begin(), fixed.end());
    EXPECT_NEAR(union_area(all), region, 1e-9 * region);
    std::vector<Rect> holes = c.fences[k].rects;
    holes.insert(holes.end(), fixed.begin(), fixed.end());
    EXPECT_NEAR(area, region - union_area(holes), 1e-9 * region);
  }
  // The default field: the fences as they are.
  const std::vector<Rect> d = fence_blockages(4, c.fences, c.fixed, o.xl, o.yl, o.xh, o.yh);
  size_t count = 0;
  for (const FenceRegion& f : c.fences) count += f.rects.size();
  EXPECT_EQ(d.size(), count);
  // A field's fixed cells are the design's, then its blockages.
  const std::vector<Rect> b0 = fence_blockages(0, c.fences, c.fixed, o.xl, o.yl, o.xh, o.yh);
  ASSERT_EQ(c.fields[0].fixed.widths.size(), c.fixed.widths.size() + b0.size());
  EXPECT_EQ(c.fields[0].fixed.x.back(), b0.back().xl);
}

TEST(MultiFieldBlockages, MergesSlabs) {
  // One fence in the middle of a 10 x 10 region, no fixed cells: four rectangles around it.
  const std::vector<FenceRegion> fences = {FenceRegion{{Rect{4, 4, 6, 6}}}};
  const std::vector<Rect> b = fence_blockages(0, fences, {}, 0, 0, 10, 10);
  EXPECT_EQ(b.size(), 4u);
  EXPECT_DOUBLE_EQ(union_area(b), 96.0);
}

TEST(MultiFieldInputs, BadSystemInputsThrowAndLeaveABuiltSystemUsable) {
  const MultiCase c = fence_case(2, 600, 16, Precision::Double, Backend::Cpu, 4);
  MultiFieldSystem built(c.options, c.fields);
  const MultiRun before = run_multi<double>(built, c, false);
  const auto bad = [&](auto change, const char* needle) {
    MultiFieldOptions o = c.options;
    std::vector<FieldSpec> f = c.fields;
    change(o, f);
    expect_error([&] { MultiFieldSystem s(o, f); }, needle);
  };
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f.clear(); }, "no fields");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[1].movable_index[3] = -1; }, "movable_index[3]");
  bad([](MultiFieldOptions& o, std::vector<FieldSpec>& f) { f[0].filler_index[0] = o.num_entries; }, "outside [0");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[2].movable_index[1] = f[0].movable_index[0]; },
      "already owns");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[0].movable_index[1] = f[0].movable_index[0]; },
      "already owns");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[0].movable_index.pop_back(); }, "movable_index has");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[1].filler_index.push_back(0); }, "filler_index has");
  bad([](MultiFieldOptions& o, std::vector<FieldSpec>&) { o.system.target_density = 0.9; }, "target_density");
  bad([](MultiFieldOptions& o, std::vector<FieldSpec>&) { o.system.filler_offset = 3; }, "filler_offset");
  bad([](MultiFieldOptions& o, std::vector<FieldSpec>&) { o.system.zero_gap_gradient = true; }, "zero_gap_gradient");
  bad([](MultiFieldOptions& o, std::vector<FieldSpec>&) { o.num_entries = -2; }, "num_entries");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[1].target_density = 1.5; }, "field 1");
  bad([](MultiFieldOptions&, std::vector<FieldSpec>& f) { f[2].movable.widths[0] = -1; }, "field 2");
  // Bad positions and pointers at evaluate.
  std::vector<double> x = c.x, y = c.y, gx(x.size(), 7.0), gy(x.size(), 7.0);
  x[c.fields[1].movable_index[2]] = NAN;
  expect_error([&] { built.evaluate(x.data(), y.data(), gx.data(), gy.data()); }, "non-finite");
  EXPECT_EQ(gx, std::vector<double>(x.size(), 7.0));  // nothing written
  std::vector<float> fx(x.size());
  expect_error([&] { built.evaluate(fx.data(), fx.data(), fx.data(), fx.data()); }, "precision");
  expect_error([&] { built.field(3); }, "outside");
  // The system built before is unchanged.
  const MultiRun after = run_multi<double>(built, c, false);
  EXPECT_EQ(after.gx, before.gx);
  EXPECT_EQ(after.results[1].energy, before.results[1].energy);
}

TEST(MultiFieldInputs, BadFenceAndBatchInputsThrow) {
  const MultiCase c = fence_case(2, 600, 16, Precision::Double, Backend::Cpu, 4);
  const ElectrostaticOptions& o = c.options.system;
  const auto fence_fields = [&](const CellSizes& m, const std::vector<int>& ids, const std::vector<FenceRegion>& f,
                                const std::vector<RegionFillerSpec>& fillers) {
    return make_fence_fields(m, ids, f, c.fixed, o.xl, o.yl, o.xh, o.yh, fillers);
  };
  std::vector<int> ids = c.region_id;
  ids[5] = 3;
  expect_error([&] { fence_fields(c.movable, ids, c.fences, c.fillers); }, "region_id[5]");
  ids[5] = -1;
  expect_error([&] { fence_fields(c.movable, ids, c.fences, c.fillers); }, "region_id[5]");
  ids = c.region_id;
  ids[5] = INT_MAX;  // DREAMPlace's default region is fine
  EXPECT_NO_THROW(fence_fields(c.movable, ids, c.fences, c.fillers));
  std::vector<FenceRegion> f = c.fences;
  f[1].rects.clear();
  expect_error([&] { fence_fields(c.movable, c.region_id, f, c.fillers); }, "no rectangles");
  f = c.fences;
  f[1].rects[0].xh = f[1].rects[0].xl;
  expect_error([&] { fence_fields(c.movable, c.region_id, f, c.fillers); }, "empty");
  f = c.fences;
  f[1].rects.push_back(f[0].rects[0]);
  expect_error([&] { fence_fields(c.movable, c.region_id, f, c.fillers); }, "overlaps");
  f = c.fences;
  f[0].rects[0].xh = o.xh + 10;
  expect_error([&] { fence_fields(c.movable, c.region_id, f, c.fillers); }, "not inside");
  CellSizes big = c.movable;
  const size_t fenced = static_cast<size_t>(std::find(c.region_id.begin(), c.region_id.end(), 0) - c.region_id.begin());
  big.widths[fenced] = o.xh - o.xl;
  expect_error([&] { fence_fields(big, c.region_id, c.fences, c.fillers); }, "does not fit");
  std::vector<RegionFillerSpec> fillers = c.fillers;
  fillers.pop_back();
  expect_error([&] { fence_fields(c.movable, c.region_id, c.fences, fillers); }, "filler specs");
  FenceFieldLayout layout;
  layout.filler_offset = 3;
  expect_error([&] { make_fence_fields(c.movable, c.region_id, c.fences, c.fixed, o.xl, o.yl, o.xh, o.yh, c.fillers, layout); },
               "filler_offset");
  expect_error([&] { fence_blockages(3, c.fences, c.fixed, o.xl, o.yl, o.xh, o.yh); }, "outside");
  expect_error([&] { make_batch_fields(0, c.movable, {}, c.fixed, 1.0); }, "count");
  expect_error([&] { make_batch_fields(2, c.movable, {}, c.fixed, 1.0, 5); }, "stride");
}

}  // namespace
}  // namespace efield::test
