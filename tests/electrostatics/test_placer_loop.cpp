// What a placer loop needs from ElectrostaticSystem: the gradient weighted and accumulated in the
// same pass, zeros at the fixed terminals' entries, size updates without a new system, the area
// outside the region, the exact gradient of the energy, the asynchronous evaluate, DREAMPlace's
// filler width and several GPUs. CPU tests run everywhere; CUDA tests skip without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "efield/efield.hpp"
#include "electrostatics/compare.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace efield::test {
namespace {

TestDesign small_design(std::uint64_t seed, int gap = 0) {
  DesignSpec spec;
  spec.gap = gap;
  return make_random_design(spec, seed);
}

// One evaluate through host or device arrays (device: on the current device), given the gradient
// arrays' starting contents; returns the gradient arrays in the caller's layout.
template <typename T>
struct Outcome {
  EvaluateResult result;
  std::vector<T> gx, gy;
};
template <typename T>
Outcome<T> run(ElectrostaticSystem& es, const TestDesign& d, const EvaluateOptions& eo, std::vector<T> gx,
           std::vector<T> gy, bool device = false) {
  const std::vector<T> x = d.array<T>(d.cx), y = d.array<T>(d.cy);
  Outcome<T> r;
  if (!device) {
    r.result = es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo);
    r.gx = gx;
    r.gy = gy;
    return r;
  }
  DeviceArray<T> dx(x), dy(y), dgx(gx), dgy(gy);
  r.result = es.evaluate(dx.get(), dy.get(), dgx.get(), dgy.get(), eo);
  r.gx = dgx.download();
  r.gy = dgy.download();
  return r;
}

template <typename T>
std::vector<T> filled(const TestDesign& d, T value) {
  return std::vector<T>(static_cast<size_t>(d.array_size), value);
}

void expect_same_result(const EvaluateResult& a, const EvaluateResult& b, const std::string& what) {
  EXPECT_EQ(a.energy, b.energy) << what;
  EXPECT_EQ(a.overflow, b.overflow) << what;
  EXPECT_EQ(a.max_density, b.max_density) << what;
  EXPECT_EQ(a.movable_area_outside, b.movable_area_outside) << what;
  EXPECT_EQ(a.filler_area_outside, b.filler_area_outside) << what;
}

// weight * g and old + weight * g, against a plain evaluate's g, for both backends.
template <typename T>
void check_weight_and_accumulate(Backend backend, bool device) {
  const TestDesign d = small_design(11, 5);
  ElectrostaticOptions o = with(d.options, backend, std::is_same_v<T, float> ? Precision::Float : Precision::Double);
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  const Outcome<T> plain = run<T>(es, d, {}, filled<T>(d, T(7)), filled<T>(d, T(7)), device);
  const T w = T(2.5);
  const Outcome<T> weighted = run<T>(es, d, {2.5, false}, filled<T>(d, T(7)), filled<T>(d, T(7)), device);
  std::vector<T> start_x(static_cast<size_t>(d.array_size)), start_y = start_x;
  for (size_t k = 0; k < start_x.size(); ++k) start_x[k] = T(0.25) * static_cast<T>(k % 13), start_y[k] = -T(k % 7);
  const Outcome<T> added = run<T>(es, d, {2.5, true}, start_x, start_y, device);
  const Outcome<T> again = run<T>(es, d, {}, filled<T>(d, T(7)), filled<T>(d, T(7)), device);
  expect_same_result(plain.result, weighted.result, "weighted");
  expect_same_result(plain.result, added.result, "accumulated");
  const std::vector<double> g = d.per_cell(plain.gx), gy = d.per_cell(plain.gy);
  const std::vector<double> wx = d.per_cell(weighted.gx), ax = d.per_cell(added.gx), ay = d.per_cell(added.gy);
  const std::vector<double> sx = d.per_cell(start_x), sy = d.per_cell(start_y);
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (size_t c = 0; c < g.size(); ++c) {
    // The CUDA gather sums weighted field values (the weight is folded into its field map).
    EXPECT_NEAR(wx[c], static_cast<double>(w * static_cast<T>(g[c])), tol * (1 + std::abs(2.5 * g[c]))) << c;
    EXPECT_NEAR(ax[c], sx[c] + 2.5 * g[c], tol * (1 + std::abs(sx[c]) + std::abs(2.5 * g[c]))) << c;
    EXPECT_NEAR(ay[c], sy[c] + 2.5 * gy[c], tol * (1 + std::abs(sy[c]) + std::abs(2.5 * gy[c]))) << c;
  }
  // Entries of the gap (fixed terminals) are untouched by default; a weight of 1 again gives g.
  const std::int64_t nm = static_cast<std::int64_t>(d.movable.widths.size());
  for (std::int64_t k = nm; k < d.options.filler_offset; ++k) EXPECT_EQ(added.gx[k], start_x[k]) << k;
  EXPECT_EQ(again.gx, plain.gx);
  EXPECT_EQ(again.gy, plain.gy);
}

