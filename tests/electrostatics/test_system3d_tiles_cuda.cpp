// The CUDA 3D pipeline's optional stages (the layout hook, src/electrostatics3d/pipeline3d_layout.hpp):
// the tile rasterize (float tiles of whole 2^-18 bin volumes, checked, with 64-bit tiles after a
// pile-up) and the batched field inverse, against today's stages and the CPU backend in double
// (itself checked against the float64 reference, tests/python/reference3d.py), and the spectral pass
// folded into the batched inverse's preprocess: L = 1, 2, 3, 4, 7, 8,
// odd and prime bin counts, both gradient scales, bitwise reruns, float tiles against 64-bit tiles
// bit for bit, a pile-up with accumulate, host arrays and evaluate_async. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/electrostatic_system3d.hpp"
#include "electrostatics/system3d_design.hpp"
#include "electrostatics3d/pipeline3d_layout.hpp"
#include "support/device_array.hpp"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

using detail::Es3DPipelineLayout;

// Systems made while it lives take `layout`.
class ScopedLayout3D {
 public:
  explicit ScopedLayout3D(const Es3DPipelineLayout& layout) : before_(detail::set_es3d_pipeline_layout(layout)) {}
  ~ScopedLayout3D() { detail::set_es3d_pipeline_layout(before_); }
  ScopedLayout3D(const ScopedLayout3D&) = delete;
  ScopedLayout3D& operator=(const ScopedLayout3D&) = delete;

 private:
  Es3DPipelineLayout before_;
};

Es3DPipelineLayout layout(bool tiles, bool wide, bool batched, bool fused = false, bool forward = false) {
  Es3DPipelineLayout l;
  l.tile_rasterize = tiles;
  l.wide_tiles = wide;
  l.batched_field_inverse = batched;
  l.fused_spectral_inverse = fused;
  l.fused_forward = forward;
  return l;
}

std::string name(const Es3DPipelineLayout& l) {
  return std::string(l.tile_rasterize ? (l.wide_tiles ? "wide tiles" : "float tiles") : "fixed bins") +
         (l.batched_field_inverse ? ", batched inverse" : "") + (l.fused_spectral_inverse ? ", fused spectral" : "") +
         (l.fused_forward ? ", fused forward" : "");
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double a : v) m = std::max(m, std::fabs(a));
  return m;
}

template <typename A>
void expect_close(const std::vector<A>& a, const std::vector<double>& b, double rel, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  const double scale = std::max(max_abs(b), 1e-300);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(static_cast<double>(a[i]), b[i], rel * scale) << what << " at " << i;
}

// Everything one evaluate produces, on the host.
struct Run3D {
  Output3D<float> out;
  std::vector<double> rho, ex, ey, ez, phi;
};

Run3D evaluate_cuda(const Design3DCase& d, const Es3DPipelineLayout& l, const EvaluateOptions& eo = {},
                    float fill = 0.f) {
  const ScopedLayout3D scoped(l);
  Design3DCase c = d;
  c.options.backend = Backend::Cuda;
  c.options.precision = Precision::Float;
  ElectrostaticSystem3D es(c.options, c.movable, c.fillers, c.fixed);
  DeviceArray<float> x(as<float>(c.x)), y(as<float>(c.y)), z(as<float>(c.z));
  const std::vector<float> init(c.x.size(), fill);
  DeviceArray<float> gx(init), gy(init), gz(init);
  Run3D r;
  r.out.result = es.evaluate(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get(), eo);
  r.out.gx = gx.download(), r.out.gy = gy.download(), r.out.gz = gz.download();
  r.rho = es.density_map();
  r.phi = es.potential_map();
  if (c.options.gradient_scale == GradientScale::DreamPlace) {
    r.ex = es.field_x_map(), r.ey = es.field_y_map(), r.ez = es.field_z_map();
  }
  return r;
}

Output3D<double> evaluate_cpu_double(const Design3DCase& d, std::vector<double>* rho) {
  Design3DCase c = d;
  c.options.backend = Backend::Cpu;
  c.options.precision = Precision::Double;
  ElectrostaticSystem3D es(c.options, c.movable, c.fillers, c.fixed);
  Output3D<double> out = evaluate_host<double>(es, c);
  *rho = es.density_map();
  return out;
}

void expect_same_bits(const Run3D& a, const Run3D& b, const std::string& what) {
  EXPECT_EQ(a.out.result.energy, b.out.result.energy) << what;
  EXPECT_EQ(a.out.result.overflow, b.out.result.overflow) << what;
  EXPECT_EQ(a.out.result.max_density, b.out.result.max_density) << what;
  EXPECT_EQ(a.out.result.movable_area_outside, b.out.result.movable_area_outside) << what;
  EXPECT_EQ(a.rho, b.rho) << what;
  EXPECT_EQ(a.out.gx, b.out.gx) << what;
  EXPECT_EQ(a.out.gy, b.out.gy) << what;
  EXPECT_EQ(a.out.gz, b.out.gz) << what;
}

