// ElectrostaticSystem input checking (every bad input raises efield::Error, nothing crashes) and
// the placement helpers (fillers, default bin grid).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "efield/efield.hpp"
#include "electrostatics/random_design.hpp"
#include "support/expect_error.hpp"
#include "support/random.hpp"

namespace efield::test {
namespace {

ElectrostaticOptions good_options() {
  ElectrostaticOptions o;
  o.xl = 0;
  o.yl = 0;
  o.xh = 100;
  o.yh = 80;
  o.num_bins_x = 10;
  o.num_bins_y = 8;
  o.target_density = 0.9;
  o.backend = Backend::Cpu;
  o.cpu_threads = 2;
  return o;
}
CellSizes good_cells() { return CellSizes{{3, 4, 12}, {2, 5, 9}}; }

TEST(ElectrostaticInputs, BadConstructionRaises) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto with = [](auto change) {
    ElectrostaticOptions o = good_options();
    change(o);
    return o;
  };
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.xh = o.xl; }), good_cells()); }, "region");
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.yh = o.yl - 1; }), good_cells()); }, "region");
  expect_error([&] { ElectrostaticSystem(with([&](auto& o) { o.xl = nan; }), good_cells()); }, "region");
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.num_bins_x = 0; }), good_cells()); }, "bin grid");
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.num_bins_y = -3; }), good_cells()); }, "bin grid");
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.target_density = 0; }), good_cells()); },
               "target_density");
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.target_density = 1.01; }), good_cells()); },
               "target_density");
  expect_error([&] { ElectrostaticSystem(with([&](auto& o) { o.target_density = nan; }), good_cells()); },
               "target_density");
  expect_error([&] { ElectrostaticSystem(with([](auto& o) { o.filler_offset = 1; }), good_cells()); },
               "filler_offset");
  expect_error([&] { ElectrostaticSystem(good_options(), CellSizes{{1, 2}, {1}}); }, "differ in count");
  expect_error([&] { ElectrostaticSystem(good_options(), CellSizes{{1, 0}, {1, 1}}); }, "movable cell 1");
  expect_error([&] { ElectrostaticSystem(good_options(), CellSizes{{1, -2}, {1, 1}}); }, "movable cell 1");
  expect_error([&] { ElectrostaticSystem(good_options(), CellSizes{{1, nan}, {1, 1}}); }, "movable cell 1");
  expect_error([&] { ElectrostaticSystem(good_options(), good_cells(), CellSizes{{inf}, {1}}); }, "filler cell 0");
  expect_error([&] { ElectrostaticSystem(good_options(), good_cells(), {}, FixedCells{{1}, {1}, {1, 2}, {1}}); },
               "one count");
  expect_error([&] { ElectrostaticSystem(good_options(), good_cells(), {}, FixedCells{{1}, {0}, {1}, {1}}); },
               "fixed cell 0");
  expect_error([&] { ElectrostaticSystem(good_options(), good_cells(), {}, FixedCells{{1}, {1}, {nan}, {1}}); },
               "fixed cell 0");
}

TEST(ElectrostaticInputs, BadEvaluateRaises) {
  ElectrostaticSystem es(good_options(), good_cells(), CellSizes{{2}, {2}});
  std::vector<float> x{1, 2, 3, 4}, y{1, 2, 3, 4}, gx(4), gy(4);
  std::vector<double> xd{1, 2, 3, 4}, yd(4, 1.0), gxd(4), gyd(4);
  expect_error([&] { es.evaluate(xd.data(), yd.data(), gxd.data(), gyd.data()); }, "precision float");
  expect_error([&] { es.evaluate(x.data(), nullptr, gx.data(), gy.data()); }, "null");
  x[3] = std::numeric_limits<float>::quiet_NaN();
  expect_error([&] { es.evaluate(x.data(), y.data(), gx.data(), gy.data()); }, "filler cell 0");
  x[3] = 4;
  y[1] = std::numeric_limits<float>::infinity();
  expect_error([&] { es.evaluate(x.data(), y.data(), gx.data(), gy.data()); }, "movable cell 1");
  expect_error([&] { es.profile_stages(x.data(), y.data(), gx.data(), gy.data(), 0); }, "repetitions");
  expect_error([&] { es.update_fixed_cells(FixedCells{{1}, {1}, {1}, {}}); }, "one count");
}