TEST(PlacerLoopCpu, WeightAndAccumulate) {
  check_weight_and_accumulate<float>(Backend::Cpu, false);
  check_weight_and_accumulate<double>(Backend::Cpu, false);
}

// zero_gap_gradient writes zeros between the movable and filler ranges, except when accumulating.
template <typename T>
void check_zero_gap(Backend backend, bool device) {
  const TestDesign d = small_design(12, 9);
  ElectrostaticOptions o = with(d.options, backend, std::is_same_v<T, float> ? Precision::Float : Precision::Double);
  o.zero_gap_gradient = true;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const Outcome<T> r = run<T>(es, d, {}, filled<T>(d, nan), filled<T>(d, nan), device);
  const std::int64_t nm = static_cast<std::int64_t>(d.movable.widths.size());
  ASSERT_GT(d.options.filler_offset, nm);
  for (std::int64_t k = nm; k < d.options.filler_offset; ++k) {
    EXPECT_EQ(r.gx[k], T(0)) << k;
    EXPECT_EQ(r.gy[k], T(0)) << k;
  }
  const Outcome<T> acc = run<T>(es, d, {1.0, true}, filled<T>(d, T(3)), filled<T>(d, T(3)), device);
  for (std::int64_t k = nm; k < d.options.filler_offset; ++k) EXPECT_EQ(acc.gx[k], T(3)) << k;
}

TEST(PlacerLoopCpu, ZeroGapGradient) {
  check_zero_gap<float>(Backend::Cpu, false);
  check_zero_gap<double>(Backend::Cpu, false);
}

// update_movable_sizes / update_filler_sizes give what a freshly built system gives, bitwise.
template <typename T>
void check_size_updates(Backend backend, bool device) {
  const TestDesign d = small_design(13);
  TestDesign bigger = d;
  for (size_t i = 0; i < bigger.movable.widths.size(); ++i) {
    bigger.movable.widths[i] *= i % 3 == 0 ? 1.7 : 1.1;  // some cells become large cells
    bigger.movable.heights[i] *= i % 5 == 0 ? 2.5 : 1.0;
  }
  for (double& w : bigger.fillers.widths) w *= 0.8;
  const Precision p = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  ElectrostaticSystem updated(with(d.options, backend, p), d.movable, d.fillers, d.fixed);
  run<T>(updated, d, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), device);
  updated.update_movable_sizes(bigger.movable);
  updated.update_filler_sizes(bigger.fillers);
  ElectrostaticSystem fresh(with(d.options, backend, p), bigger.movable, bigger.fillers, bigger.fixed);
  const Outcome<T> a = run<T>(updated, bigger, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), device);
  const Outcome<T> b = run<T>(fresh, bigger, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), device);
  expect_same_result(a.result, b.result, "updated sizes");
  EXPECT_EQ(a.gx, b.gx);
  EXPECT_EQ(a.gy, b.gy);
  EXPECT_EQ(updated.density_map(), fresh.density_map());
  // Counts cannot change; bad sizes are refused like the constructor's.
  CellSizes fewer = bigger.movable;
  fewer.widths.pop_back();
  fewer.heights.pop_back();
  EXPECT_THROW(updated.update_movable_sizes(fewer), Error);
  CellSizes bad = bigger.movable;
  bad.widths[3] = -1;
  EXPECT_THROW(updated.update_movable_sizes(bad), Error);
}

TEST(PlacerLoopCpu, SizeUpdatesEqualAFreshSystem) {
  check_size_updates<float>(Backend::Cpu, false);
  check_size_updates<double>(Backend::Cpu, false);
}

