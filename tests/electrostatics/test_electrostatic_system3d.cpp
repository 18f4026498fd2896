// ElectrostaticSystem3D on the CPU: one layer of full-depth cells is the 2D system (docs/math.md
// 4.12), Parseval and the Exact gradient against finite differences, bitwise reruns, the
// placer-loop options, size and fixed-cell updates, make_fillers_3d, and bad input. The dense
// float64 reference (tests/python/reference3d.py) is compared in tests/python/test_system3d.py;
// the CUDA backend in test_electrostatic_system3d_cuda.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "efield/electrostatic_system.hpp"
#include "efield/electrostatic_system3d.hpp"
#include "electrostatics/system3d_design.hpp"
#include "support/expect_error.hpp"

namespace efield::test {
namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double a : v) m = std::max(m, std::fabs(a));
  return m;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double rel, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  const double scale = std::max(max_abs(b), 1e-300);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], rel * scale) << what << " at " << i;
}

// docs/math.md 4.12: L = 1, every cell of the region's depth at z = zl, is the 2D system.
TEST(ElectrostaticSystem3D, OneLayerOfFullDepthCellsIsThe2DSystem) {
  for (const auto& shape : {std::pair<int, int>{8, 6}, {7, 9}, {13, 2}}) {
    for (const GradientScale scale : {GradientScale::DreamPlace, GradientScale::Exact}) {
      Design3DCase d = random_design3d(11 + shape.first, shape.first, shape.second, 1);
      const double Z = d.options.zh - d.options.zl;
      for (CellSizes3D* c : {&d.movable, &d.fillers}) std::fill(c->depths.begin(), c->depths.end(), Z);
      std::fill(d.fixed.depths.begin(), d.fixed.depths.end(), Z);
      std::fill(d.fixed.z.begin(), d.fixed.z.end(), d.options.zl);
      std::fill(d.z.begin(), d.z.end(), d.options.zl);
      d.options.gradient_scale = scale;
      if (shape.first == 7) {  // every third movable cell a macro (td = 0.8 < 1: DREAMPlace's rule)
        d.movable.movable_macro_mask.resize(d.movable.widths.size());
        for (std::size_t i = 0; i < d.movable.movable_macro_mask.size(); ++i)
          d.movable.movable_macro_mask[i] = i % 3 == 0;
      }
      ElectrostaticSystem3D es3(d.options, d.movable, d.fillers, d.fixed);

      ElectrostaticOptions o2;
      o2.xl = d.options.xl, o2.yl = d.options.yl, o2.xh = d.options.xh, o2.yh = d.options.yh;
      o2.num_bins_x = shape.first, o2.num_bins_y = shape.second;
      o2.target_density = d.options.target_density;
      o2.precision = Precision::Double, o2.backend = Backend::Cpu, o2.gradient_scale = scale;
      ElectrostaticSystem es2(o2, CellSizes{d.movable.widths, d.movable.heights, d.movable.movable_macro_mask},
                              CellSizes{d.fillers.widths, d.fillers.heights},
                              FixedCells{d.fixed.widths, d.fixed.heights, d.fixed.x, d.fixed.y});
      const Output3D<double> r3 = evaluate_host<double>(es3, d);
      std::vector<double> gx2(d.x.size()), gy2(d.x.size());
      const EvaluateResult r2 = es2.evaluate(d.x.data(), d.y.data(), gx2.data(), gy2.data());

      EXPECT_NEAR(r3.result.energy, r2.energy, 1e-10 * r2.energy);
      EXPECT_NEAR(r3.result.overflow, r2.overflow, 1e-10 * r2.overflow + 1e-14);
      EXPECT_NEAR(r3.result.max_density, r2.max_density, 1e-12 * r2.max_density);
      EXPECT_NEAR(r3.result.movable_area_outside, Z * r2.movable_area_outside, 1e-9 * Z * r2.movable_area_outside + 1e-9);
      expect_close(es3.density_map(), es2.density_map(), 1e-12, "rho");
      expect_close(es3.field_x_map(), es2.field_x_map(), 1e-9, "Ex");
      expect_close(es3.field_y_map(), es2.field_y_map(), 1e-9, "Ey");
      EXPECT_LE(max_abs(es3.field_z_map()), 1e-12 * max_abs(es2.field_x_map()));
      expect_close(es3.potential_map(), es2.potential_map(), 1e-9, "phi");
      std::vector<double> F2 = es2.fixed_map();
      for (double& v : F2) v *= Z;
      expect_close(es3.fixed_map(), F2, 1e-12, "fixed");
      // DreamPlace: gx = Z gx_2D (the charge is a volume); Exact: equal.
      const double factor = scale == GradientScale::DreamPlace ? Z : 1.0;
      for (double& v : gx2) v *= factor;
      for (double& v : gy2) v *= factor;
      expect_close(r3.gx, gx2, 1e-9, "gx");
      expect_close(r3.gy, gy2, 1e-9, "gy");
      if (scale == GradientScale::DreamPlace) EXPECT_LE(max_abs(r3.gz), 1e-12 * max_abs(gx2));
    }
  }
}