// Odd, even and prime bin counts, L = 1, 2, 3, 4, 8; cells of 0.3 to 2.5 bins per axis (some
// beyond 3 x 3 bins: the warp path) and two movable macros many bins wide and deep.
std::vector<Design3DCase> cases() {
  const int shapes[][3] = {{7, 6, 1}, {8, 8, 2}, {13, 5, 3}, {16, 11, 8}, {17, 19, 4}, {31, 2, 7}, {64, 48, 4}};
  std::vector<Design3DCase> out;
  unsigned seed = 40;
  for (const auto& s : shapes) {
    const int cells = s[0] * s[1] * s[2] > 4000 ? 20000 : 150;
    Design3DCase d = random_design3d(++seed, s[0], s[1], s[2], cells, cells / 4, 4, /*gap=*/3);
    const double bx = (d.options.xh - d.options.xl) / s[0], by = (d.options.yh - d.options.yl) / s[1];
    const double depth = d.options.zh - d.options.zl;
    d.movable.widths[0] = 5.5 * bx, d.movable.heights[0] = 4.2 * by, d.movable.depths[0] = 0.95 * depth;
    d.movable.widths[1] = 1.2 * bx, d.movable.heights[1] = 1.1 * by, d.movable.depths[1] = 0.99 * depth;
    out.push_back(d);
  }
  return out;
}

std::string shape(const Design3DCase& d) {
  return std::to_string(d.options.num_bins_x) + "x" + std::to_string(d.options.num_bins_y) + "x" +
         std::to_string(d.options.num_bins_z);
}

TEST(System3DTilesCuda, EveryPathAgreesWithTheCpuInDouble) {
  EFIELD_REQUIRE_GPU();
  for (Design3DCase d : cases()) {
    for (const GradientScale scale : {GradientScale::DreamPlace, GradientScale::Exact}) {
      d.options.gradient_scale = scale;
      std::vector<double> rho;
      const Output3D<double> ref = evaluate_cpu_double(d, &rho);
      for (const Es3DPipelineLayout& l : {layout(false, false, false), layout(true, false, false),
                                          layout(true, true, false), layout(false, false, true),
                                          layout(true, false, true), layout(true, false, true, true),
                                          layout(true, false, true, true, true)}) {
        const std::string what = shape(d) + (scale == GradientScale::Exact ? " exact, " : " dreamplace, ") + name(l);
        const Run3D r = evaluate_cuda(d, l);
        EXPECT_NEAR(r.out.result.energy, ref.result.energy, 2e-3 * ref.result.energy) << what;
        EXPECT_NEAR(r.out.result.overflow, ref.result.overflow, 2e-3 * ref.result.overflow + 1e-6) << what;
        EXPECT_NEAR(r.out.result.max_density, ref.result.max_density, 2e-3 * ref.result.max_density) << what;
        EXPECT_NEAR(r.out.result.movable_area_outside, ref.result.movable_area_outside,
                    1e-4 * ref.result.movable_area_outside + 1e-5)
            << what;  // float positions against double ones
        expect_close(r.rho, rho, 2e-3, what + " rho");
        expect_close(r.out.gx, ref.gx, 2e-3, what + " gx");
        expect_close(r.out.gy, ref.gy, 2e-3, what + " gy");
        expect_close(r.out.gz, ref.gz, 2e-3, what + " gz");
      }
    }
  }
}

// Both kinds of tiles hold the same whole numbers: the same bits everywhere; and today's fixed
// bins (2^-32 bin volumes) differ from them by the rounding of each contribution only.
TEST(System3DTilesCuda, FloatTilesEqualWideTilesBitwise) {
  EFIELD_REQUIRE_GPU();
  for (const Design3DCase& d : cases()) {
    for (const bool batched : {false, true}) {
      const std::string what = shape(d) + (batched ? " batched" : "");
      const Run3D f = evaluate_cuda(d, layout(true, false, batched));
      const Run3D w = evaluate_cuda(d, layout(true, true, batched));
      expect_same_bits(f, w, what);
      const Run3D today = evaluate_cuda(d, layout(false, false, batched));
      // A bin takes at most a few hundred contributions here, each off by at most 2^-19 bin volumes.
      for (std::size_t i = 0; i < today.rho.size(); ++i) EXPECT_NEAR(f.rho[i], today.rho[i], 1e-3) << what << " " << i;
      EXPECT_NEAR(f.out.result.energy, today.out.result.energy, 1e-4 * today.out.result.energy) << what;
    }
  }
}