// The area outside the region: 0 for cells inside, the whole area for cells outside, the part
// outside for cells across the edge (stretched footprints keep each cell's area).
template <typename T>
void check_outside_area(Backend backend, bool device) {
  TestDesign d;
  d.options.xl = 0, d.options.yl = 0, d.options.xh = 100, d.options.yh = 100;
  d.options.num_bins_x = 10, d.options.num_bins_y = 10;
  d.movable = CellSizes{{4, 30, 20, 6}, {4, 10, 20, 2}};
  d.cx = {50, 90, -500, 20};  // inside; 20 of 30 across the right edge; wholly outside; inside
  d.cy = {50, 50, 40, 20};
  d.fillers = CellSizes{{10, 10}, {10, 10}};
  d.cx.insert(d.cx.end(), {5, 95});  // inside; half outside
  d.cy.insert(d.cy.end(), {5, 40});
  d.array_size = 6;
  const Precision p = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  ElectrostaticSystem es(with(d.options, backend, p), d.movable, d.fillers, d.fixed);
  const Outcome<T> r = run<T>(es, d, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), device);
  const double tol = std::is_same_v<T, float> ? 1e-3 : 1e-9;
  EXPECT_NEAR(r.result.movable_area_outside, 20 * 10 + 400, tol);
  EXPECT_NEAR(r.result.filler_area_outside, 50, tol);
  // Everything inside: exactly 0.
  d.cx = {50, 50, 40, 20, 5, 60};
  const Outcome<T> in = run<T>(es, d, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), device);
  EXPECT_EQ(in.result.movable_area_outside, 0.0);
  EXPECT_EQ(in.result.filler_area_outside, 0.0);
}

TEST(PlacerLoopCpu, AreaOutsideTheRegion) {
  check_outside_area<float>(Backend::Cpu, false);
  check_outside_area<double>(Backend::Cpu, false);
}

