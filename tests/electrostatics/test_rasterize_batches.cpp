// CUDA float, deterministic: the rasterize into the exact float maps with 1, 2 or 4 small cells a
// thread (their loads issued together; EsLaunchRow::float_cells_per_thread), forced through the
// layout hook. Every way adds the same whole numbers of 2^-18 bin areas, so every output has the
// same bits: spread out and piled up, on small odd grids and at adaptec1 scale, with fillers
// behind a gap, fixed cells, large cells, cells partly outside and cell counts that no batch
// divides. Every test needs a GPU (skipped otherwise).
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
  odd.num_movable = 3001;  // cell counts that no batch divides
  odd.num_fillers = 802;
  odd.num_fixed = 10;
  odd.gap = 7;
  DesignSpec wide = odd;  // more bins than a block's window
  wide.M = 128;
  wide.N = 97;
  wide.xh = 1280;
  wide.yh = 970;
  wide.td = 0.9;
  wide.num_movable = 12001;
  wide.num_fillers = 3000;
  wide.num_fixed = 20;
  wide.gap = 0;
  DesignSpec adaptec1 = wide;  // adaptec1 scale
  adaptec1.M = adaptec1.N = 512;
  adaptec1.xh = adaptec1.yh = 5120;
  adaptec1.td = 1.0;
  adaptec1.num_movable = 150000;
  adaptec1.num_fillers = 100001;
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

SystemOutput run_with(int cells_per_thread, const TestDesign& d, bool graph = true) {
  Layout layout;
  layout.float_cells_per_thread = cells_per_thread;
  const ScopedLayout scope(layout);
  ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  o.use_cuda_graph = graph;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  return run_device<float>(es, d);
}

// Spread out, some cells on one spot (below the float maps' 64 bin areas) and all movable cells on
// one spot (flagged, then piled): 2 and 4 cells a thread give the bits of 1, which match the
// float64 reference where it is affordable.
TEST(RasterizeBatchesCuda, SameBitsForEveryBatch) {
  EFIELD_REQUIRE_GPU();
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const TestDesign d = make_random_design(k.spec, next_seed());
    const TestDesign some = piled_up(d, 40), all = piled_up(d);
    for (const TestDesign* t : {&d, &some, &all}) {
      const std::string what = t == &d ? "spread" : t == &some ? "40 on a spot" : "piled";
      const SystemOutput one = run_with(1, *t);
      if (t == &d && k.reference) expect_matches_reference(one, reference_of(*t), 1e-4, "one cell a thread");
      expect_same_bits(run_with(2, *t), one, what + ", 2 cells a thread");
      expect_same_bits(run_with(4, *t), one, what + ", 4 cells a thread");
    }
  }
}

// One system per batch over a placer-like sequence of moves, evaluated twice each step, through
// device and host pointers, with graphs and without: the bits of one cell a thread, and within
// float round-off of the CPU backend.
TEST(RasterizeBatchesCuda, RerunsHostArraysAndCpuAgree) {
  EFIELD_REQUIRE_GPU();
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const TestDesign d = make_random_design(k.spec, next_seed());
    ElectrostaticSystem cpu(with(d.options, Backend::Cpu, Precision::Float), d.movable, d.fillers, d.fixed);
    for (bool graph : {true, false}) {
      SCOPED_TRACE(graph ? "graph" : "no graph");
      for (int batch : {2, 4}) {
        SCOPED_TRACE(std::to_string(batch) + " cells a thread");
        Layout layout;
        layout.float_cells_per_thread = batch;
        const ScopedLayout scope(layout);
        ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
        o.use_cuda_graph = graph;
        ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
        TestDesign t = d;
        for (int step = 0; step < 3; ++step) {
          SCOPED_TRACE("step " + std::to_string(step));
          const SystemOutput a = run_device<float>(es, t);
          const SystemOutput one = run_with(1, t, graph);
          expect_same_bits(a, one, "against one cell a thread");
          expect_same_bits(run_device<float>(es, t), one, "evaluated again");
          expect_same_bits(run_host<float>(es, t), one, "host pointers");
          if (k.reference && batch == 2 && graph) expect_close(a, run_host<float>(cpu, t), 1e-5);
          t = moved(t, 1.5, next_seed());
        }
      }
    }
  }
}

}  // namespace
}  // namespace efield::test