// The batched inverse does per element what the three Plan3D runs and the pack pass do; only
// cuFFT's batched plan may round differently. Everything before the inverse keeps its bits.
TEST(System3DTilesCuda, BatchedInverseMatchesThreePlan3DRuns) {
  EFIELD_REQUIRE_GPU();
  for (const Design3DCase& d : cases()) {
    for (const bool tiles : {false, true}) {
      const std::string what = shape(d) + (tiles ? " tiles" : "");
      const Run3D a = evaluate_cuda(d, layout(tiles, false, false));
      const Run3D b = evaluate_cuda(d, layout(tiles, false, true));
      EXPECT_EQ(a.out.result.energy, b.out.result.energy) << what;
      EXPECT_EQ(a.out.result.overflow, b.out.result.overflow) << what;
      EXPECT_EQ(a.rho, b.rho) << what;
      expect_close(b.ex, a.ex, 1e-5, what + " Ex");
      expect_close(b.ey, a.ey, 1e-5, what + " Ey");
      expect_close(b.ez, a.ez, 1e-5, what + " Ez");
      const auto as_double = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
      expect_close(b.out.gx, as_double(a.out.gx), 1e-5, what + " gx");
      expect_close(b.out.gy, as_double(a.out.gy), 1e-5, what + " gy");
      expect_close(b.out.gz, as_double(a.out.gz), 1e-5, what + " gz");
      if (d.options.num_bins_z == 1) {  // no batched plan for a dimension of 1: today's runs
        EXPECT_EQ(a.ex, b.ex) << what;
        EXPECT_EQ(a.out.gx, b.out.gx) << what;
      }
      // The fused spectral pass computes the same transform inputs with the same functions, but in
      // one kernel the compiler may contract a spectral product into the preprocess's twiddle
      // multiply-adds (one rounding fewer): the fields and gradients agree to round-off (the H100
      // showed 1-ulp differences in Ey and Ez); the energy's terms are summed in another order.
      const Run3D f = evaluate_cuda(d, layout(tiles, false, true, true));
      EXPECT_NEAR(f.out.result.energy, b.out.result.energy, 1e-6 * b.out.result.energy) << what;
      EXPECT_EQ(f.out.result.overflow, b.out.result.overflow) << what;
      expect_close(f.ex, b.ex, 1e-5, what + " fused Ex");
      expect_close(f.ey, b.ey, 1e-5, what + " fused Ey");
      expect_close(f.ez, b.ez, 1e-5, what + " fused Ez");
      expect_close(f.out.gx, as_double(b.out.gx), 1e-5, what + " fused gx");
      expect_close(f.out.gy, as_double(b.out.gy), 1e-5, what + " fused gy");
      expect_close(f.out.gz, as_double(b.out.gz), 1e-5, what + " fused gz");
      if (!tiles) continue;
      // The forward DCT folded in as well (tiles only): the same coefficients (dct3_group's
      // arithmetic on the same R2C input), so every bit of the fused spectral path, the energy's too.
      const Run3D g = evaluate_cuda(d, layout(true, false, true, true, true));
      expect_same_bits(g, f, what + " fused forward");
      EXPECT_EQ(g.ex, f.ex) << what;
      EXPECT_EQ(g.ez, f.ez) << what;
      expect_close(g.phi, a.phi, 1e-5, what + " phi (fused forward)");
    }
  }
}

// double: the tile rasterize does not apply (float only); the batched and fused inverses do.
TEST(System3DTilesCuda, BatchedInverseInDouble) {
  EFIELD_REQUIRE_GPU();
  for (Design3DCase d : cases()) {
    d.options.precision = Precision::Double;
    d.options.backend = Backend::Cpu;
    ElectrostaticSystem3D cpu(d.options, d.movable, d.fillers, d.fixed);
    const Output3D<double> ref = evaluate_host<double>(cpu, d);
    d.options.backend = Backend::Cuda;
    for (const Es3DPipelineLayout& l : {layout(true, false, true), layout(true, false, true, true, true)}) {
      const ScopedLayout3D scoped(l);
      ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
      const Output3D<double> g = evaluate_host<double>(es, d);
      const std::string what = shape(d) + " double, " + name(l);
      EXPECT_NEAR(g.result.energy, ref.result.energy, 1e-9 * ref.result.energy) << what;
      EXPECT_NEAR(g.result.overflow, ref.result.overflow, 1e-9 * ref.result.overflow + 1e-12) << what;
      expect_close(g.gx, ref.gx, 1e-9, what + " gx");
      expect_close(g.gy, ref.gy, 1e-9, what + " gy");
      expect_close(g.gz, ref.gz, 1e-9, what + " gz");
      expect_close(es.field_x_map(), cpu.field_x_map(), 1e-9, what + " Ex");
      expect_close(es.field_z_map(), cpu.field_z_map(), 1e-9, what + " Ez");
      expect_close(es.potential_map(), cpu.potential_map(), 1e-9, what + " phi");
    }
  }
}