// GradientScale::Exact is the derivative of the returned energy: central differences in double,
// with steps small enough that no footprint edge crosses a bin boundary.
void check_exact_gradient(Backend backend, bool device) {
  TestDesign d = small_design(14);
  ElectrostaticOptions o = with(d.options, backend, Precision::Double);
  o.gradient_scale = GradientScale::Exact;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  const Outcome<double> r = run<double>(es, d, {}, filled<double>(d, 0.0), filled<double>(d, 0.0), device);
  const std::vector<double> gx = d.per_cell(r.gx), gy = d.per_cell(r.gy);
  // Steps well above the double pipeline's fixed-point resolution (2^-40 bin areas a contribution).
  const double h = 1e-3;
  double scale = 0;
  for (size_t c = 0; c < gx.size(); ++c) scale = std::max({scale, std::abs(gx[c]), std::abs(gy[c])});
  int checked = 0;
  double worst = 0;
  for (size_t c = 0; c < d.cx.size(); c += 7) {
    for (int axis = 0; axis < 2; ++axis) {
      std::vector<double>& pos = axis == 0 ? d.cx : d.cy;
      const double keep = pos[c];
      pos[c] = keep + h;
      const double ep = run<double>(es, d, {}, filled<double>(d, 0.0), filled<double>(d, 0.0), device).result.energy;
      pos[c] = keep - h;
      const double em = run<double>(es, d, {}, filled<double>(d, 0.0), filled<double>(d, 0.0), device).result.energy;
      pos[c] = keep;
      const double fd = (ep - em) / (2 * h), g = axis == 0 ? gx[c] : gy[c];
      const double err = std::abs(fd - g) / (1e-3 * scale + std::abs(fd));
      worst = std::max(worst, err);
      EXPECT_LT(err, 1e-5) << "cell " << c << " axis " << axis << ": finite difference " << fd << ", gradient " << g;
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
  ::testing::Test::RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(PlacerLoopCpu, ExactGradientIsTheEnergysDerivative) { check_exact_gradient(Backend::Cpu, false); }

// The default scale is DREAMPlace's field estimate: along the exact gradient, not equal to it.
TEST(PlacerLoopCpu, DreamPlaceScalePointsAlongTheExactGradient) {
  const TestDesign d = small_design(15);
  ElectrostaticOptions o = with(d.options, Backend::Cpu, Precision::Double);
  ElectrostaticSystem field(o, d.movable, d.fillers, d.fixed);
  o.gradient_scale = GradientScale::Exact;
  ElectrostaticSystem exact(o, d.movable, d.fillers, d.fixed);
  const Outcome<double> a = run<double>(field, d, {}, filled<double>(d, 0.0), filled<double>(d, 0.0));
  const Outcome<double> b = run<double>(exact, d, {}, filled<double>(d, 0.0), filled<double>(d, 0.0));
  expect_same_result(a.result, b.result, "the scale changes only the gradient");
  const std::vector<double> ga = d.per_cell(a.gx), gb = d.per_cell(b.gx);
  double dot = 0, na = 0, nb = 0;
  for (size_t c = 0; c < ga.size(); ++c) dot += ga[c] * gb[c], na += ga[c] * ga[c], nb += gb[c] * gb[c];
  EXPECT_GT(dot / std::sqrt(na * nb), 0.8);
}

TEST(PlacerLoopCpu, AsyncAndDeviceOnTheCpu) {
  const TestDesign d = small_design(16);
  ElectrostaticSystem es(with(d.options, Backend::Cpu, Precision::Float), d.movable, d.fillers, d.fixed);
  EXPECT_EQ(es.device(), -1);
  EXPECT_EQ(es.device_result(), nullptr);
  const Outcome<float> r = run<float>(es, d, {}, filled<float>(d, 0.f), filled<float>(d, 0.f));
  expect_same_result(es.wait_result(), r.result, "wait_result after evaluate");
  std::vector<float> x = d.array<float>(d.cx), y = d.array<float>(d.cy), g(static_cast<size_t>(d.array_size));
  EXPECT_THROW(es.evaluate_async(x.data(), y.data(), g.data(), g.data()), Error);
  EXPECT_THROW(es.evaluate(x.data(), y.data(), g.data(), g.data(), {std::nan(""), false}), Error);
  es.set_stream(nullptr);  // ignored on the CPU
  ElectrostaticSystem moved = std::move(es);
  EXPECT_THROW(es.evaluate(x.data(), y.data(), g.data(), g.data()), Error);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW(es.density_map(), Error);                                     // NOLINT(bugprone-use-after-move)
}

// DREAMPlace's filler width on adaptec1 at td 1.0: 160,067 fillers of 14.441956 x 12.
TEST(PlacerLoopCpu, Adaptec1FillersMatchDreamPlace) {
  const std::string aux = EFIELD_SHARED_DATA_DIR "/bookshelf/adaptec1/adaptec1.aux";
  if (!std::filesystem::exists(aux)) GTEST_SKIP() << "shared design adaptec1 not found under " EFIELD_SHARED_DATA_DIR;
  BookshelfLoadOptions lo;
  lo.allow_missing_nets = true;
  const PlacementInputs in = placement_inputs(load_bookshelf(aux, lo));
  const FillerSpec f = make_fillers(in.movable, in.fixed, in.region.xl, in.region.yl, in.region.xh, in.region.yh, 1.0,
                                    in.row_height);
  EXPECT_EQ(f.count, 160067);
  EXPECT_NEAR(f.width, 14.441956, 5e-7);
  EXPECT_EQ(f.height, 12);
}

// Without a device (or without CUDA) PinnedHostRange does nothing and no memory is page-locked.
TEST(PlacerLoopCpu, PinnedHostRangeWithoutADevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present (PlacerLoopCuda.PinnedHostRange* covers it)";
  std::vector<float> v(1000, 1.0f);
  const PinnedHostRange pin(v.data(), v.size() * sizeof(float));
  EXPECT_FALSE(pin.registered());
  EXPECT_FALSE(is_pinned_host_pointer(v.data()));
}

// ---- CUDA: the same checks on the device, and several GPUs ----

TEST(PlacerLoopCuda, WeightAccumulateAndZeroGap) {
  EFIELD_REQUIRE_GPU();
  check_weight_and_accumulate<float>(Backend::Cuda, true);
  check_weight_and_accumulate<double>(Backend::Cuda, true);
  check_weight_and_accumulate<float>(Backend::Cuda, false);  // host arrays through the staging
  check_zero_gap<float>(Backend::Cuda, true);
  check_zero_gap<double>(Backend::Cuda, true);
  check_zero_gap<float>(Backend::Cuda, false);
}

// Host arrays give the bits of device arrays (kernels/electrostatics/host_arrays.cuh): written
// and accumulated, weighted, the exact gradient, zeros at the gap; pageable and page-locked
// (PinnedHostRange); one chunk of the staging (small designs) and several, with chunk edges
// inside the movable and the filler ranges (large); and a pile-up, where the float pipeline runs
// again with 64-bit bins.
template <typename T>
Outcome<T> run_pinned(ElectrostaticSystem& es, const TestDesign& d, const EvaluateOptions& eo, std::vector<T> gx,
                      std::vector<T> gy) {
  std::vector<T> x = d.array<T>(d.cx), y = d.array<T>(d.cy);
  const std::size_t bytes = x.size() * sizeof(T);
  const PinnedHostRange pins[4] = {{x.data(), bytes}, {y.data(), bytes}, {gx.data(), bytes}, {gy.data(), bytes}};
  for (const PinnedHostRange& p : pins) EXPECT_TRUE(p.registered());
  EXPECT_TRUE(is_pinned_host_pointer(x.data() + x.size() - 1));
  Outcome<T> r;
  r.result = es.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo);
  r.gx = gx;
  r.gy = gy;
  return r;
}

template <typename T>
void expect_same_bits(const std::vector<T>& a, const std::vector<T>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0) << what;
}

// start + (weight * g as a non-accumulating evaluate writes it) at the cells' entries, start
// elsewhere: what an accumulating evaluate must leave.
template <typename T>
std::vector<T> added(const TestDesign& d, const std::vector<T>& start, const std::vector<T>& written) {
  std::vector<T> r = start;
  const std::int64_t nm = static_cast<std::int64_t>(d.movable.widths.size());
  const std::int64_t nc = nm + static_cast<std::int64_t>(d.fillers.widths.size());
  const std::int64_t fo = d.options.filler_offset < 0 ? nm : d.options.filler_offset;
  for (std::int64_t c = 0; c < nc; ++c) {
    const size_t i = static_cast<size_t>(c < nm ? c : fo + (c - nm));
    r[i] = start[i] + written[i];
  }
  return r;
}

template <typename T>
void check_host_equals_device(const TestDesign& d, GradientScale scale, const std::string& name) {
  ElectrostaticOptions o = with(d.options, Backend::Cuda, std::is_same_v<T, float> ? Precision::Float : Precision::Double);
  o.gradient_scale = scale;
  o.zero_gap_gradient = true;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  std::vector<T> start_x(static_cast<size_t>(d.array_size)), start_y = start_x;
  for (size_t k = 0; k < start_x.size(); ++k) start_x[k] = T(0.25) * static_cast<T>(k % 13), start_y[k] = -T(k % 7);
  const EvaluateOptions calls[] = {{}, {2.5, false}, {-0.75, true}, {1.0, true}};
  for (const EvaluateOptions& eo : calls) {
    const std::string what = name + (std::is_same_v<T, float> ? " float" : " double") +
                             (scale == GradientScale::Exact ? " exact" : "") + " weight " + std::to_string(eo.weight) +
                             (eo.accumulate ? " accumulate" : "");
    // What the device writes without accumulating, and from it what every call must leave.
    const Outcome<T> written = run<T>(es, d, {eo.weight, false}, start_x, start_y, true);
    const std::vector<T> want_x = eo.accumulate ? added(d, start_x, written.gx) : written.gx;
    const std::vector<T> want_y = eo.accumulate ? added(d, start_y, written.gy) : written.gy;
    {
      const Outcome<T> dev = run<T>(es, d, eo, start_x, start_y, true);
      expect_same_result(written.result, dev.result, what + " device");
      expect_same_bits(want_x, dev.gx, what + " device gx");
      expect_same_bits(want_y, dev.gy, what + " device gy");
    }
    const Outcome<T> pageable = run<T>(es, d, eo, start_x, start_y, false);
    const Outcome<T> pinned = run_pinned<T>(es, d, eo, start_x, start_y);
    expect_same_result(written.result, pageable.result, what + " pageable");
    expect_same_result(written.result, pinned.result, what + " pinned");
    expect_same_bits(want_x, pageable.gx, what + " pageable gx");
    expect_same_bits(want_y, pageable.gy, what + " pageable gy");
    expect_same_bits(want_x, pinned.gx, what + " pinned gx");
    expect_same_bits(want_y, pinned.gy, what + " pinned gy");
  }
}

// 270,000 cells with a gap: staging chunks (float: 2^16 values, double: 2^15) end inside the
// movable range and inside the fillers, and one holds both.
TestDesign large_design(bool piled) {
  DesignSpec spec;
  spec.M = spec.N = 128;
  spec.xh = spec.yh = 1280;
  spec.num_movable = 150000;
  spec.num_fillers = 120000;
  spec.num_fixed = 20;
  spec.gap = 3;
  TestDesign d = make_random_design(spec, 21);
  if (piled) {  // every movable cell within a bin of the centre
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> near(630, 650);
    for (size_t c = 0; c < d.movable.widths.size(); ++c) d.cx[c] = near(gen), d.cy[c] = near(gen);
  }
  return d;
}

TEST(PlacerLoopCuda, HostArraysGiveTheBitsOfDeviceArrays) {
  EFIELD_REQUIRE_GPU();
  const TestDesign small = small_design(23, 5), large = large_design(false), piled = large_design(true);
  for (GradientScale scale : {GradientScale::DreamPlace, GradientScale::Exact}) {
    check_host_equals_device<float>(small, scale, "small");
    check_host_equals_device<double>(small, scale, "small");
  }
  check_host_equals_device<float>(large, GradientScale::DreamPlace, "large");
  check_host_equals_device<double>(large, GradientScale::DreamPlace, "large");
  check_host_equals_device<float>(piled, GradientScale::DreamPlace, "piled");
}

// A pile-up in a system's first evaluate (float, deterministic) runs the pipeline again with wider
// bins; the first run's gather writes nothing (the density pass's flag), so an accumulating
// evaluate on device arrays adds one run's gradient: the bits of start + (a fresh system's
// non-accumulating gradient).
TEST(PlacerLoopCuda, DeviceAccumulateInAPileUpAddsOnce) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = large_design(true);
  const ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  std::vector<float> start_x(static_cast<size_t>(d.array_size)), start_y = start_x;
  for (size_t k = 0; k < start_x.size(); ++k) start_x[k] = 0.5f * static_cast<float>(k % 11), start_y[k] = -float(k % 5);
  for (double weight : {1.0, -0.75}) {
    const std::string what = "piled, first evaluate, weight " + std::to_string(weight);
    ElectrostaticSystem fresh_written(o, d.movable, d.fillers, d.fixed), fresh_added(o, d.movable, d.fillers, d.fixed);
    const Outcome<float> written = run<float>(fresh_written, d, {weight, false}, start_x, start_y, true);
    const Outcome<float> summed = run<float>(fresh_added, d, {weight, true}, start_x, start_y, true);
    ASSERT_GT(written.result.max_density, 64.0) << what << ": the design must pile past the float maps' limit";
    expect_same_result(written.result, summed.result, what);
    expect_same_bits(added(d, start_x, written.gx), summed.gx, what + " gx");
    expect_same_bits(added(d, start_y, written.gy), summed.gy, what + " gy");
  }
}