// E = sum phi rho (the maps) equals the Parseval energy that evaluate returns.
TEST(ElectrostaticSystem3D, ParsevalEnergyEqualsSumOfPotentialTimesDensity) {
  for (const int L : {1, 2, 3, 8}) {
    const Design3DCase d = random_design3d(3 + L, 7, 6, L);
    ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
    const Output3D<double> r = evaluate_host<double>(es, d);
    const std::vector<double> phi = es.potential_map(), rho = es.density_map();
    double e = 0;
    for (std::size_t i = 0; i < phi.size(); ++i) e += phi[i] * rho[i];
    EXPECT_NEAR(r.result.energy, e, 1e-10 * e) << "L = " << L;
    EXPECT_GT(r.result.energy, 0);
  }
}

// Central differences of the energy against the Exact gradient (no edge near a bin boundary).
TEST(ElectrostaticSystem3D, ExactGradientMatchesFiniteDifferences) {
  Design3DCase d = random_design3d(5, 7, 6, 3, 30, 5, 2);
  d.options.gradient_scale = GradientScale::Exact;
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  const Output3D<double> r = evaluate_host<double>(es, d);
  const double h = 1e-4;  // well above the 2^-40 bin volumes of the fixed-point map, well below a bin
  for (const std::size_t i : {std::size_t{0}, std::size_t{3}, std::size_t{7}, std::size_t{12}}) {
    std::vector<double>* axes[3] = {&d.x, &d.y, &d.z};
    const std::vector<double>* grads[3] = {&r.gx, &r.gy, &r.gz};
    for (int a = 0; a < 3; ++a) {
      const double p0 = (*axes[a])[i];
      (*axes[a])[i] = p0 + h;
      const double ep = evaluate_host<double>(es, d).result.energy;
      (*axes[a])[i] = p0 - h;
      const double em = evaluate_host<double>(es, d).result.energy;
      (*axes[a])[i] = p0;
      const double fd = (ep - em) / (2 * h);
      EXPECT_NEAR((*grads[a])[i], fd, 1e-5 * (std::fabs(fd) + 1e-3)) << "cell " << i << " axis " << "xyz"[a];
    }
  }
}

// Deterministic: the same bits on a rerun and for any thread count.
TEST(ElectrostaticSystem3D, BitwiseRerunsAndThreadCounts) {
  for (const Precision p : {Precision::Float, Precision::Double}) {
    Design3DCase d = random_design3d(9, 16, 11, 5, 400, 50, 4);
    d.options.precision = p;
    d.options.cpu_threads = 1;
    ElectrostaticSystem3D one(d.options, d.movable, d.fillers, d.fixed);
    d.options.cpu_threads = 2;
    ElectrostaticSystem3D two(d.options, d.movable, d.fillers, d.fixed);
    const auto check = [&](auto tag) {
      using T = decltype(tag);
      const Output3D<T> a = evaluate_host<T>(one, d), b = evaluate_host<T>(one, d), c = evaluate_host<T>(two, d);
      for (const Output3D<T>* o : {&b, &c}) {
        EXPECT_EQ(a.result.energy, o->result.energy);
        EXPECT_EQ(a.result.overflow, o->result.overflow);
        EXPECT_EQ(a.result.max_density, o->result.max_density);
        EXPECT_EQ(a.gx, o->gx);
        EXPECT_EQ(a.gy, o->gy);
        EXPECT_EQ(a.gz, o->gz);
      }
    };
    if (p == Precision::Float) check(float{});
    else check(double{});
  }
}

