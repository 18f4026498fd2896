// Synthetic fence-region designs: the fences and the fenced cells keep the promises of
// SyntheticDesignSpec (include/efield/synthetic_design.hpp), for a seed, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/bookshelf.hpp"
#include "efield/error.hpp"
#include "efield/placement_helpers.hpp"
#include "efield/synthetic_design.hpp"

namespace {

using efield::Design;
using efield::NodeKind;
using efield::Rect;
using efield::SyntheticDesignSpec;

SyntheticDesignSpec fence_spec(std::uint64_t seed, int fences) {
  SyntheticDesignSpec s;
  s.name = "fenced";
  s.num_movable = 4000;
  s.num_movable_macros = 10;
  s.num_fixed_macros = 20;
  s.num_io_pads = 30;
  s.utilization = 0.7;
  s.num_fences = fences;
  s.seed = seed;
  return s;
}

bool overlap(const Rect& a, const Rect& b) {
  return std::min(a.xh, b.xh) > std::max(a.xl, b.xl) && std::min(a.yh, b.yh) > std::max(a.yl, b.yl);
}

TEST(SyntheticFences, Invariants) {
  for (int K : {1, 2, 4, 7}) {
    SCOPED_TRACE("K = " + std::to_string(K));
    const SyntheticDesignSpec spec = fence_spec(3, K);
    const Design d = efield::generate_synthetic_design(spec);
    const efield::Region region = d.region();
    ASSERT_EQ(d.fences.size(), static_cast<size_t>(K));
    ASSERT_EQ(d.region_id.size(), d.node_names.size());
    std::vector<Rect> all;
    std::vector<double> area(K, 0.0);
    for (int k = 0; k < K; ++k) {
      const auto& rects = d.fences[k].rects;
      ASSERT_EQ(rects.size(), k % 2 ? 2u : 1u);  // every second fence is an L
      for (const Rect& r : rects) {
        EXPECT_GT(r.xh, r.xl);
        EXPECT_GT(r.yh, r.yl);
        EXPECT_TRUE(r.xl >= region.xl && r.yl >= region.yl && r.xh <= region.xh && r.yh <= region.yh);
        EXPECT_EQ(std::fmod(r.yl, spec.row_height), 0.0);  // on the rows
        area[k] += r.area();
        all.push_back(r);
      }
      if (rects.size() == 2) {  // an L: the stem stands on the foot's top edge, at its left end
        EXPECT_EQ(rects[1].yl, rects[0].yh);
        EXPECT_EQ(rects[1].xl, rects[0].xl);
        EXPECT_LT(rects[1].xh, rects[0].xh);
      }
    }
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = i + 1; j < all.size(); ++j) EXPECT_FALSE(overlap(all[i], all[j])) << i << " " << j;
    double fence_total = 0;
    for (double a : area) fence_total += a;
    EXPECT_NEAR(fence_total / (region.width() * region.height()), spec.fence_area_fraction, 0.05);

    // Fenced cells: standard cells only, inside a rectangle of their fence, counts by area.
    const std::int64_t num_std = spec.num_movable - spec.num_movable_macros;
    const auto m = std::llround(spec.fenced_cell_fraction * static_cast<double>(num_std));
    std::vector<std::int64_t> count(K + 1, 0);
    for (int i = 0; i < d.num_nodes(); ++i) {
      const int k = d.region_id[i];
      ASSERT_TRUE(k >= 0 && k <= K);
      ++count[k];
      if (k == K) continue;
      EXPECT_LT(i, num_std) << "only standard cells are fenced";
      const Rect cell{d.x[i], d.y[i], d.x[i] + d.width[i], d.y[i] + d.height[i]};
      bool inside = false;
      for (const Rect& r : d.fences[k].rects)
        inside |= cell.xl >= r.xl && cell.yl >= r.yl && cell.xh <= r.xh && cell.yh <= r.yh;
      EXPECT_TRUE(inside) << "cell " << i << " outside fence " << k;
    }
    std::int64_t fenced = 0;
    for (int k = 0; k < K; ++k) {
      fenced += count[k];
      EXPECT_GE(count[k], 1);
      EXPECT_LT(std::abs(static_cast<double>(count[k] - 1) - static_cast<double>(m - K) * area[k] / fence_total), 1.0);
    }
    EXPECT_EQ(fenced, m);
    // The design is one make_region_fillers takes.
    efield::CellSizes movable;
    efield::FixedCells fixed;
    std::vector<int> ids;
    for (int i = 0; i < d.num_nodes(); ++i) {
      if (d.kind[i] == NodeKind::Movable) {
        movable.widths.push_back(d.width[i]), movable.heights.push_back(d.height[i]), ids.push_back(d.region_id[i]);
      } else if (d.kind[i] == NodeKind::Fixed) {
        fixed.widths.push_back(d.width[i]), fixed.heights.push_back(d.height[i]);
        fixed.x.push_back(d.x[i]), fixed.y.push_back(d.y[i]);
      }
    }
    efield::RegionFillerOptions o;
    o.target_density = 0.8;
    o.row_height = spec.row_height;
    const auto fillers = efield::make_region_fillers(movable, ids, d.fences, fixed, region.xl, region.yl, region.xh,
                                                     region.yh, o);
    ASSERT_EQ(fillers.size(), static_cast<size_t>(K + 1));
    for (int k = 0; k < K; ++k) EXPECT_EQ(fillers[k].num_movable, count[k]);
  }
}