// Host positions are checked on the device: a NaN or an infinity is an error naming the cell,
// pageable or page-locked, and the next evaluate with good positions works.
TEST(PlacerLoopCuda, NonFiniteHostPositionsAreNamed) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = large_design(false);
  ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
  std::vector<float> x = d.array<float>(d.cx), y = d.array<float>(d.cy), gx(x.size()), gy(x.size());
  const std::size_t bytes = x.size() * sizeof(float);
  const std::int64_t filler_index = d.options.filler_offset + 99999;  // filler 99999, in the last chunk
  for (bool pinned : {false, true}) {
    std::vector<PinnedHostRange> pins;
    if (pinned)
      for (std::vector<float>* v : {&x, &y, &gx, &gy}) pins.emplace_back(v->data(), bytes);
    x[140000] = std::numeric_limits<float>::quiet_NaN();
    try {
      es.evaluate(x.data(), y.data(), gx.data(), gy.data());
      ADD_FAILURE() << "no error for a NaN position";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("movable cell 140000"), std::string::npos) << e.what();
    }
    x[140000] = 1;
    y[filler_index] = -std::numeric_limits<float>::infinity();
    try {
      es.evaluate(x.data(), y.data(), gx.data(), gy.data());
      ADD_FAILURE() << "no error for an infinite position";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("filler cell 99999"), std::string::npos) << e.what();
    }
    y[filler_index] = 1;
    const EvaluateResult r = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
    EXPECT_TRUE(std::isfinite(r.energy));
  }
}

