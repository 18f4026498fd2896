// Inputs a careless or hostile caller passes (issue 40): each gets an efield::Error naming the input
// and the problem, or the right result; none crashes or silently gives a wrong answer.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cpu/thread_pool.hpp"
#include "efield/blocked_dct8.hpp"
#include "efield/efield.hpp"
#include "electrostatics/backend.hpp"
#include "electrostatics/cpu_density_copies.hpp"
#include "electrostatics/pipeline_setup.hpp"
#include "support/expect_error.hpp"

namespace efield::test {
namespace {

ElectrostaticOptions small_options(Precision precision = Precision::Float) {
  ElectrostaticOptions o;
  o.xh = 100, o.yh = 80;
  o.num_bins_x = 10, o.num_bins_y = 8;
  o.target_density = 0.9;
  o.backend = Backend::Cpu;
  o.cpu_threads = 2;
  o.precision = precision;
  return o;
}
CellSizes three_cells() { return CellSizes{{3, 4, 12}, {2, 5, 9}}; }

TEST(HostileInputs, WeightBeyondFloatIsRefusedOnAFloatSystem) {
  ElectrostaticSystem es(small_options(), three_cells());
  std::vector<float> x{10, 50, 80}, y{10, 40, 60}, gx(3), gy(3);
  EvaluateOptions eo;
  eo.weight = 1e39;  // inf once cast to float: every gradient would be inf or NaN
  expect_error([&] { es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo); },
               "weight 1e+39 is beyond the range of float");
  eo.weight = -1e39;
  expect_error([&] { es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo); }, "beyond the range of float");
  eo.weight = 3e38;  // within float: accepted (weight * gradient then rounds as float arithmetic does)
  EXPECT_NO_THROW(es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo));
  eo.weight = 1e6;
  es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isfinite(gx[i]) && std::isfinite(gy[i]));
  // A double system takes 1e39.
  ElectrostaticSystem ed(small_options(Precision::Double), three_cells());
  std::vector<double> xd{10, 50, 80}, yd{10, 40, 60}, gxd(3), gyd(3);
  eo.weight = 1e39;
  ed.evaluate(xd.data(), yd.data(), gxd.data(), gyd.data(), eo);
  EXPECT_TRUE(std::isfinite(gxd[0]));
}

TEST(HostileInputs, EnumValuesOutsideTheirEnumsAreRefused) {
  ElectrostaticOptions o = small_options();
  o.gradient_scale = static_cast<GradientScale>(7);
  expect_error([&] { ElectrostaticSystem(o, three_cells()); }, "gradient_scale 7 is not a GradientScale");
  o = small_options();
  o.precision = static_cast<Precision>(5);
  expect_error([&] { ElectrostaticSystem(o, three_cells()); }, "precision 5 is not a Precision");
  o = small_options();
  o.backend = static_cast<Backend>(9);
  expect_error([&] { ElectrostaticSystem(o, three_cells()); }, "not a Backend");
}

// Found by options_fuzzer: cells whose area outside the region overflowed its 64-bit fixed-point
// sum (undefined behaviour, a wrong movable_area_outside).
TEST(HostileInputs, CellAreaBeyondTheOutsideSumIsRefused) {
  const CellSizes huge{{1e8, 3}, {1e8, 2}};  // 1e16 = 1e14 bin areas of 100
  expect_error([&] { ElectrostaticSystem(small_options(), huge); }, "movable cells' total area is 1e+14 bin areas");
  ElectrostaticSystem es(small_options(), three_cells());
  expect_error([&] { es.update_movable_sizes(CellSizes{{1e8, 3, 4}, {1e8, 2, 5}}); }, "more than 2^41");
}

TEST(HostileInputs, GradientArraysThatShareMemoryAreRefused) {
  ElectrostaticSystem es(small_options(), three_cells());
  std::vector<float> x{10, 50, 80}, y{10, 40, 60}, g(8);
  expect_error([&] { es.evaluate(x.data(), y.data(), g.data(), g.data()); }, "grad_x and grad_y share memory");
  expect_error([&] { es.evaluate(x.data(), y.data(), g.data(), g.data() + 2); }, "grad_x and grad_y share memory");
  std::vector<float> gy(3);
  expect_error([&] { es.evaluate(x.data(), y.data(), x.data(), gy.data()); }, "grad_x and x share memory");
  // Back to back (DREAMPlace's flat layout) is fine.
  es.evaluate(x.data(), y.data(), g.data(), g.data() + 3);
}

