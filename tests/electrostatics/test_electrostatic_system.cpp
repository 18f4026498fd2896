// The CUDA backend of ElectrostaticSystem: against the float64 reference, against the CPU
// backend, determinism, device pointers, DREAMPlace's flat [x..., y...] layout, graph re-capture
// when the pointers change, a caller's stream. Every test needs a GPU (skipped otherwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/error.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/cuda_runs.hpp"
#include "electrostatics/pipeline_layout.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace efield::test {
namespace {

// One design on CUDA, float and double, device pointers, against its float64 reference.
void expect_both_precisions_match(const TestDesign& d, const ReferenceResult& ref) {
  ElectrostaticSystem f(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
  expect_matches_reference(run_device<float>(f, d), ref, 1e-4, "cuda float");
  ElectrostaticSystem g(with(d.options, Backend::Cuda, Precision::Double), d.movable, d.fillers, d.fixed);
  expect_matches_reference(run_device<double>(g, d), ref, 1e-10, "cuda double");
}

// CUDA against the float64 reference on every reference design, with host and device pointers.
template <typename T>
void expect_cuda_matches_reference(Precision precision, double tolerance) {
  const std::string type = precision == Precision::Float ? "float" : "double";
  for (const DesignSpec& spec : reference_specs()) {
    const std::uint64_t seed = next_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " grid " + std::to_string(spec.M) + "x" + std::to_string(spec.N));
    const TestDesign d = make_random_design(spec, seed);
    const ReferenceResult ref = reference_of(d);
    ElectrostaticSystem es(with(d.options, Backend::Cuda, precision), d.movable, d.fillers, d.fixed);
    expect_matches_reference(run_host<T>(es, d), ref, tolerance, "cuda " + type + ", host pointers");
    expect_matches_reference(run_device<T>(es, d), ref, tolerance, "cuda " + type + ", device pointers");
  }
}

TEST(ElectrostaticCuda, FloatMatchesReference) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_matches_reference<float>(Precision::Float, 1e-4);
}

TEST(ElectrostaticCuda, DoubleMatchesReference) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_matches_reference<double>(Precision::Double, 1e-10);
}

// Fillers of one size are read from the geometry instead of the size arrays (CellGeometry
// uniform_fillers); fillers of mixed sizes, among them one that spans many bins, take the arrays.
TEST(ElectrostaticCuda, FillersOfMixedSizesMatchReference) {
  EFIELD_REQUIRE_GPU();
  for (const DesignSpec& spec : reference_specs()) {
    const std::uint64_t seed = next_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " grid " + std::to_string(spec.M) + "x" + std::to_string(spec.N));
    TestDesign d = make_random_design(spec, seed);
    const size_t nf = d.fillers.widths.size();
    ASSERT_GE(nf, 3u);
    for (size_t i = 0; i < nf; i += 3) d.fillers.widths[i] *= 1.7;  // every third filler wider
    d.fillers.heights[nf / 2] *= 9.0;                                  // one tall filler
    expect_both_precisions_match(d, reference_of(d));
  }
}

// A larger design (no dense reference: too slow) checked against the CPU backend.
TEST(ElectrostaticCuda, AgreesWithCpuOnALargerDesign) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec;
  spec.M = 128;
  spec.N = 96;
  spec.xh = 1280;
  spec.yh = 960;
  spec.td = 0.8;
  spec.num_movable = 20000;
  spec.num_fillers = 5000;
  spec.num_fixed = 30;
  spec.gap = 77;
  const TestDesign d = make_random_design(spec, next_seed());
  for (Precision p : {Precision::Float, Precision::Double}) {
    ElectrostaticSystem cpu(with(d.options, Backend::Cpu, p), d.movable, d.fillers, d.fixed);
    ElectrostaticSystem gpu(with(d.options, Backend::Cuda, p), d.movable, d.fillers, d.fixed);
    const bool f = p == Precision::Float;
    const SystemOutput a = f ? run_host<float>(cpu, d) : run_host<double>(cpu, d);
    const SystemOutput b = f ? run_device<float>(gpu, d) : run_device<double>(gpu, d);
    const double tol = f ? 1e-5 : 1e-12;
    SCOPED_TRACE(f ? "float" : "double");
    expect_close(b, a, tol);
    EXPECT_LE(relative_l2(b.phi, a.phi), tol);
  }
}