// The pointer checks are kept for the latest few sets of arrays (electrostatic_system.cpp): a caller
// taking turns between more sets than are kept gets each one's results, host positions are still
// checked at every call (a NaN written into a set checked before raises), and a set whose gradient
// aliases its positions raises whenever it comes.
TEST(ElectrostaticInputs, PointerSetsTakenInTurnAreCheckedAtEveryCall) {
  ElectrostaticSystem es(good_options(), good_cells(), CellSizes{{2}, {2}});
  constexpr int kSets = 6;
  std::vector<std::vector<float>> x, y, gx(kSets, std::vector<float>(4)), gy(kSets, std::vector<float>(4));
  for (int k = 0; k < kSets; ++k) {
    x.push_back({1.f + k, 20, 50, 70});
    y.push_back({1, 30.f + k, 60, 10});
  }
  std::vector<double> energy(kSets);
  for (int k = 0; k < kSets; ++k) energy[k] = es.evaluate(x[k].data(), y[k].data(), gx[k].data(), gy[k].data()).energy;
  for (int k : {0, 1, 0, 5, 4, 3, 2, 1, 0, 5}) {
    std::vector<float> hx(4), hy(4);
    ElectrostaticSystem fresh(good_options(), good_cells(), CellSizes{{2}, {2}});
    fresh.evaluate(x[k].data(), y[k].data(), hx.data(), hy.data());
    EXPECT_EQ(es.evaluate(x[k].data(), y[k].data(), gx[k].data(), gy[k].data()).energy, energy[k]) << k;
    EXPECT_EQ(gx[k], hx) << k;
    EXPECT_EQ(gy[k], hy) << k;
  }
  x[1][2] = std::numeric_limits<float>::quiet_NaN();
  expect_error([&] { es.evaluate(x[1].data(), y[1].data(), gx[1].data(), gy[1].data()); }, "movable cell 2");
  expect_error([&] { es.evaluate(x[0].data(), y[0].data(), gx[1].data(), gx[1].data()); }, "share memory");
  es.evaluate(x[0].data(), y[0].data(), gx[0].data(), gy[0].data());
  expect_error([&] { es.evaluate(x[0].data(), y[0].data(), gx[1].data(), gx[1].data()); }, "share memory");
}

// Cells far outside the region, huge cells, cells straddling every edge: no crash, nothing
// written out of bounds, and every gradient finite.
TEST(ElectrostaticInputs, CellsOutsideTheRegionAreHarmless) {
  ElectrostaticOptions o = good_options();
  o.precision = Precision::Double;
  CellSizes cells{{1, 500, 3, 3, 2, 1e-3}, {1, 400, 3, 3, 2, 1e-3}};
  ElectrostaticSystem es(o, cells);
  std::vector<double> x{-1e9, -200, 98, -2, 50, 1e12}, y{5, -100, 78, -2, 1e9, -1e12}, gx(6), gy(6);
  const EvaluateResult r = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  EXPECT_TRUE(std::isfinite(r.energy));
  EXPECT_TRUE(std::isfinite(r.overflow));
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(std::isfinite(gx[i]) && std::isfinite(gy[i])) << i;
  EXPECT_EQ(gx[0], 0.0);  // wholly outside: no charge, no force
}

