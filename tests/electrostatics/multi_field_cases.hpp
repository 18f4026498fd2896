#pragma once
// Test inputs of MultiFieldSystem: a synthetic fence-region design laid out as DREAMPlace lays
// out its nodes (movable cells, a gap of terminals, the fillers field by field), a batch of
// placements, and runs of the multi-field system and of separately built systems.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "efield/bookshelf.hpp"
#include "efield/error.hpp"
#include "efield/multi_field_system.hpp"
#include "efield/synthetic_design.hpp"
#include "electrostatics/reference_electrostatics.hpp"
#include "support/device_array.hpp"
#include "support/random.hpp"

namespace efield::test {

struct MultiCase {
  MultiFieldOptions options;
  std::vector<FieldSpec> fields;
  std::vector<double> x, y;  // num_entries
  // Fence cases only: the design's inputs.
  CellSizes movable;
  std::vector<int> region_id;
  std::vector<FenceRegion> fences;
  FixedCells fixed;
  std::vector<RegionFillerSpec> fillers;
};

constexpr std::int64_t kTerminalGap = 7;  // entries between the movable cells and the fillers

inline MultiCase fence_case(int K, std::int64_t num_movable, int bins, Precision p, Backend b,
                            std::uint64_t seed = 1) {
  SyntheticDesignSpec s;
  s.name = "fenced";
  s.num_movable = num_movable;
  s.num_movable_macros = 2;
  s.num_fixed_macros = 12;
  s.num_io_pads = 10;
  s.num_fences = K;
  s.with_nets = false;
  s.seed = seed;
  const Design d = generate_synthetic_design(s);
  const Region r = d.region();
  MultiCase c;
  for (int i = 0; i < d.num_nodes(); ++i) {
    if (d.kind[i] == NodeKind::Movable) {
      c.movable.widths.push_back(d.width[i]), c.movable.heights.push_back(d.height[i]);
      c.region_id.push_back(d.region_id[i]);
      c.x.push_back(d.x[i]), c.y.push_back(d.y[i]);
    } else if (d.kind[i] == NodeKind::Fixed) {
      c.fixed.widths.push_back(d.width[i]), c.fixed.heights.push_back(d.height[i]);
      c.fixed.x.push_back(d.x[i]), c.fixed.y.push_back(d.y[i]);
    }
  }
  c.fences = d.fences;
  RegionFillerOptions fo;
  fo.target_density = 0.8;
  fo.row_height = s.row_height;
  c.fillers = make_region_fillers(c.movable, c.region_id, c.fences, c.fixed, r.xl, r.yl, r.xh, r.yh, fo);
  const std::int64_t n = static_cast<std::int64_t>(c.movable.widths.size());
  FenceFieldLayout layout;
  layout.filler_offset = n + kTerminalGap;
  c.fields = make_fence_fields(c.movable, c.region_id, c.fences, c.fixed, r.xl, r.yl, r.xh, r.yh, c.fillers, layout);
  c.options.num_entries = fence_fields_num_entries(n, c.fillers, layout);
  c.options.system.xl = r.xl, c.options.system.yl = r.yl, c.options.system.xh = r.xh, c.options.system.yh = r.yh;
  c.options.system.num_bins_x = c.options.system.num_bins_y = bins;
  c.options.system.precision = p;
  c.options.system.backend = b;
  c.options.system.cpu_threads = 2;
  c.options.pipeline = MultiFieldPipeline::PerField;  // bitwise as separate systems; the batched tests set theirs
  const size_t extra = static_cast<size_t>(c.options.num_entries - n);
  const auto fx = random_vector<double>(extra, seed + 11, r.xl, r.xh - 20);
  const auto fy = random_vector<double>(extra, seed + 12, r.yl, r.yh - 20);
  c.x.insert(c.x.end(), fx.begin(), fx.end());
  c.y.insert(c.y.end(), fy.begin(), fy.end());
  return c;
}

// `count` placements of one random design, each at its own positions.
inline MultiCase batch_case(int count, Precision p, Backend b, std::uint64_t seed = 3) {
  MultiCase c;
  const std::size_t n = 300, f = 120;
  const auto w = random_vector<double>(n + f, seed, 1, 12), h = random_vector<double>(n + f, seed + 1, 1, 12);
  CellSizes movable{{w.begin(), w.begin() + n}, {h.begin(), h.begin() + n}};
  CellSizes fillers{{w.begin() + n, w.end()}, {h.begin() + n, h.end()}};
  c.fixed = FixedCells{{30, 12}, {20, 40}, {10, 150}, {60, -5}};
  c.fields = make_batch_fields(count, movable, fillers, c.fixed, 0.9);
  c.options.num_entries = static_cast<std::int64_t>(count) * static_cast<std::int64_t>(n + f);
  c.options.system.xl = 0, c.options.system.yl = 0, c.options.system.xh = 200, c.options.system.yh = 160;
  c.options.system.num_bins_x = 32, c.options.system.num_bins_y = 16;
  c.options.system.precision = p;
  c.options.system.backend = b;
  c.options.system.cpu_threads = 2;
  c.options.pipeline = MultiFieldPipeline::PerField;  // bitwise as separate systems; the batched tests set theirs
  c.x = random_vector<double>(static_cast<size_t>(c.options.num_entries), seed + 2, -5, 195);
  c.y = random_vector<double>(static_cast<size_t>(c.options.num_entries), seed + 3, -5, 155);
  return c;
}

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

struct MultiRun {
  std::vector<EvaluateResult> results;
  std::vector<double> gx, gy;  // num_entries
};

// One evaluate of `mf` on the case's positions (device arrays when `device`), gradients starting
// at `start`.
template <typename T>
MultiRun run_multi(MultiFieldSystem& mf, const MultiCase& c, bool device, const MultiEvaluateOptions& eo = {},
                   double start = 0.0) {
  const std::vector<T> x = as<T>(c.x), y = as<T>(c.y);
  std::vector<T> gx(x.size(), T(start)), gy(x.size(), T(start));
  MultiRun out;
  if (device) {
    DeviceArray<T> dx(x), dy(y), dgx(gx), dgy(gy);
    out.results = mf.evaluate(dx.get(), dy.get(), dgx.get(), dgy.get(), eo);
    gx = dgx.download(), gy = dgy.download();
  } else {
    out.results = mf.evaluate(x.data(), y.data(), gx.data(), gy.data(), eo);
  }
  out.gx.assign(gx.begin(), gx.end());
  out.gy.assign(gy.begin(), gy.end());
  return out;
}

struct FieldRun {
  EvaluateResult result;
  std::vector<double> gx, gy;  // per field cell: movable, then fillers
  std::vector<double> rho;
};

// Field k built as its own ElectrostaticSystem and evaluated on its cells' positions
// (CUDA: evaluate_async on device arrays when `async`).
template <typename T>
FieldRun run_separate(const MultiCase& c, int k, bool async) {
  const FieldSpec& f = c.fields[static_cast<size_t>(k)];
  ElectrostaticOptions o = c.options.system;
  o.target_density = f.target_density;
  ElectrostaticSystem es(o, f.movable, f.fillers, f.fixed);
  std::vector<T> x, y;
  for (const auto* index : {&f.movable_index, &f.filler_index})
    for (std::int64_t e : *index) x.push_back(T(c.x[e])), y.push_back(T(c.y[e]));
  std::vector<T> gx(x.size(), T(0)), gy(x.size(), T(0));
  FieldRun out;
  if (async) {
    DeviceArray<T> dx(x), dy(y), dgx(gx), dgy(gy);
    es.evaluate_async(dx.get(), dy.get(), dgx.get(), dgy.get());
    out.result = es.wait_result();
    gx = dgx.download(), gy = dgy.download();
  } else {
    out.result = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  }
  out.gx.assign(gx.begin(), gx.end());
  out.gy.assign(gy.begin(), gy.end());
  out.rho = es.density_map();
  return out;
}

// The float64 dense reference of field k alone (its cells and fillers at the case's positions,
// the fixed cells and its blockages as fixed blocks, its td): DREAMPlace's per-region op.
inline ReferenceResult field_reference(const MultiCase& c, int k) {
  const FieldSpec& f = c.fields[static_cast<size_t>(k)];
  ElectrostaticOptions o = c.options.system;
  o.target_density = f.target_density;
  std::vector<double> cx, cy;
  for (const auto* index : {&f.movable_index, &f.filler_index})
    for (std::int64_t e : *index) cx.push_back(c.x[e]), cy.push_back(c.y[e]);
  return reference_electrostatics(o, f.movable, f.fillers, f.fixed, cx, cy);
}

// The multi-field run's gradient of field k, in the field's cell order.
inline void field_gradient(const MultiCase& c, int k, const MultiRun& m, std::vector<double>& gx,
                           std::vector<double>& gy) {
  const FieldSpec& f = c.fields[static_cast<size_t>(k)];
  gx.clear(), gy.clear();
  for (const auto* index : {&f.movable_index, &f.filler_index})
    for (std::int64_t e : *index) gx.push_back(m.gx[e]), gy.push_back(m.gy[e]);
}

inline void expect_same_result(const EvaluateResult& a, const EvaluateResult& b) {
  EXPECT_EQ(a.energy, b.energy);
  EXPECT_EQ(a.overflow, b.overflow);
  EXPECT_EQ(a.max_density, b.max_density);
  EXPECT_EQ(a.movable_area_outside, b.movable_area_outside);
  EXPECT_EQ(a.filler_area_outside, b.filler_area_outside);
}

// Every field of the multi-field system bitwise equal to its separately built system.
template <typename T>
void expect_fields_bitwise(MultiFieldSystem& mf, const MultiCase& c, bool device, bool async) {
  const MultiRun m = run_multi<T>(mf, c, device);
  ASSERT_EQ(m.results.size(), c.fields.size());
  for (int k = 0; k < static_cast<int>(c.fields.size()); ++k) {
    SCOPED_TRACE("field " + std::to_string(k));
    const FieldRun s = run_separate<T>(c, k, async);
    expect_same_result(m.results[static_cast<size_t>(k)], s.result);
    std::vector<double> gx, gy;
    field_gradient(c, k, m, gx, gy);
    EXPECT_EQ(gx, s.gx);
    EXPECT_EQ(gy, s.gy);
    EXPECT_EQ(mf.field(k).density_map(), s.rho);
  }
}

// grad = w_k g_k, or grad += w_k g_k; entries no field owns: untouched, or 0 when asked.
template <typename T>
void expect_weights_accumulate_unowned(Backend b, MultiFieldPipeline pipeline = MultiFieldPipeline::PerField) {
  const Precision p = std::is_same_v<T, float> ? Precision::Float : Precision::Double;
  MultiCase c = fence_case(2, 600, 16, p, b, 2);
  const bool cuda = b == Backend::Cuda;
  c.options.pipeline = pipeline;
  MultiFieldSystem mf(c.options, c.fields);
  const MultiRun plain = run_multi<T>(mf, c, cuda, {}, 3.0);
  MultiEvaluateOptions eo;
  eo.weights = {2.0, 0.5, -4.0};
  const MultiRun weighted = run_multi<T>(mf, c, cuda, eo, 3.0);
  eo.accumulate = true;
  const MultiRun added = run_multi<T>(mf, c, cuda, eo, 3.0);
  const std::int64_t n = static_cast<std::int64_t>(c.movable.widths.size());
  for (int k = 0; k < 3; ++k) {
    const FieldSpec& f = c.fields[static_cast<size_t>(k)];
    const T w = static_cast<T>(eo.weights[static_cast<size_t>(k)]);
    for (const auto* index : {&f.movable_index, &f.filler_index})
      for (std::int64_t e : *index) {
        ASSERT_EQ(weighted.gx[e], static_cast<double>(w * static_cast<T>(plain.gx[e]))) << e;
        ASSERT_EQ(weighted.gy[e], static_cast<double>(w * static_cast<T>(plain.gy[e]))) << e;
        ASSERT_EQ(added.gx[e], static_cast<double>(T(3) + static_cast<T>(weighted.gx[e]))) << e;
      }
    expect_same_result(weighted.results[static_cast<size_t>(k)], plain.results[static_cast<size_t>(k)]);
  }
  for (std::int64_t e = n; e < n + kTerminalGap; ++e) {  // the terminals' entries: untouched
    EXPECT_EQ(plain.gx[e], 3.0);
    EXPECT_EQ(added.gy[e], 3.0);
  }
  c.options.zero_other_entries = true;
  MultiFieldSystem zeroing(c.options, c.fields);
  const MultiRun zeroed = run_multi<T>(zeroing, c, cuda, {}, 3.0);
  const MultiRun kept = run_multi<T>(zeroing, c, cuda, eo, 3.0);  // accumulating: untouched
  for (std::int64_t e = n; e < n + kTerminalGap; ++e) {
    EXPECT_EQ(zeroed.gx[e], 0.0);
    EXPECT_EQ(zeroed.gy[e], 0.0);
    EXPECT_EQ(kept.gx[e], 3.0);
  }
  EXPECT_EQ(zeroed.gx[0], plain.gx[0]);
  // Bad weights throw before anything is written.
  eo.weights = {1.0, NAN, 1.0};
  EXPECT_THROW(run_multi<T>(mf, c, cuda, eo), Error);
  eo.weights = {1.0, 1.0};
  EXPECT_THROW(run_multi<T>(mf, c, cuda, eo), Error);
}

}  // namespace efield::test