TEST(ElectrostaticCuda, DeterministicBitwise) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec = reference_specs()[2];
  spec.num_movable = 3000;  // many cells per bin: atomics collide
  spec.num_fillers = 1000;
  const TestDesign d = make_random_design(spec, next_seed());
  for (Precision p : {Precision::Float, Precision::Double}) {
    ElectrostaticSystem es(with(d.options, Backend::Cuda, p), d.movable, d.fillers, d.fixed);
    ElectrostaticSystem other(with(d.options, Backend::Cuda, p), d.movable, d.fillers, d.fixed);
    const bool f = p == Precision::Float;
    const SystemOutput a = f ? run_device<float>(es, d) : run_device<double>(es, d);
    const SystemOutput b = f ? run_device<float>(es, d) : run_device<double>(es, d);
    const SystemOutput c = f ? run_host<float>(other, d) : run_host<double>(other, d);
    for (const SystemOutput* o : {&b, &c}) {
      EXPECT_EQ(std::memcmp(&a.result, &o->result, sizeof(EvaluateResult)), 0);
      EXPECT_EQ(a.gx, o->gx);
      EXPECT_EQ(a.gy, o->gy);
      EXPECT_EQ(a.rho, o->rho);
      EXPECT_EQ(a.ex, o->ex);
      EXPECT_EQ(a.ey, o->ey);
    }
  }
}

// Graph replay and direct launches run the same kernels: the same bits, also after the
// positions change between calls.
TEST(ElectrostaticCuda, GraphAndDirectLaunchesAgreeBitwise) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec = reference_specs()[1];
  spec.num_movable = 2000;
  spec.num_fillers = 500;
  const TestDesign d = make_random_design(spec, next_seed());
  TestDesign moved = d;
  for (size_t c = 0; c < moved.cx.size(); ++c) moved.cx[c] = d.cx[(c * 7919) % d.cx.size()];  // shuffled x
  std::vector<SystemOutput> outs;
  for (bool graph : {false, true}) {
    ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
    o.use_cuda_graph = graph;
    ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    run_device<float>(es, moved);
    outs.push_back(run_device<float>(es, d));
    outs.push_back(run_host<float>(es, d));
  }
  expect_matches_reference(outs[0], reference_of(d), 1e-4, "direct launches");
  for (size_t k = 1; k < outs.size(); ++k) expect_same_bits(outs[0], outs[k], "variant " + std::to_string(k));
}

// DREAMPlace: one device array pos = [x of all nodes, y of all nodes] with movable cells first,
// fixed terminals, fillers last; the gradient array likewise. No copies, terminals untouched.
TEST(ElectrostaticCuda, DreamPlaceFlatLayoutOnTheDevice) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec = reference_specs()[1];
  spec.gap = 13;  // fixed terminals between the movable cells and the fillers
  const TestDesign d = make_random_design(spec, next_seed());
  const ReferenceResult ref = reference_of(d);
  const std::int64_t nodes = d.array_size;
  ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  o.filler_offset = nodes - static_cast<std::int64_t>(d.fillers.widths.size());
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  std::vector<float> pos = d.array<float>(d.cx, 777.f);
  const std::vector<float> ys = d.array<float>(d.cy, 777.f);
  pos.insert(pos.end(), ys.begin(), ys.end());
  std::vector<float> grad_init(2 * nodes, -5.f);  // sentinel: terminals must keep it
  DeviceArray<float> dpos(pos), dgrad(grad_init);
  const EvaluateResult r = es.evaluate(dpos.get(), dpos.get() + nodes, dgrad.get(), dgrad.get() + nodes);
  const std::vector<float> grad = dgrad.download();
  const std::vector<float> gx(grad.begin(), grad.begin() + nodes), gy(grad.begin() + nodes, grad.end());
  EXPECT_LE(relative_l2(d.per_cell(gx), ref.gx), 1e-4);
  EXPECT_LE(relative_l2(d.per_cell(gy), ref.gy), 1e-4);
  EXPECT_LE(rel_scalar(r.energy, ref.energy), 1e-4);
  EXPECT_LE(rel_scalar(r.overflow, ref.overflow), 1e-4);
  const std::int64_t nm = static_cast<std::int64_t>(d.movable.widths.size());
  for (std::int64_t i = nm; i < o.filler_offset; ++i) {
    EXPECT_EQ(gx[i], -5.f) << "terminal " << i;
    EXPECT_EQ(gy[i], -5.f) << "terminal " << i;
  }
}