// weight and accumulate; the gap of DREAMPlace's layout untouched unless zero_gap_gradient.
TEST(ElectrostaticSystem3D, WeightAccumulateAndGap) {
  Design3DCase d = random_design3d(21, 6, 5, 4, 20, 6, 1, /*gap=*/3);
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  const Output3D<double> base = evaluate_host<double>(es, d, {}, 7.0);
  EXPECT_EQ(base.gx[21], 7.0);  // in the gap
  const Output3D<double> acc = evaluate_host<double>(es, d, EvaluateOptions{0.5, true}, 1.0);
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    if (i >= 20 && i < 23) {
      EXPECT_EQ(acc.gz[i], 1.0);
      continue;
    }
    EXPECT_DOUBLE_EQ(acc.gx[i], 1.0 + 0.5 * base.gx[i]);
    EXPECT_DOUBLE_EQ(acc.gz[i], 1.0 + 0.5 * base.gz[i]);
  }
  d.options.zero_gap_gradient = true;
  ElectrostaticSystem3D zero(d.options, d.movable, d.fillers, d.fixed);
  const Output3D<double> z = evaluate_host<double>(zero, d, {}, 7.0);
  EXPECT_EQ(z.gy[22], 0.0);
  for (std::size_t i = 0; i < d.x.size(); ++i)
    if (i < 20 || i >= 23) EXPECT_EQ(z.gx[i], base.gx[i]);
}

TEST(ElectrostaticSystem3D, UpdatesEqualANewSystem) {
  Design3DCase d = random_design3d(31, 9, 7, 3);
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  evaluate_host<double>(es, d);
  Design3DCase e = d;
  for (double& w : e.movable.widths) w *= 1.1;
  for (double& v : e.movable.depths) v *= 0.9;
  for (double& v : e.fillers.heights) v *= 0.8;
  e.fixed.widths.push_back(2.0), e.fixed.heights.push_back(1.0), e.fixed.depths.push_back(6.0);
  e.fixed.x.push_back(5.0), e.fixed.y.push_back(4.0), e.fixed.z.push_back(0.0);  // through all layers and beyond
  es.update_movable_sizes(e.movable);
  es.update_filler_sizes(e.fillers);
  es.update_fixed_cells(e.fixed);
  EXPECT_EQ(es.num_fixed(), 4);
  ElectrostaticSystem3D fresh(e.options, e.movable, e.fillers, e.fixed);
  const Output3D<double> a = evaluate_host<double>(es, e), b = evaluate_host<double>(fresh, e);
  EXPECT_EQ(a.result.energy, b.result.energy);
  EXPECT_EQ(a.result.overflow, b.result.overflow);
  EXPECT_EQ(a.gx, b.gx);
  EXPECT_EQ(a.gz, b.gz);
  EXPECT_EQ(es.fixed_map(), fresh.fixed_map());
  CellSizes3D wrong = e.movable;
  wrong.depths.pop_back();
  expect_error([&] { es.update_movable_sizes(wrong); }, "count");
}

TEST(ElectrostaticSystem3D, Accessors) {
  const Design3DCase d = random_design3d(1, 4, 5, 6);
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  EXPECT_EQ(es.backend(), Backend::Cpu);
  EXPECT_EQ(es.num_movable(), 60);
  EXPECT_EQ(es.num_fillers(), 15);
  EXPECT_EQ(es.num_fixed(), 3);
  EXPECT_DOUBLE_EQ(es.bin_width(), 14.0 / 4);
  EXPECT_DOUBLE_EQ(es.bin_height(), 12.0 / 5);
  EXPECT_DOUBLE_EQ(es.bin_depth(), 1.0);
  EXPECT_EQ(es.device(), -1);
  EXPECT_EQ(es.device_result(), nullptr);
  EXPECT_EQ(es.options().num_bins_z, 6);
  EXPECT_EQ(es.options().filler_offset, 60);
  EXPECT_EQ(es.density_map().size(), 4u * 5 * 6);
  std::vector<float> x(75);
  expect_error([&] { es.evaluate(x.data(), x.data(), x.data(), x.data(), x.data(), x.data()); }, "float");
  expect_error([&] {
    std::vector<double> p(75);
    es.evaluate_async(p.data(), p.data(), p.data(), p.data(), p.data(), p.data());
  }, "CUDA backend only");
}