// A range PinnedHostRange registered is page-locked until the object goes; memory that already
// is stays as it is.
TEST(PlacerLoopCuda, PinnedHostRangeRegistersAndReleases) {
  EFIELD_REQUIRE_GPU();
  std::vector<double> v(100000, 1.0);
  EXPECT_FALSE(is_pinned_host_pointer(v.data()));
  {
    PinnedHostRange pin(v.data(), v.size() * sizeof(double));
    EXPECT_TRUE(pin.registered());
    EXPECT_TRUE(is_pinned_host_pointer(v.data() + v.size() - 1));
    PinnedHostRange again(v.data(), v.size() * sizeof(double));
    EXPECT_FALSE(again.registered());
    PinnedHostRange moved = std::move(pin);
    EXPECT_TRUE(moved.registered());
    EXPECT_FALSE(pin.registered());  // NOLINT(bugprone-use-after-move): the move leaves it empty
  }
  EXPECT_FALSE(is_pinned_host_pointer(v.data()));
}

TEST(PlacerLoopCuda, SizeUpdatesOutsideAreaAndExactGradient) {
  EFIELD_REQUIRE_GPU();
  check_size_updates<float>(Backend::Cuda, true);
  check_size_updates<double>(Backend::Cuda, true);
  check_outside_area<float>(Backend::Cuda, true);
  check_outside_area<double>(Backend::Cuda, true);
  check_exact_gradient(Backend::Cuda, true);
}

