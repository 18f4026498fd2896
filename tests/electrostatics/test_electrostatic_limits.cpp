// Numbers an ElectrostaticSystem cannot hold (cells and regions that overflow or underflow the
// precision), a moved-from system, out-of-range enum values and filler counts that do not fit:
// each an efield::Error naming the input and the problem, never NaN, a crash or a wrong density.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "efield/efield.hpp"

namespace efield::test {
namespace {

ElectrostaticOptions square_region(double side, int bins, Precision precision) {
  ElectrostaticOptions o;
  o.xl = 0, o.yl = 0, o.xh = side, o.yh = side;
  o.num_bins_x = o.num_bins_y = bins;
  o.precision = precision;
  o.backend = Backend::Cpu;
  o.cpu_threads = 1;
  return o;
}

template <typename F>
void expect_error(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
    ADD_FAILURE() << "no efield::Error (expected one mentioning '" << needles.front() << "')";
  } catch (const Error& e) {
    for (const std::string& needle : needles)
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "'" << needle << "' not in: " << e.what();
  }
}

TEST(ElectrostaticLimits, CellAreaOverflowingThePrecisionIsRefused) {
  // 1e300 x 1e300 in double: w h = inf, the charge inf / inf.
  expect_error([] { ElectrostaticSystem(square_region(100, 8, Precision::Double), CellSizes{{1, 1e300}, {1, 1e300}}); },
               {"movable cell 1", "1e+300 x 1e+300", "area overflows double"});
  // A side beyond float's range (1e39 becomes inf in float).
  expect_error([] { ElectrostaticSystem(square_region(100, 8, Precision::Float), CellSizes{{1e39}, {1}}); },
               {"movable cell 0", "1e+39 x 1", "beyond the range of float"});
  // Sides that fit float whose product does not.
  expect_error([] { ElectrostaticSystem(square_region(100, 8, Precision::Float), CellSizes{{1}, {1}},
                                        CellSizes{{1e20, 2}, {1e20, 2}}); },
               {"filler cell 0", "area overflows float"});
  // The same cells in double are fine on bins large enough for their area (at most 2^41 bin
  // areas: the fixed-point sum of the area outside the region), and give finite gradients.
  expect_error([] { ElectrostaticSystem(square_region(100, 8, Precision::Double), CellSizes{{1, 1e20}, {1, 1e20}}); },
               {"movable cells' total area", "more than 2^41"});
  ElectrostaticSystem es(square_region(1e15, 8, Precision::Double), CellSizes{{1, 1e20}, {1, 1e20}});
  std::vector<double> x{10, -5e19}, y{10, -5e19}, gx(2), gy(2);
  const EvaluateResult r = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  EXPECT_TRUE(std::isfinite(r.energy) && std::isfinite(r.overflow));
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(std::isfinite(gx[i]) && std::isfinite(gy[i])) << i;
  // Size updates are held to the same limits.
  expect_error([&] { es.update_movable_sizes(CellSizes{{1, 1e300}, {1, 1e300}}); },
               {"movable cell 1", "area overflows double"});
  ElectrostaticSystem ef(square_region(100, 8, Precision::Float), CellSizes{{1}, {1}}, CellSizes{{2}, {2}});
  expect_error([&] { ef.update_filler_sizes(CellSizes{{1e20}, {1e20}}); }, {"filler cell 0", "area overflows float"});
}

TEST(ElectrostaticLimits, RegionsBeyondThePrecisionAreRefused) {
  ElectrostaticOptions o = square_region(1, 8, Precision::Double);
  o.xl = -1e308, o.xh = 1e308;  // xh - xl overflows double
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1}, {1}}); }, {"region", "wider than double"});
  o = square_region(1, 8, Precision::Double);
  o.yl = -1e308, o.yh = 1e308;
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1}, {1}}); }, {"region", "taller than double"});
  // A region 1e-310 wide: its bins are subnormal.
  o = square_region(1, 8, Precision::Double);
  o.xh = 1e-310;
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1e-311}, {1}}); }, {"bins of", "smallest normal double"});
  // Bounds beyond float's range.
  o = square_region(1, 8, Precision::Float);
  o.xh = 1e39;
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1}, {1}}); }, {"region", "beyond the range of float"});
}

// A 2x2-bin cell exactly on bins in a region of side 10 s over 10 x 10 bins: density 1 in its
// four bins, 0 elsewhere, whatever the scale s.
template <typename T>
std::vector<double> density_of_one_cell(double s) {
  ElectrostaticOptions o = square_region(10 * s, 10, sizeof(T) == 4 ? Precision::Float : Precision::Double);
  ElectrostaticSystem es(o, CellSizes{{2 * s}, {2 * s}});
  std::vector<T> x{static_cast<T>(2 * s)}, y{static_cast<T>(6 * s)}, gx(1), gy(1);
  es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  EXPECT_TRUE(std::isfinite(gx[0]) && std::isfinite(gy[0]));
  return es.density_map();
}

