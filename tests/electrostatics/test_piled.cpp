// CUDA float, deterministic, with the movable cells piled up (a placer's first iterations: more
// than the exact float maps' 64 bin areas in a bin). Such an evaluate is noticed and run with the
// movable cells in 64-bit tiles (summed per block in a shared window around its footprints, the
// contributions outside it added one by one), and the next evaluate after a dense one starts there.
// Both ways sum the same whole numbers of 2^-18 bin areas as the float maps, so the result is the
// same bits whichever way ran: bitwise repeatable, from spread out to piled up and back, and
// against the float64 reference and the CPU backend. Every test needs a GPU (skipped otherwise).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/cuda_runs.hpp"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

// Spread out, piled up (first noticed, then chosen from the previous max density; device and host
// pointers), spread out again (first in 64-bit tiles after the dense evaluate, then in the float
// maps): every pile-up evaluate gives the same bits, as does every spread-out one, with graphs and
// without. The pile-up matches the reference and stays within 2e-5 of the 64-bit bins (2^-32 bin
// areas instead of 2^-18).
TEST(PiledCuda, PileUpIsBitwiseRepeatableFromSpreadToPiledAndBack) {
  EFIELD_REQUIRE_GPU();
  const TestDesign spread = make_random_design(pile_up_spec(), next_seed());
  const TestDesign piled = piled_up(spread);
  const ReferenceResult ref = reference_of(piled);
  for (bool graph : {true, false}) {
    SCOPED_TRACE(graph ? "graph" : "no graph");
    ElectrostaticOptions o = with(spread.options, Backend::Cuda, Precision::Float);
    o.use_cuda_graph = graph;
    ElectrostaticSystem es(o, spread.movable, spread.fillers, spread.fixed);
    const SystemOutput s0 = run_device<float>(es, spread);
    const SystemOutput p0 = run_device<float>(es, piled);
    const SystemOutput p1 = run_device<float>(es, piled);
    const SystemOutput p2 = run_host<float>(es, piled);
    const SystemOutput s1 = run_device<float>(es, spread);
    const SystemOutput s2 = run_device<float>(es, spread);
    EXPECT_LT(s0.result.max_density, 60.0);  // the design is what pile_up_spec says
    EXPECT_GT(p0.result.max_density, 300.0);
    expect_matches_reference(p0, ref, 1e-4, "pile-up");
    expect_same_bits(p0, p1, "pile-up, evaluated again");
    expect_same_bits(p0, p2, "pile-up, host pointers");
    expect_same_bits(s0, s1, "spread out after the pile-up");
    expect_same_bits(s0, s2, "spread out, evaluated again");

    const ScopedLayout wide(Maps::BySize, /*wide_float_bins=*/true);
    ElectrostaticSystem ew(o, spread.movable, spread.fillers, spread.fixed);
    const SystemOutput w = run_device<float>(ew, piled);
    EXPECT_LE(relative_l2(p0.rho, w.rho), 2e-5);
    EXPECT_LE(relative_l2(p0.gx, w.gx), 2e-5);
    EXPECT_LE(relative_l2(p0.gy, w.gy), 2e-5);
  }
}

// The pile-up against the CPU backend (float), as the layouts are checked in
// test_electrostatic_system.cpp, and a fresh system's first evaluate gives the bits of a system
// that has seen the pile-up before.
TEST(PiledCuda, PileUpAgreesWithCpuAndDoesNotDependOnHistory) {
  EFIELD_REQUIRE_GPU();
  const TestDesign spread = make_random_design(pile_up_spec(), next_seed());
  const TestDesign piled = piled_up(spread);
  ElectrostaticSystem cpu(with(piled.options, Backend::Cpu, Precision::Float), piled.movable, piled.fillers,
                          piled.fixed);
  const SystemOutput c = run_host<float>(cpu, piled);
  const ElectrostaticOptions o = with(piled.options, Backend::Cuda, Precision::Float);
  ElectrostaticSystem fresh(o, piled.movable, piled.fillers, piled.fixed);
  const SystemOutput a = run_device<float>(fresh, piled);
  ElectrostaticSystem seasoned(o, piled.movable, piled.fillers, piled.fixed);
  run_device<float>(seasoned, piled);
  run_device<float>(seasoned, spread);
  run_device<float>(seasoned, piled);
  const SystemOutput b = run_device<float>(seasoned, piled);
  expect_same_bits(a, b, "fresh system against one with a history");
  expect_close(a, c, 1e-5);
}

// Between spread out and piled up: 200 of the cells on one spot put about 120 bin areas into a
// bin. The float maps must notice (64), and the result is the pile-up path's on every evaluate.
TEST(PiledCuda, AboveSixtyFourBinAreasIsNoticed) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = piled_up(make_random_design(pile_up_spec(), next_seed()), 200);
  ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
  const SystemOutput a = run_device<float>(es, d);  // float maps, noticed, again in 64-bit tiles
  const SystemOutput b = run_device<float>(es, d);  // 64-bit tiles from the start
  EXPECT_GT(a.result.max_density, 80.0);  // the design is what the comment says
  EXPECT_LT(a.result.max_density, 200.0);
  expect_matches_reference(a, reference_of(d), 1e-4, "above 64 bin areas");
  expect_same_bits(a, b, "evaluated again");
}

// Below the float maps' limit, evaluated right after a pile-up (so in 64-bit tiles) and by a fresh
// system (in the float maps): the same bits. On a 17 x 24 grid a block's footprints fit its shared
// window; on a 128 x 96 grid (12,288 bins, more than the window) cells spread out leave most of each
// block's contributions outside its window, added one by one. Some movable cells on the spot are
// large (a warp or a block each).
TEST(PiledCuda, EveryPathGivesTheFloatMapsBits) {
  EFIELD_REQUIRE_GPU();
  DesignSpec large_grid;
  large_grid.M = 128;
  large_grid.N = 96;
  large_grid.xh = 1280;
  large_grid.yh = 960;
  large_grid.td = 0.9;
  large_grid.num_movable = 12000;
  large_grid.num_fillers = 3000;
  large_grid.num_fixed = 20;
  large_grid.min_size_bins = 1.0;
  struct Case {
    const char* name;
    DesignSpec spec;
    int on_spot;
  };
  for (const Case& k :
       {Case{"17 x 24, windowed", pile_up_spec(), 40}, Case{"128 x 96, partly one by one", large_grid, 40}}) {
    SCOPED_TRACE(k.name);
    TestDesign d = make_random_design(k.spec, next_seed());
    const double bx = (d.options.xh - d.options.xl) / k.spec.M;
    d.movable.widths[3] = 8 * bx;    // a warp
    d.movable.widths[7] = 20 * bx;   // a block
    d.movable.heights[7] = 6 * bx;
    const TestDesign some = piled_up(d, k.on_spot), all = piled_up(d);
    const ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
    ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    const SystemOutput p = run_device<float>(es, all);
    const SystemOutput a = run_device<float>(es, some);  // 64-bit tiles after the pile-up
    ElectrostaticSystem fresh(o, d.movable, d.fillers, d.fixed);
    const SystemOutput b = run_device<float>(fresh, some);  // float maps
    EXPECT_GT(p.result.max_density, 64.0);
    EXPECT_LT(b.result.max_density, 64.0);
    expect_same_bits(a, b, "64-bit tiles, float maps");
    expect_matches_reference(a, reference_of(some), 1e-4, "64-bit tiles");
    expect_matches_reference(p, reference_of(all), 1e-4, "pile-up");
  }
}

}  // namespace
}  // namespace efield::test