// The graph captured for one set of device pointers must not be replayed for another.
TEST(ElectrostaticCuda, NewPointersAreRecaptured) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d1 = make_random_design(reference_specs()[0], next_seed());
  TestDesign d2 = d1;
  for (double& x : d2.cx) x += 3.7;
  for (bool graph : {true, false}) {
    ElectrostaticOptions o = with(d1.options, Backend::Cuda, Precision::Double);
    o.use_cuda_graph = graph;
    ElectrostaticSystem es(o, d1.movable, d1.fillers, d1.fixed);
    SCOPED_TRACE(graph ? "graph" : "no graph");
    expect_matches_reference(run_device<double>(es, d1), reference_of(d1), 1e-10, "first pointers");
    expect_matches_reference(run_device<double>(es, d2), reference_of(d2), 1e-10, "second pointers");
    expect_matches_reference(run_host<double>(es, d1), reference_of(d1), 1e-10, "host again");
  }
}

// The graphs of the latest few pointer sets are kept (graph_cache.cuh): a caller that takes turns
// between buffers, with more sets than are kept and a new weight at each call, gets what direct
// launches give on the same arrays, bit for bit. Each set holds its own positions, so a graph
// replayed for the wrong set would read another set's.
TEST(ElectrostaticCuda, PointerSetsTakingTurnsReplayTheirOwnGraphs) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = make_random_design(reference_specs()[1], next_seed());
  ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  ElectrostaticSystem graphs(o, d.movable, d.fillers, d.fixed);
  o.use_cuda_graph = false;
  ElectrostaticSystem direct(o, d.movable, d.fillers, d.fixed);
  constexpr int kSets = 6;  // more than the graphs kept per choice
  std::vector<std::unique_ptr<DeviceArray<float>>> x, y, gx, gy;
  for (int k = 0; k < kSets; ++k) {
    std::vector<double> cx = d.cx;
    for (double& v : cx) v += 0.37 * k;
    x.push_back(std::make_unique<DeviceArray<float>>(d.array<float>(cx)));
    y.push_back(std::make_unique<DeviceArray<float>>(d.array<float>(d.cy)));
    gx.push_back(std::make_unique<DeviceArray<float>>(poisoned<float>(d.array_size)));
    gy.push_back(std::make_unique<DeviceArray<float>>(poisoned<float>(d.array_size)));
  }
  DeviceArray<float> ogx(poisoned<float>(d.array_size)), ogy(poisoned<float>(d.array_size));
  int call = 0;
  for (int k : {0, 1, 0, 1, 2, 3, 4, 5, 0, 1, 5, 4, 4}) {
    SCOPED_TRACE("call " + std::to_string(call) + ", pointer set " + std::to_string(k));
    EvaluateOptions eo;
    eo.weight = 1.0 + call++ % 3;
    const EvaluateResult r = graphs.evaluate(x[k]->get(), y[k]->get(), gx[k]->get(), gy[k]->get(), eo);
    const EvaluateResult want = direct.evaluate(x[k]->get(), y[k]->get(), ogx.get(), ogy.get(), eo);
    EXPECT_EQ(std::memcmp(&r, &want, sizeof(EvaluateResult)), 0) << r.energy << " vs " << want.energy;
    EXPECT_EQ(d.per_cell(gx[k]->download()), d.per_cell(ogx.download()));
    EXPECT_EQ(d.per_cell(gy[k]->download()), d.per_cell(ogy.download()));
  }
}

TEST(ElectrostaticCuda, CallersStream) {
  EFIELD_REQUIRE_GPU();
#if EFIELD_HAS_CUDA
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  const TestDesign d = make_random_design(reference_specs()[3], next_seed());
  ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  o.stream = stream;
  {
    ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    expect_matches_reference(run_device<float>(es, d), reference_of(d), 1e-4, "caller's stream");
  }
  cudaStreamDestroy(stream);
#endif
}

TEST(ElectrostaticCuda, CpuBackendRejectsDevicePointers) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = make_random_design(reference_specs()[0], next_seed());
  ElectrostaticSystem es(with(d.options, Backend::Cpu, Precision::Float), d.movable, d.fillers, d.fixed);
  DeviceArray<float> x(d.array<float>(d.cx)), y(d.array<float>(d.cy)), gx(d.array_size), gy(d.array_size);
  try {
    es.evaluate(x.get(), y.get(), gx.get(), gy.get());
    ADD_FAILURE() << "no efield::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device pointer"), std::string::npos) << e.what();
  }
}

TEST(ElectrostaticCuda, ProfileStagesReportsEveryStage) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = make_random_design(reference_specs()[2], next_seed());
  ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
  DeviceArray<float> x(d.array<float>(d.cx)), y(d.array<float>(d.cy)), gx(d.array_size), gy(d.array_size);
  const StageTimes t = es.profile_stages(x.get(), y.get(), gx.get(), gy.get(), 5);
  EXPECT_EQ(t.repetitions, 5);
  for (double ms : {t.rasterize_ms, t.forward_fft_ms, t.spectral_ms, t.inverse_fft_ms, t.gather_ms, t.total_ms})
    EXPECT_GT(ms, 0.0);
  // The profiled stages write the same results as evaluate.
  expect_matches_reference(run_device<float>(es, d), reference_of(d), 1e-4, "after profiling");
}