TEST(SyntheticFences, FixedMacrosOverlapSomeFences) {
  const Design d = efield::generate_synthetic_design(fence_spec(1, 4));
  int overlapping = 0;
  for (int i = 0; i < d.num_nodes(); ++i) {
    if (d.kind[i] != NodeKind::Fixed) continue;
    const Rect m{d.x[i], d.y[i], d.x[i] + d.width[i], d.y[i] + d.height[i]};
    for (const auto& f : d.fences)
      for (const Rect& r : f.rects) overlapping += overlap(m, r);
  }
  EXPECT_GT(overlapping, 0);
}

TEST(SyntheticFences, DeterministicBySeed) {
  const Design a = efield::generate_synthetic_design(fence_spec(5, 3));
  const Design b = efield::generate_synthetic_design(fence_spec(5, 3));
  const Design c = efield::generate_synthetic_design(fence_spec(6, 3));
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.region_id, b.region_id);
  ASSERT_EQ(a.fences.size(), b.fences.size());
  for (size_t k = 0; k < a.fences.size(); ++k)
    for (size_t j = 0; j < a.fences[k].rects.size(); ++j) {
      EXPECT_EQ(a.fences[k].rects[j].xl, b.fences[k].rects[j].xl);
      EXPECT_EQ(a.fences[k].rects[j].yh, b.fences[k].rects[j].yh);
    }
  EXPECT_NE(a.region_id, c.region_id);
  // Fences use streams of their own: the unfenced nodes sit where they sit without fences.
  const Design plain = efield::generate_synthetic_design(fence_spec(5, 0));
  EXPECT_TRUE(plain.fences.empty());
  EXPECT_TRUE(plain.region_id.empty());
  ASSERT_EQ(plain.x.size(), a.x.size());
  EXPECT_EQ(plain.width, a.width);
  for (int i = 0; i < a.num_nodes(); ++i)
    if (a.region_id[i] == 3) EXPECT_TRUE(plain.x[i] == a.x[i] && plain.y[i] == a.y[i]) << i;
}

TEST(SyntheticFences, BadSpecs) {
  const auto expect_error = [](SyntheticDesignSpec s, const std::string& fragment) {
    try {
      efield::generate_synthetic_design(s);
      ADD_FAILURE() << "no efield::Error for " << fragment;
    } catch (const efield::Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  SyntheticDesignSpec s = fence_spec(1, 2);
  s.num_fences = -1;
  expect_error(s, "num_fences");
  s = fence_spec(1, 2), s.fence_area_fraction = 0.9;
  expect_error(s, "fence_area_fraction");
  s = fence_spec(1, 2), s.fenced_cell_fraction = 1;
  expect_error(s, "fenced_cell_fraction");
  s = fence_spec(1, 2000);  // fences too small for a row and a site each... or for the cells
  expect_error(s, "lower num_fences");
  s = fence_spec(1, 3), s.num_movable = 20, s.num_movable_macros = 0, s.fenced_cell_fraction = 0.05;
  expect_error(s, "each fence needs at least one");
}

}  // namespace