// The CPU and CUDA backends agree on the outside areas and the exact gradient (double).
TEST(PlacerLoopCuda, AgreesWithCpu) {
  EFIELD_REQUIRE_GPU();
  const TestDesign d = small_design(17, 3);
  ElectrostaticOptions o = d.options;
  o.gradient_scale = GradientScale::Exact;
  ElectrostaticSystem cpu(with(o, Backend::Cpu, Precision::Double), d.movable, d.fillers, d.fixed);
  ElectrostaticSystem gpu(with(o, Backend::Cuda, Precision::Double), d.movable, d.fillers, d.fixed);
  const Outcome<double> a = run<double>(cpu, d, {-0.5, false}, filled<double>(d, 0.0), filled<double>(d, 0.0));
  const Outcome<double> b = run<double>(gpu, d, {-0.5, false}, filled<double>(d, 0.0), filled<double>(d, 0.0), true);
  EXPECT_NEAR(a.result.energy, b.result.energy, 1e-10 * std::abs(a.result.energy));
  EXPECT_NEAR(a.result.movable_area_outside, b.result.movable_area_outside, 1e-9);
  EXPECT_NEAR(a.result.filler_area_outside, b.result.filler_area_outside, 1e-9);
  for (std::int64_t k = 0; k < d.array_size; ++k) EXPECT_NEAR(a.gx[k], b.gx[k], 1e-9 * (1 + std::abs(a.gx[k]))) << k;
}

#if EFIELD_HAS_CUDA
// evaluate_async on a caller's stream: the same gradient and scalars as evaluate, no host wait in
// between (the gradients of two evaluates accumulate on the stream), and capturable into the
// caller's own graph.
template <typename T>
void check_async_on(const TestDesign& d, cudaStream_t stream, bool deterministic);
template <typename T>
void check_async(bool deterministic) {
  const TestDesign d = small_design(18);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  check_async_on<T>(d, stream, deterministic);
  cudaStreamDestroy(stream);
}
template <typename T>
void check_async_on(const TestDesign& d, cudaStream_t stream, bool deterministic) {
  ElectrostaticOptions o = with(d.options, Backend::Cuda, std::is_same_v<T, float> ? Precision::Float : Precision::Double);
  o.deterministic = deterministic;
  o.stream = stream;
  ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  const Outcome<T> sync = run<T>(es, d, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), true);
  DeviceArray<T> x(d.array<T>(d.cx)), y(d.array<T>(d.cy)), gx(filled<T>(d, T(0))), gy(filled<T>(d, T(0)));
  es.evaluate_async(x.get(), y.get(), gx.get(), gy.get(), {1.0, true});
  es.evaluate_async(x.get(), y.get(), gx.get(), gy.get(), {2.0, true});
  const EvaluateResult r = es.wait_result();
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
  EXPECT_NEAR(r.energy, sync.result.energy, tol * std::abs(sync.result.energy));
  EXPECT_NEAR(r.overflow, sync.result.overflow, tol);
  const std::vector<double> expect = d.per_cell(sync.gx), got = d.per_cell(gx.download());
  for (size_t c = 0; c < got.size(); ++c) EXPECT_NEAR(got[c], 3 * expect[c], tol * (1 + std::abs(3 * expect[c]))) << c;
  ASSERT_NE(es.device_result(), nullptr);
  EXPECT_EQ(es.device_result()[0], r.energy);

  // Captured into the caller's graph, replayed twice: two more accumulations.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  es.evaluate_async(x.get(), y.get(), gx.get(), gy.get(), {1.0, true});
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  const std::vector<double> got5 = d.per_cell(gx.download());
  for (size_t c = 0; c < got5.size(); ++c)
    EXPECT_NEAR(got5[c], 5 * expect[c], tol * (1 + std::abs(5 * expect[c]))) << c;
  EXPECT_NEAR(es.device_result()[0], sync.result.energy, tol * std::abs(sync.result.energy));
  // A blocking evaluate after the caller's replays still uses its own weight.
  const Outcome<T> after = run<T>(es, d, {}, filled<T>(d, T(0)), filled<T>(d, T(0)), true);
  if (deterministic) {
    EXPECT_EQ(after.gx, sync.gx);
  } else {  // float atomics: the last bits follow the atomics' order
    for (size_t k = 0; k < after.gx.size(); ++k)
      EXPECT_NEAR(after.gx[k], sync.gx[k], tol * (1 + std::abs(sync.gx[k]))) << k;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST(PlacerLoopCuda, AsyncEvaluate) {
  EFIELD_REQUIRE_GPU();
  check_async<float>(true);
  check_async<float>(false);
  check_async<double>(true);
  // Host arrays cannot go asynchronously.
  const TestDesign d = small_design(19);
  ElectrostaticSystem es(with(d.options, Backend::Cuda, Precision::Float), d.movable, d.fillers, d.fixed);
  std::vector<float> x = d.array<float>(d.cx), y = d.array<float>(d.cy), g(static_cast<size_t>(d.array_size));
  EXPECT_THROW(es.evaluate_async(x.data(), y.data(), g.data(), g.data()), Error);
}

// Systems on two GPUs, driven from one thread with either device current and from one thread
// per GPU: each gives its single-GPU result, and the caller's current device is left as it was.
TEST(PlacerLoopCuda, TwoGpus) {
  EFIELD_REQUIRE_GPU();
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA devices (found " << cuda_device_count() << ")";
  const TestDesign d = small_design(20);
  const ElectrostaticOptions o = with(d.options, Backend::Cuda, Precision::Float);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ElectrostaticSystem reference(o, d.movable, d.fillers, d.fixed);
  const Outcome<float> expect = run<float>(reference, d, {}, filled<float>(d, 0.f), filled<float>(d, 0.f), true);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ElectrostaticSystem on1(o, d.movable, d.fillers, d.fixed);
  EXPECT_EQ(on1.device(), 1);
  const Outcome<float> a = run<float>(on1, d, {}, filled<float>(d, 0.f), filled<float>(d, 0.f), true);  // arrays on 1
  EXPECT_EQ(a.gx, expect.gx);
  // Host arrays while device 0 is current: the system works on device 1 and restores device 0.
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const Outcome<float> b = run<float>(on1, d, {}, filled<float>(d, 0.f), filled<float>(d, 0.f), false);
  EXPECT_EQ(b.gx, expect.gx);
  expect_same_result(b.result, expect.result, "system on GPU 1, GPU 0 current");
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);
  EXPECT_FALSE(on1.density_map().empty());
  // One thread per GPU, each with its own system.
  std::vector<EvaluateResult> results(2);
  std::vector<std::vector<float>> grads(2);
  std::vector<std::thread> threads;
  for (int gpu = 0; gpu < 2; ++gpu)
    threads.emplace_back([&, gpu] {
      cudaSetDevice(gpu);
      ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
      for (int it = 0; it < 20; ++it) {
        const Outcome<float> r = run<float>(es, d, {}, filled<float>(d, 0.f), filled<float>(d, 0.f), true);
        results[gpu] = r.result;
        grads[gpu] = r.gx;
      }
    });
  for (std::thread& t : threads) t.join();
  for (int gpu = 0; gpu < 2; ++gpu) {
    expect_same_result(results[gpu], expect.result, "thread on GPU " + std::to_string(gpu));
    EXPECT_EQ(grads[gpu], expect.gx);
  }
}