TEST(System3DTilesCuda, BitwiseRerunsGraphsHostArraysAndAsync) {
  EFIELD_REQUIRE_GPU();
  const ScopedLayout3D scoped(layout(true, false, true, true, true));
  Design3DCase d = random_design3d(4, 32, 24, 4, 3000, 500, 6, /*gap=*/7);
  d.options.backend = Backend::Cuda;
  d.options.precision = Precision::Float;
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  d.options.use_cuda_graph = false;
  ElectrostaticSystem3D plain(d.options, d.movable, d.fillers, d.fixed);
  DeviceArray<float> x(as<float>(d.x)), y(as<float>(d.y)), z(as<float>(d.z));
  const std::vector<float> init(d.x.size(), 3.f);
  DeviceArray<float> gx(init), gy(init), gz(init);
  std::vector<Output3D<float>> runs;
  for (ElectrostaticSystem3D* s : {&es, &es, &plain}) {
    Output3D<float> o;
    o.result = s->evaluate(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get());
    o.gx = gx.download(), o.gy = gy.download(), o.gz = gz.download();
    runs.push_back(o);
  }
  const Output3D<float> host = evaluate_host<float>(es, d, {}, 3.f);
  runs.push_back(host);
  es.evaluate_async(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get());  // 64-bit tiles: the same bits
  Output3D<float> async;
  async.result = es.wait_result();
  async.gx = gx.download(), async.gy = gy.download(), async.gz = gz.download();
  runs.push_back(async);
  for (std::size_t k = 1; k < runs.size(); ++k) {
    EXPECT_EQ(runs[0].result.energy, runs[k].result.energy) << k;
    EXPECT_EQ(runs[0].result.overflow, runs[k].result.overflow) << k;
    EXPECT_EQ(runs[0].result.max_density, runs[k].result.max_density) << k;
    EXPECT_EQ(runs[0].gx, runs[k].gx) << k;
    EXPECT_EQ(runs[0].gy, runs[k].gy) << k;
    EXPECT_EQ(runs[0].gz, runs[k].gz) << k;
  }
  EXPECT_EQ(runs[0].gx[3000 + 3], 3.f);  // the gap is not written
}

// Every movable cell and filler on one spot: bins far past 64 bin volumes. evaluate flags the
// float tiles, writes nothing in that run (accumulate adds once) and repeats with 64-bit tiles:
// the bits of a system that always takes 64-bit tiles. The next evaluate starts with 64-bit tiles,
// and once the cells spread, with float tiles again: the bits stay those of the input alone.
TEST(System3DTilesCuda, PileUpRerunsWithWideTiles) {
  EFIELD_REQUIRE_GPU();
  Design3DCase d = random_design3d(9, 16, 12, 4, 20000, 4000, 2);
  Design3DCase piled = d;
  for (std::size_t i = 0; i < piled.x.size(); ++i) piled.x[i] = 8.0, piled.y[i] = 4.0, piled.z[i] = 2.0;
  const EvaluateOptions add{0.5, true};
  const Run3D checked = evaluate_cuda(piled, layout(true, false, false), add, 1.f);
  const Run3D wide = evaluate_cuda(piled, layout(true, true, false), add, 1.f);
  EXPECT_GT(wide.out.result.max_density, 64.0);
  expect_same_bits(checked, wide, "pile-up");
  std::vector<double> rho;
  const Output3D<double> ref = evaluate_cpu_double(piled, &rho);
  EXPECT_NEAR(checked.out.result.energy, ref.result.energy, 2e-3 * ref.result.energy);
  std::vector<double> expect_gx(ref.gx.size());
  for (std::size_t i = 0; i < expect_gx.size(); ++i) expect_gx[i] = 1.0 + 0.5 * ref.gx[i];
  for (std::size_t i = 0; i < expect_gx.size(); ++i)
    if (i < 20000) EXPECT_NEAR(checked.out.gx[i], expect_gx[i], 2e-3 * max_abs(ref.gx) + 1e-6) << i;

  // One system through pile-up -> spread -> pile-up: each result equals a fresh system's.
  const ScopedLayout3D scoped(layout(true, false, false));
  Design3DCase c = d;
  c.options.backend = Backend::Cuda;
  c.options.precision = Precision::Float;
  ElectrostaticSystem3D es(c.options, c.movable, c.fillers, c.fixed);
  for (const Design3DCase* in : {&piled, &d, &d, &piled}) {
    const Output3D<float> o = evaluate_host<float>(es, *in);
    const Run3D fresh = evaluate_cuda(*in, layout(true, false, false));
    EXPECT_EQ(o.result.energy, fresh.out.result.energy);
    EXPECT_EQ(o.gx, fresh.out.gx);
    EXPECT_EQ(o.gz, fresh.out.gz);
  }
}

}  // namespace
}  // namespace efield::test
