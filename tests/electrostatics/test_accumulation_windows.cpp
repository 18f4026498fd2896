// CUDA float, deterministic: the exact float maps summed per block in shared windows over the
// cells in bin order (Bins::Windows, kernels/electrostatics/rasterize_windows.cu), with the gather
// in the callers' order or in that bin order, against the tiles of atomics (Bins::Float) through
// the layout hook. Both add the same whole numbers of 2^-18 bin areas, so every output has the
// same bits: spread out and piled up, on small odd grids and at adaptec1 scale, with fillers
// behind a gap, fixed cells, large cells and cells partly outside; with the order fresh, grown
// stale (the cells moved after the sort, or moved anywhere), or sorted at every evaluate. Every
// test needs a GPU (skipped otherwise).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/cuda_runs.hpp"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

using Layout = detail::EsPipelineLayout;
using Spread = Layout::Spread;

struct Case {
  const char* name;
  DesignSpec spec;
  bool reference;  // small enough for the float64 reference
};

std::vector<Case> cases() {
  DesignSpec odd;  // odd sides, a gap before the fillers, movable macros and cells partly outside
  odd.M = 33;
  odd.N = 47;
  odd.xh = 330;
  odd.yh = 470;
  odd.num_movable = 3000;
  odd.num_fillers = 800;
  odd.num_fixed = 10;
  odd.gap = 7;
  DesignSpec wide = odd;  // more bins than a block's window
  wide.M = 128;
  wide.N = 97;
  wide.xh = 1280;
  wide.yh = 970;
  wide.td = 0.9;
  wide.num_movable = 12000;
  wide.num_fillers = 3000;
  wide.num_fixed = 20;
  wide.gap = 0;
  DesignSpec adaptec1 = wide;  // adaptec1 scale
  adaptec1.M = adaptec1.N = 512;
  adaptec1.xh = adaptec1.yh = 5120;
  adaptec1.td = 1.0;
  adaptec1.num_movable = 150000;
  adaptec1.num_fillers = 100000;
  adaptec1.num_fixed = 40;
  adaptec1.min_size_bins = 0.5;
  return {{"17 x 24", pile_up_spec(), true},
          {"33 x 47, gap", odd, true},
          {"128 x 97", wide, true},
          {"512 x 512", adaptec1, false}};
}

// The design with every cell moved by up to `bins` bins per axis (a placer's iteration).
TestDesign moved(TestDesign d, double bins, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-bins, bins);
  const double bx = (d.options.xh - d.options.xl) / d.options.num_bins_x;
  const double by = (d.options.yh - d.options.yl) / d.options.num_bins_y;
  for (size_t c = 0; c < d.cx.size(); ++c) {
    d.cx[c] += u(gen) * bx;
    d.cy[c] += u(gen) * by;
  }
  return d;
}

SystemOutput run_with(const Layout& layout, const TestDesign& d, bool graph = true) {
  const ScopedLayout scope(layout);
  ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  o.use_cuda_graph = graph;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  return run_device<float>(es, d);
}

Layout spread_layout(Spread spread, int resort_every = 0) {
  Layout l;
  l.spread = spread;
  l.resort_every = resort_every;
  return l;
}

// Spread out, some cells on one spot (still below the float maps' 64 bin areas, the windows of
// those blocks small), and all movable cells on one spot (the windows' run is flagged, then
// piled): the bits of the tiles of atomics, with the gather in either order.
TEST(WindowsCuda, SameBitsAsTilesSpreadAndPiled) {
  EFIELD_REQUIRE_GPU();
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const TestDesign d = make_random_design(k.spec, next_seed());
    const TestDesign some = piled_up(d, 40), all = piled_up(d);
    for (const TestDesign* t : {&d, &some, &all}) {
      const std::string what = t == &d ? "spread" : t == &some ? "40 on a spot" : "piled";
      const SystemOutput tiles = run_with(spread_layout(Spread::Tiles), *t);
      if (t == &d && k.reference) expect_matches_reference(tiles, reference_of(*t), 1e-4, "tiles");
      expect_same_bits(run_with(spread_layout(Spread::Windows), *t), tiles, what + ", windows");
      expect_same_bits(run_with(spread_layout(Spread::WindowsBinOrderGather), *t), tiles,
                       what + ", windows, gather in bin order");
    }
  }
}

// One system, its order sorted at the first evaluate only: the cells then move a little, then
// anywhere (another random placement), then pile up and spread again; every evaluate has the bits
// of a fresh system with tiles of atomics at those positions, with graphs and without, through
// device and host pointers, and again when evaluated again.
TEST(WindowsCuda, StaleOrderGivesTheSameBits) {
  EFIELD_REQUIRE_GPU();
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const TestDesign d = make_random_design(k.spec, next_seed());
    TestDesign elsewhere = d;
    const TestDesign other = make_random_design(k.spec, next_seed());
    elsewhere.cx = other.cx;
    elsewhere.cy = other.cy;
    const TestDesign steps[] = {d, moved(d, 0.7, next_seed()), moved(d, 3.0, next_seed()), elsewhere, piled_up(d),
                                d};
    for (bool graph : {true, false}) {
      SCOPED_TRACE(graph ? "graph" : "no graph");
      for (Spread spread : {Spread::Windows, Spread::WindowsBinOrderGather}) {
        const ScopedLayout scope(spread_layout(spread, -1));
        ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
        o.use_cuda_graph = graph;
        ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
        int step = 0;
        for (const TestDesign& t : steps) {
          SCOPED_TRACE("step " + std::to_string(step++));
          const SystemOutput a = run_device<float>(es, t);
          const SystemOutput b = run_device<float>(es, t);
          const SystemOutput h = run_host<float>(es, t);
          const SystemOutput tiles = run_with(spread_layout(Spread::Tiles), t, graph);
          expect_same_bits(a, tiles, "against tiles");
          expect_same_bits(b, tiles, "evaluated again");
          expect_same_bits(h, tiles, "host pointers");
        }
      }
    }
  }
}

// Sorted at every evaluate, over a placer-like sequence of moves: the same bits as the tiles, and
// within float round-off of the CPU backend.
TEST(WindowsCuda, SortedEveryEvaluateAgreesWithTilesAndCpu) {
  EFIELD_REQUIRE_GPU();
  for (const Case& k : cases()) {
    if (!k.reference) continue;
    SCOPED_TRACE(k.name);
    const TestDesign d = make_random_design(k.spec, next_seed());
    ElectrostaticSystem cpu(with(d.options, Backend::Cpu, Precision::Float), d.movable, d.fillers, d.fixed);
    const ScopedLayout scope(spread_layout(Spread::WindowsBinOrderGather, 1));
    ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
    TestDesign t = d;
    for (int step = 0; step < 4; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const SystemOutput a = run_device<float>(es, t);
      expect_same_bits(a, run_with(spread_layout(Spread::Tiles), t), "against tiles");
      expect_close(a, run_host<float>(cpu, t), 1e-5);
      t = moved(t, 1.5, next_seed());
    }
  }
}

}  // namespace
}  // namespace efield::test