// Every layout: 64-bit bins in one map or in two (float too), and the default (exact float maps in
// float; double picks its maps by grid size).
struct NamedLayout {
  const char* name;
  Maps maps;
  bool wide_float_bins;
};
constexpr NamedLayout kLayouts[] = {{"64-bit bins, one map", Maps::One, true},
                                    {"64-bit bins, two maps", Maps::Two, true},
                                    {"the default (exact float maps)", Maps::BySize, false}};

// Large cells take a warp each up to 16 bins a side (kWarpCellSpan) and a block each beyond: movable
// cells and fillers of both kinds (some partly outside the region) against the reference, in both
// precisions, with one accumulator map and with two (double with one map rasterizes movable cells
// and fillers in two launches, each with its own ranges of both kinds).
TEST(ElectrostaticCuda, LargeCellsOfEverySizeMatchReference) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec;  // 64 x 48 bins of 5 x 10
  spec.M = 64;
  spec.N = 48;
  spec.xh = 320;
  spec.yh = 480;
  spec.num_movable = 300;
  spec.num_fillers = 60;
  spec.num_fixed = 8;
  const std::uint64_t seed = next_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  TestDesign d = make_random_design(spec, seed);
  const double bx = 5, by = 10;
  const size_t nm = d.movable.widths.size();
  for (size_t i = 0; i < nm; i += 10) d.movable.widths[i] = static_cast<double>(6 + i % 9) * bx;  // a warp each
  for (size_t i = 5; i < nm; i += 25) {  // a block each
    d.movable.widths[i] = static_cast<double>(18 + i % 13) * bx;
    d.movable.heights[i] = static_cast<double>(17 + i % 4) * by;
  }
  d.fillers.widths[1] = 10 * bx;   // a warp
  d.fillers.heights[2] = 20 * by;  // a block
  const ReferenceResult ref = reference_of(d);
  for (const Maps maps : {Maps::Two, Maps::One}) {
    const ScopedLayout layout(maps);
    SCOPED_TRACE(maps == Maps::Two ? "two maps" : "one map");
    expect_both_precisions_match(d, ref);
  }
}

// Every layout of the CUDA pipeline against the float64 reference (odd and even grids, cells
// outside the region, macros), in both precisions, and bitwise repeatable.
TEST(ElectrostaticCuda, EveryPipelineLayoutMatchesReference) {
  EFIELD_REQUIRE_GPU();
  const std::vector<DesignSpec> specs = reference_specs();
  std::vector<TestDesign> designs;
  std::vector<ReferenceResult> refs;
  for (const DesignSpec& spec : specs) {
    designs.push_back(make_random_design(spec, next_seed()));
    refs.push_back(reference_of(designs.back()));
  }
  for (const NamedLayout& l : kLayouts) {
    const ScopedLayout layout(l.maps, l.wide_float_bins);
    for (size_t k = 0; k < designs.size(); ++k) {
      const TestDesign& d = designs[k];
      SCOPED_TRACE(std::string(l.name) + ", grid " + std::to_string(specs[k].M) + "x" + std::to_string(specs[k].N));
      ElectrostaticSystem ef(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
      const SystemOutput a = run_device<float>(ef, d);
      expect_matches_reference(a, refs[k], 1e-4, "cuda float, device pointers");
      expect_same_bits(a, run_host<float>(ef, d), "host pointers");
      ElectrostaticSystem ed(with(d.options, Backend::Cuda, Precision::Double), d.movable, d.fillers, d.fixed);
      expect_matches_reference(run_device<double>(ed, d), refs[k], 1e-10, "cuda double, device pointers");
    }
  }
}

// The layouts agree with the CPU backend on a larger design with many colliding atomics, also
// after the fixed cells change (F is kept in the accumulator's layout); in random and in
// spatially sorted cell order the 64-bit bins give the same bits in one map and in two.
TEST(ElectrostaticCuda, EveryPipelineLayoutAgreesWithCpu) {
  EFIELD_REQUIRE_GPU();
  DesignSpec spec;
  spec.M = 96;
  spec.N = 75;
  spec.xh = 960;
  spec.yh = 750;
  spec.td = 0.9;
  spec.num_movable = 12000;
  spec.num_fillers = 3000;
  spec.num_fixed = 20;
  const TestDesign d = make_random_design(spec, next_seed());
  const TestDesign other_fixed = make_random_design(spec, next_seed());
  // The same cells with their positions handed out in spatial order (movable and fillers each).
  TestDesign sorted = d;
  const size_t nm = d.movable.widths.size();
  for (const auto& [begin, end] : {std::pair<size_t, size_t>{0, nm}, {nm, d.cx.size()}}) {
    std::vector<size_t> order(end - begin);
    std::iota(order.begin(), order.end(), begin);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const auto key = [&](size_t c) { return std::make_pair(std::floor(d.cx[c] / 10.0), d.cy[c]); };
      return key(a) < key(b);
    });
    for (size_t k = 0; k < order.size(); ++k) {
      sorted.cx[begin + k] = d.cx[order[k]];
      sorted.cy[begin + k] = d.cy[order[k]];
    }
  }
  ElectrostaticSystem cpu(with(d.options, Backend::Cpu, Precision::Float), d.movable, d.fillers, d.fixed);
  const SystemOutput a = run_host<float>(cpu, d);
  const SystemOutput a_sorted = run_host<float>(cpu, sorted);
  cpu.update_fixed_cells(other_fixed.fixed);
  const SystemOutput a2 = run_host<float>(cpu, d);
  std::vector<SystemOutput> one_map;  // 64-bit bins in one map: design d, sorted
  for (const NamedLayout& l : kLayouts) {
    const ScopedLayout layout(l.maps, l.wide_float_bins);
    SCOPED_TRACE(l.name);
    ElectrostaticSystem gpu(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
    for (int pass = 0; pass < 3; ++pass) {
      if (pass == 2) gpu.update_fixed_cells(other_fixed.fixed);
      const SystemOutput& ref = pass == 0 ? a : pass == 1 ? a_sorted : a2;
      const SystemOutput b = run_device<float>(gpu, pass == 1 ? sorted : d);
      expect_close(b, ref, 1e-5);
      if (pass == 2 || !l.wide_float_bins) continue;
      // Exact accumulation, the same field values and the same summation order: two maps give
      // the bits of one.
      if (l.maps == Maps::One) {
        one_map.push_back(b);
        continue;
      }
      expect_same_bits(one_map[pass], b, "two maps against one");
    }
  }
}