TEST(ElectrostaticSystem3D, ProfileStages) {
  const Design3DCase d = random_design3d(6, 8, 8, 4);
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  std::vector<double> gx(d.x.size()), gy(d.x.size()), gz(d.x.size());
  const StageTimes t = es.profile_stages(d.x.data(), d.y.data(), d.z.data(), gx.data(), gy.data(), gz.data(), 3);
  EXPECT_EQ(t.repetitions, 3);
  EXPECT_GT(t.total_ms, 0);
  EXPECT_GE(t.inverse_fft_ms, 0);
  EXPECT_EQ(gx, evaluate_host<double>(es, d).gx);  // it wrote the gradient
  expect_error([&] { es.profile_stages(d.x.data(), d.y.data(), d.z.data(), gx.data(), gy.data(), gz.data(), 0); },
               "repetitions");
}

TEST(ElectrostaticSystem3D, BadInput) {
  const Design3DCase d = random_design3d(2, 4, 4, 2);
  const auto make = [&](auto change) {
    Design3DCase e = d;
    change(e);
    ElectrostaticSystem3D es(e.options, e.movable, e.fillers, e.fixed);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { make([](Design3DCase& e) { e.movable.depths[3] = 0; }); }, "movable cell 3");
  expect_error([&] { make([](Design3DCase& e) { e.movable.depths[3] = -1; }); }, "depth must be finite");
  expect_error([&] { make([&](Design3DCase& e) { e.fillers.depths[1] = nan; }); }, "filler cell 1");
  expect_error([&] { make([](Design3DCase& e) { e.movable.depths[4] = 6.5; }); }, "deeper than the region");
  expect_error([&] { make([](Design3DCase& e) { e.movable.depths.pop_back(); }); }, "differ in count");
  expect_error([&] { make([](Design3DCase& e) { e.fixed.z.pop_back(); }); }, "fixed cells need");
  expect_error([&] { make([](Design3DCase& e) { e.fixed.depths[0] = 0; }); }, "fixed cell 0");
  expect_error([&] { make([](Design3DCase& e) { e.options.num_bins_z = 0; }); }, "num_bins_z >= 1");
  expect_error([&] { make([](Design3DCase& e) { e.options.zh = e.options.zl; }); }, "along z");
  expect_error([&] { make([](Design3DCase& e) { e.options.target_density = 1.5; }); }, "target_density");
  expect_error([&] { make([](Design3DCase& e) { e.options.filler_offset = 3; }); }, "filler_offset");
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  Design3DCase e = d;
  e.z[5] = nan;
  expect_error([&] { evaluate_host<double>(es, e); }, "movable cell 5");
  expect_error([&] { evaluate_host<double>(es, d, EvaluateOptions{nan, false}); }, "weight");
  std::vector<double> p(75), g(75);
  expect_error([&] { es.evaluate(p.data(), p.data(), p.data(), g.data(), g.data(), p.data()); }, "share memory");
  expect_error([&] { es.evaluate(p.data(), nullptr, p.data(), g.data(), g.data(), g.data()); }, "y is null");
}

TEST(ElectrostaticSystem3D, Fillers) {
  CellSizes3D movable{{1, 2, 3, 4}, {1, 1, 1, 1}, {1, 1, 1, 3}};
  FixedCells3D fixed{{2}, {2}, {2}, {-1}, {0}, {0}};  // half of it inside in x: volume 4 inside
  const FillerSpec3D f = make_fillers_3d(movable, fixed, 0, 0, 0, 10, 10, 4, 0.5, 0, 2);
  EXPECT_DOUBLE_EQ(f.width, 2.0);  // the 2D rule's trimmed mean: widths [int(0.2), int(3.8))
  EXPECT_DOUBLE_EQ(f.height, 1.0);
  EXPECT_DOUBLE_EQ(f.depth, 2.0);
  EXPECT_DOUBLE_EQ(f.total_volume, 0.5 * (400 - 4) - (1 + 2 + 3 + 12));
  EXPECT_EQ(f.count, std::llround(f.total_volume / 4.0));
  EXPECT_EQ(f.sizes().depths.size(), static_cast<std::size_t>(f.count));
  EXPECT_DOUBLE_EQ(make_fillers_3d(movable, {}, 0, 0, 0, 10, 10, 4, 1.0).depth, 1.5);  // the mean depth
  expect_error([&] { make_fillers_3d(movable, fixed, 0, 0, 0, 10, 10, 4, 0.5, 0, 5); }, "filler depth");
  expect_error([&] { make_fillers_3d(movable, fixed, 0, 0, 4, 10, 10, 4, 0.5); }, "along z");
}

}  // namespace
}  // namespace efield::test