// Transform plans made on GPU 1 run there (and are destroyed there) whichever device is current.
TEST(PlacerLoopCuda, TransformPlansOnTwoGpus) {
  EFIELD_REQUIRE_GPU();
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA devices (found " << cuda_device_count() << ")";
  std::vector<float> in(64 * 48);
  for (size_t k = 0; k < in.size(); ++k) in[k] = static_cast<float>((k * 37) % 101) / 7.0f;
  std::vector<float> a(in.size()), b(in.size()), c(in.size()), d(in.size());
  PlanOptions po;
  po.backend = Backend::Cuda;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  Plan2D<float> on0(Transform2D::Dct2, 64, 48, po);
  on0.execute_host(in.data(), a.data());
  Plan1D<float> one0(Transform1D::Dct, 48, 64, DctAlgorithm::NPoint, po);
  one0.execute_host(in.data(), c.data());
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  {
    Plan2D<float> on1(Transform2D::Dct2, 64, 48, po);
    Plan1D<float> one1(Transform1D::Dct, 48, 64, DctAlgorithm::NPoint, po);
    Plan3D<float> three1(Transform3D::Dct, 4, 16, 48, po);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    on1.execute_host(in.data(), b.data());
    one1.execute_host(in.data(), d.data());
    std::vector<float> e(in.size());
    three1.execute_host(in.data(), e.data());
    int current = -1;
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, 0);
  }  // destroyed while device 0 is current
  EXPECT_EQ(a, b);
  EXPECT_EQ(c, d);
}
#endif

}  // namespace
}  // namespace efield::test