TEST(HostileInputs, CpuThreadsHaveAnUpperBound) {
  ElectrostaticOptions o = small_options();
  o.cpu_threads = kMaxCpuThreads + 1;
  expect_error([&] { ElectrostaticSystem(o, three_cells()); }, "cpu_threads 1025 is outside 0..1024");
  PlanOptions po;
  po.backend = Backend::Cpu;
  po.cpu_threads = 100000;
  expect_error([&] { Plan2D<float>(Transform2D::Dct2, 64, 64, po); }, "cpu_threads 100000 is outside 0..1024");
  expect_error([&] { Plan1D<float>(Transform1D::Dct, 64, 1, DctAlgorithm::NPoint, po); }, "is outside 0..1024");
  expect_error([&] { Plan3D<float>(Transform3D::Dct, 4, 4, 4, po); }, "is outside 0..1024");
  BlockedDct8Options bo;
  bo.backend = Backend::Cpu;
  bo.cpu_threads = -2;
  expect_error([&] { BlockedDct8<float>(Transform2D::Dct2, 16, 16, bo); }, "cpu_threads -2 is outside");
}

// A pool thread the system refuses to start (here: an address-space limit that leaves no room
// for thread stacks) is an efield::Error, not std::terminate. Run in a child process, whose limit
// does not touch the test; the exit code says what happened.
int start_pool_under_an_address_space_limit() {
  long pages = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f || std::fscanf(f, "%ld %ld", &pages, &resident) != 2) return 3;
  std::fclose(f);
  const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
  const rlimit limit{now + (64u << 20), now + (64u << 20)};  // 64 MiB more: a few 8 MiB stacks
  if (setrlimit(RLIMIT_AS, &limit) != 0) return 4;
  try {
    detail::ThreadPool pool(1000);
  } catch (const Error& e) {
    return std::string(e.what()).find("ThreadPool: could not start thread") != std::string::npos ? 0 : 5;
  }
  return 6;  // 1000 stacks fit in 64 MiB: the limit did not bite
}

TEST(HostileInputsDeathTest, ThreadPoolStartFailureIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::_Exit(start_pool_under_an_address_space_limit()), ::testing::ExitedWithCode(0), "");
}

// The CPU system's per-thread map copies stay within their memory budget: many threads on a big
// grid share fewer copies (and give the same maps as one thread).
TEST(HostileInputs, MapCopiesAreCappedByMemory) {
  using Copies = detail::DensityCopies<float>;
  const std::size_t per_copy = 16;  // bytes per bin
  EXPECT_EQ(Copies::copies_for(8, 1024 * 1024), 8);
  EXPECT_EQ(Copies::copies_for(64, 4096 * 4096), static_cast<int>(Copies::kCopyBudgetBytes / (per_copy * 4096 * 4096)));
  EXPECT_EQ(Copies::copies_for(64, std::size_t(1) << 28), 1);  // the largest grid: one copy
  EXPECT_EQ(Copies::copies_for(0, 16), 1);
}

TEST(HostileInputs, SharedMapCopiesGiveTheSameMaps) {
  // 6 threads sharing 2 copies (a budget of two) give the maps of one thread with its own copy.
  ElectrostaticOptions o = small_options(Precision::Double);
  o.num_bins_x = 64, o.num_bins_y = 48;
  o.xh = 640, o.yh = 480;
  CellSizes cells;
  std::vector<double> x, y;
  for (int i = 0; i < 20000; ++i) {
    cells.widths.push_back(1 + i % 7), cells.heights.push_back(1 + i % 5);
    x.push_back((i * 997) % 630), y.push_back((i * 613) % 470);
  }
  const detail::ElectrostaticDesign d = detail::make_design(o, cells, {}, {});
  const detail::CellGeometry<double> g = detail::make_cell_geometry<double>(d);
  const std::size_t per_copy = 16 * 64 * 48;
  const auto maps = [&](int threads, std::size_t budget) {
    detail::ThreadPool pool(threads);
    detail::DensityCopies<double> copies;
    copies.configure(g, threads, budget);
    EXPECT_EQ(copies.copies(), budget == 0 ? 1 : std::min<int>(threads, static_cast<int>(budget / per_copy)));
    copies.set_sizes(cells.widths.data(), cells.heights.data(), nullptr);
    std::int64_t outside[2];
    copies.rasterize(pool, x.data(), y.data(), std::ldexp(1.0, 20), outside);
    std::vector<std::int64_t> all;
    for (int m = 0; m < 64; ++m) {
      const std::int64_t *mov = nullptr, *fill = nullptr;
      copies.take_row(m, &mov, &fill);
      all.insert(all.end(), mov, mov + 48);
      copies.clear_row(m);
    }
    return all;
  };
  const std::vector<std::int64_t> one = maps(1, per_copy);
  EXPECT_EQ(maps(6, 2 * per_copy), one);
  EXPECT_EQ(maps(6, 6 * per_copy), one);
}

}  // namespace
}  // namespace efield::test