// deterministic = false (float): evaluate takes the deterministic path (the fastest), so it gives
// the deterministic bits, on host and device pointers and through a pile-up; evaluate_async (which
// cannot run again after a pile-up) takes float atomics into float maps, against the float64
// reference to float rounding. Double ignores the option and stays bitwise repeatable.
TEST(ElectrostaticCuda, NonDeterministicTakesTheDeterministicPathInEvaluate) {
  EFIELD_REQUIRE_GPU();
  for (const DesignSpec& spec : reference_specs()) {
    const std::uint64_t seed = next_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " grid " + std::to_string(spec.M) + "x" + std::to_string(spec.N));
    const TestDesign d = make_random_design(spec, seed);
    const ReferenceResult ref = reference_of(d);
    ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
    ElectrostaticSystem deterministic(o, d.movable, d.fillers, d.fixed);
    o.deterministic = false;
    ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
    expect_same_bits(run_device<float>(es, d), run_device<float>(deterministic, d), "device pointers");
    expect_same_bits(run_host<float>(es, d), run_host<float>(deterministic, d), "host pointers");
    const SystemOutput a = run_device_async<float>(es, d);
    expect_matches_reference(a, ref, 1e-4, "evaluate_async: float atomics");
    ElectrostaticOptions od = with(d.options, Backend::Cuda, Precision::Double);
    od.deterministic = false;
    ElectrostaticSystem ed(od, d.movable, d.fillers, d.fixed);
    const SystemOutput c = run_device<double>(ed, d);
    expect_matches_reference(c, ref, 1e-10, "double, deterministic = false");
    EXPECT_EQ(c.rho, run_device<double>(ed, d).rho);
  }
  const TestDesign piled = piled_up(make_random_design(pile_up_spec(), next_seed()));
  ElectrostaticOptions o = with(piled.options, Backend::Cuda, Precision::Float);
  ElectrostaticSystem deterministic(o, piled.movable, piled.fillers, piled.fixed);
  o.deterministic = false;
  ElectrostaticSystem es(o, piled.movable, piled.fillers, piled.fixed);
  for (int pass = 0; pass < 2; ++pass)  // the first evaluate re-runs; the second starts piled
    expect_same_bits(run_device<float>(es, piled), run_device<float>(deterministic, piled), "pile-up");
  expect_matches_reference(run_device_async<float>(es, piled), reference_of(piled), 1e-4,
                           "evaluate_async: float atomics, pile-up");
}

}  // namespace
}  // namespace efield::test