TEST(ElectrostaticHelpers, FillersFollowMathMd) {
  CellSizes movable;
  // Widths 1..100 in reverse with ties: sorted, the slice [int(0.05 n), int(0.95 n)) = [5, 95) is
  // cut by position (DREAMPlace's rule), not by value: the second 6 and the first 96 are in it,
  // the other copies of 6 and 96 at the slice's ends are not.
  for (int i = 100; i >= 1; --i) {
    movable.widths.push_back(i == 5 ? 6 : i == 97 ? 96 : i);
    movable.heights.push_back(2);
  }
  FixedCells fixed{{100, 50}, {100, 40}, {-50, 900}, {0, 960}};  // half inside; 50 x 40 inside
  const FillerSpec f = make_fillers(movable, fixed, 0, 0, 1000, 1000, 0.8, 4);
  double mean = 0;  // sorted: 1 2 3 4 6 6 7 ... 95 96 96 98 ...; indices 5..94 hold 6, 7, ..., 95
  for (int w = 6; w <= 95; ++w) mean += w;
  mean /= 90;
  EXPECT_DOUBLE_EQ(f.width, mean);
  EXPECT_DOUBLE_EQ(f.height, 4);
  const double fixed_area = 50 * 100 + 50 * 40;
  const double total = 0.8 * (1e6 - fixed_area) - 2 * (5050 - 5 + 6 - 97 + 96);
  EXPECT_DOUBLE_EQ(f.total_area, total);
  EXPECT_EQ(f.count, std::llround(total / (mean * 4)));
  EXPECT_EQ(f.sizes().widths.size(), static_cast<size_t>(f.count));
  // No rows: the mean movable height; a full region: no fillers.
  EXPECT_DOUBLE_EQ(make_fillers(movable, {}, 0, 0, 1000, 1000, 0.8).height, 2);
  EXPECT_EQ(make_fillers(movable, {}, 0, 0, 10, 10, 1.0).count, 0);
  expect_error([&] { make_fillers(CellSizes{}, {}, 0, 0, 10, 10, 1.0); }, "no movable");
  expect_error([&] { make_fillers(movable, {}, 0, 0, 10, 10, 0.0); }, "target_density");
  expect_error([&] { make_fillers(movable, {}, 0, 0, 0, 10, 1.0); }, "region");
}

TEST(ElectrostaticHelpers, DefaultBinGrid) {
  CellSizes movable{std::vector<double>(1000, 2.0), std::vector<double>(1000, 2.0)};  // avg area 4
  // Square region 1000 x 1000, td 1: K = 1e6 / 4 = 250000, n^2 <= K < 4 n^2 -> n = 256.
  BinGrid g = default_bin_grid(movable, 0, 0, 1000, 1000, 1.0);
  EXPECT_EQ(g.num_bins_x, 256);
  EXPECT_EQ(g.num_bins_y, 256);
  // td 0.5 doubles the bin area: K = 125000 -> n = 256 still (65536 <= K < 262144).
  EXPECT_EQ(default_bin_grid(movable, 0, 0, 1000, 1000, 0.5).num_bins_x, 256);
  // W / H = 2 (r = 1): x doubles, y stays; bins stay square.
  g = default_bin_grid(movable, 0, 0, 2000, 1000, 1.0);  // K = 500000 -> n = 512
  EXPECT_EQ(g.num_bins_x, 1024);
  EXPECT_EQ(g.num_bins_y, 512);
  // W / H = 1/4 (r = -2): x halves, y doubles.
  g = default_bin_grid(movable, 0, 0, 500, 2000, 1.0);  // K = 250000 -> n = 256
  EXPECT_EQ(g.num_bins_x, 128);
  EXPECT_EQ(g.num_bins_y, 512);
  // Tiny design: at least 2.
  EXPECT_EQ(default_bin_grid(movable, 0, 0, 4, 4, 1.0).num_bins_x, 2);
  expect_error([&] { default_bin_grid(CellSizes{}, 0, 0, 1, 1, 1.0); }, "no movable");
}

}  // namespace
}  // namespace efield::test