TEST(ElectrostaticLimits, FloatBinAreaRange) {
  // Inside [2^32 / FLT_MAX, FLT_MAX / 2] ~ [1.3e-29, 1.7e38]: the float density is right.
  for (const double s : {4e-15, 1.0, 8e18}) {
    const std::vector<double> rho = density_of_one_cell<float>(s);
    for (int m = 0; m < 10; ++m)
      for (int n = 0; n < 10; ++n) {
        const bool inside = (m == 2 || m == 3) && (n == 6 || n == 7);
        EXPECT_NEAR(rho[m * 10 + n], inside ? 1.0 : 0.0, 1e-6) << "s " << s << " bin " << m << "," << n;
      }
  }
  // Outside it: an error naming the range (the float pipeline used to return densities off by
  // 2^32 there). Double takes these scales.
  for (const double s : {1e-15, 1e-20, 1.4e19, 1e30}) {
    expect_error([&] { density_of_one_cell<float>(s); }, {"bin area", "outside [1.26", "float pipeline"});
    const std::vector<double> rho = density_of_one_cell<double>(s);
    EXPECT_NEAR(rho[2 * 10 + 6], 1.0, 1e-12) << s;
  }
  expect_error([] { density_of_one_cell<double>(1e-150); }, {"bin area", "double pipeline"});
}

TEST(ElectrostaticLimits, ExtremeBinAspectRatioIsRefused) {
  ElectrostaticOptions o = square_region(1, 4, Precision::Double);
  o.xh = 1e-6, o.yh = 1e6;  // bx / by = 1e-12: the lowest y wavenumber's square underflows
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1e-7}, {1}}); }, {"aspect ratio", "wavenumbers"});
  o.xh = 1e6, o.yh = 1e-6;
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1}, {1e-7}}); }, {"aspect ratio", "wavenumbers"});
  // A one-bin-tall grid has no y wavenumber: any aspect ratio works.
  o.num_bins_y = 1;
  ElectrostaticSystem es(o, CellSizes{{1}, {1e-7}});
  std::vector<double> x{5e5}, y{0}, gx(1), gy(1);
  const EvaluateResult r = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  EXPECT_TRUE(std::isfinite(r.energy) && std::isfinite(gx[0]) && std::isfinite(gy[0]));
}

TEST(ElectrostaticLimits, MovedFromSystemThrows) {
  ElectrostaticSystem a(square_region(10, 4, Precision::Double), CellSizes{{1}, {1}});
  ElectrostaticSystem b(std::move(a));
  std::vector<double> x{2}, y{2}, gx(1), gy(1);
  std::vector<float> xf{2}, yf{2}, gxf(1), gyf(1);
  const std::vector<std::string> moved{"moved from"};
  expect_error([&] { a.evaluate(x.data(), y.data(), gx.data(), gy.data()); }, moved);
  expect_error([&] { a.evaluate(xf.data(), yf.data(), gxf.data(), gyf.data()); }, moved);
  expect_error([&] { a.profile_stages(x.data(), y.data(), gx.data(), gy.data(), 1); }, moved);
  expect_error([&] { a.density_map(); }, moved);
  expect_error([&] { a.field_x_map(); }, moved);
  expect_error([&] { a.field_y_map(); }, moved);
  expect_error([&] { a.potential_map(); }, moved);
  expect_error([&] { a.fixed_map(); }, moved);
  expect_error([&] { a.update_fixed_cells({}); }, moved);
  EXPECT_EQ(a.num_movable(), 0);
  EXPECT_EQ(a.num_fillers(), 0);
  EXPECT_EQ(a.num_fixed(), 0);
  EXPECT_EQ(a.bin_width(), 0.0);
  EXPECT_EQ(a.options().num_bins_x, 0);
  // The system moved into works; so does one move-assigned over the moved-from one.
  b.evaluate(x.data(), y.data(), gx.data(), gy.data());
  EXPECT_EQ(b.density_map().size(), 16u);
  a = std::move(b);
  a.evaluate(x.data(), y.data(), gx.data(), gy.data());
  expect_error([&] { b.density_map(); }, moved);
}

TEST(ElectrostaticLimits, OutOfRangeEnumsAreRefused) {
  ElectrostaticOptions o = square_region(10, 4, Precision::Double);
  o.precision = static_cast<Precision>(7);
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1}, {1}}); }, {"precision 7", "not a Precision"});
  o = square_region(10, 4, Precision::Float);
  o.backend = static_cast<Backend>(9);
  expect_error([&] { ElectrostaticSystem(o, CellSizes{{1}, {1}}); }, {"backend 9", "not a Backend"});
}

TEST(ElectrostaticLimits, FillerCountThatDoesNotFitIsRefused) {
  const CellSizes movable{{2, 2, 2}, {1, 1, 1}};
  expect_error([&] { make_fillers(movable, {}, 0, 0, 1e16, 1e16, 1.0, 1.0); },
               {"make_fillers", "filler count", "2^31 - 1"});
  // A region whose area overflows double.
  expect_error([&] { make_fillers(movable, {}, -1e300, -1e300, 1e300, 1e300, 1.0, 1.0); }, {"filler count"});
  // Just inside: 2^31 - 1 - 3 fillers would fit; a smaller region gives a plain count.
  EXPECT_EQ(make_fillers(movable, {}, 0, 0, 1000, 1000, 1.0, 1.0).count, std::llround((1e6 - 6) / 2.0));
}

}  // namespace
}  // namespace efield::test
