// ElectrostaticSystem3D on CUDA against the CPU backend (float and double, both gradient scales,
// host and device arrays), bitwise reruns, graphs re-captured on new pointers, weight changes,
// evaluate_async, updates, and device pointers refused by the CPU backend. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "efield/electrostatic_system3d.hpp"
#include "electrostatics/system3d_design.hpp"
#include "support/device_array.hpp"
#include "support/expect_error.hpp"
#include "support/gpu.hpp"

namespace efield::test {
namespace {

template <typename T>
double max_abs(const std::vector<T>& v) {
  double m = 0;
  for (T a : v) m = std::max(m, std::fabs(static_cast<double>(a)));
  return m;
}

template <typename A, typename B>
void expect_close(const std::vector<A>& a, const std::vector<B>& b, double rel, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  const double scale = std::max(max_abs(b), 1e-300);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(static_cast<double>(a[i]), static_cast<double>(b[i]), rel * scale) << what << " at " << i;
}

template <typename T>
Output3D<T> evaluate_device(ElectrostaticSystem3D& es, const Design3DCase& d, const EvaluateOptions& eo = {},
                            T fill = T(0)) {
  DeviceArray<T> x(as<T>(d.x)), y(as<T>(d.y)), z(as<T>(d.z));
  const std::vector<T> init(d.x.size(), fill);
  DeviceArray<T> gx(init), gy(init), gz(init);
  Output3D<T> out;
  out.result = es.evaluate(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get(), eo);
  out.gx = gx.download(), out.gy = gy.download(), out.gz = gz.download();
  return out;
}

template <typename T>
void compare_backends(Design3DCase d, GradientScale scale, double rel) {
  d.options.precision = sizeof(T) == 4 ? Precision::Float : Precision::Double;
  d.options.gradient_scale = scale;
  d.options.backend = Backend::Cpu;
  ElectrostaticSystem3D cpu(d.options, d.movable, d.fillers, d.fixed);
  d.options.backend = Backend::Cuda;
  ElectrostaticSystem3D gpu(d.options, d.movable, d.fillers, d.fixed);
  const std::string what = std::string(sizeof(T) == 4 ? "float" : "double") + " " +
                           std::to_string(d.options.num_bins_x) + "x" + std::to_string(d.options.num_bins_y) + "x" +
                           std::to_string(d.options.num_bins_z) +
                           (scale == GradientScale::Exact ? " exact" : " dreamplace");
  const Output3D<T> c = evaluate_host<T>(cpu, d);
  const Output3D<T> h = evaluate_host<T>(gpu, d);
  const Output3D<T> g = evaluate_device<T>(gpu, d);
  EXPECT_NEAR(h.result.energy, c.result.energy, rel * c.result.energy) << what;
  EXPECT_NEAR(h.result.overflow, c.result.overflow, rel * c.result.overflow + 1e-12) << what;
  EXPECT_NEAR(h.result.max_density, c.result.max_density, rel * c.result.max_density) << what;
  EXPECT_NEAR(h.result.movable_area_outside, c.result.movable_area_outside, 1e-5 * c.result.movable_area_outside + 1e-6);
  expect_close(h.gx, c.gx, rel, what + " gx");
  expect_close(h.gy, c.gy, rel, what + " gy");
  expect_close(h.gz, c.gz, rel, what + " gz");
  // Host and device arrays: the same bits.
  EXPECT_EQ(h.result.energy, g.result.energy) << what;
  EXPECT_EQ(h.gx, g.gx) << what;
  EXPECT_EQ(h.gz, g.gz) << what;
  expect_close(gpu.density_map(), cpu.density_map(), rel, what + " rho");
  expect_close(gpu.field_x_map(), cpu.field_x_map(), rel, what + " Ex");
  expect_close(gpu.field_y_map(), cpu.field_y_map(), rel, what + " Ey");
  expect_close(gpu.field_z_map(), cpu.field_z_map(), rel, what + " Ez");
  expect_close(gpu.potential_map(), cpu.potential_map(), rel, what + " phi");
  EXPECT_EQ(gpu.fixed_map(), cpu.fixed_map());
}

TEST(ElectrostaticSystem3DCuda, AgreesWithTheCpuBackend) {
  EFIELD_REQUIRE_GPU();
  const int shapes[][3] = {{7, 6, 1}, {8, 8, 2}, {13, 5, 3}, {16, 11, 8}, {64, 48, 4}};
  for (const auto& s : shapes) {
    const int cells = s[0] * s[1] * s[2] > 4000 ? 20000 : 80;
    const Design3DCase d = random_design3d(s[0] + s[2], s[0], s[1], s[2], cells, cells / 4, 5);
    for (const GradientScale scale : {GradientScale::DreamPlace, GradientScale::Exact}) {
      compare_backends<double>(d, scale, 1e-9);
      compare_backends<float>(d, scale, 2e-3);
    }
  }
}

TEST(ElectrostaticSystem3DCuda, BitwiseRerunsGraphsAndWeights) {
  EFIELD_REQUIRE_GPU();
  Design3DCase d = random_design3d(4, 32, 24, 4, 3000, 500, 6, /*gap=*/7);
  d.options.backend = Backend::Cuda;
  d.options.precision = Precision::Float;
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  d.options.use_cuda_graph = false;
  ElectrostaticSystem3D plain(d.options, d.movable, d.fillers, d.fixed);
  const Output3D<float> a = evaluate_device<float>(es, d, {}, 3.0f);
  const Output3D<float> b = evaluate_device<float>(es, d, {}, 3.0f);   // new pointers: captured again
  const Output3D<float> c = evaluate_device<float>(plain, d, {}, 3.0f);
  for (const Output3D<float>* o : {&b, &c}) {
    EXPECT_EQ(a.result.energy, o->result.energy);
    EXPECT_EQ(a.result.overflow, o->result.overflow);
    EXPECT_EQ(a.gx, o->gx);
    EXPECT_EQ(a.gy, o->gy);
    EXPECT_EQ(a.gz, o->gz);
  }
  EXPECT_EQ(a.gx[3000 + 3], 3.0f);  // the gap is not written
  // The same pointers, other positions and weights: replays read the current ones.
  DeviceArray<float> x(as<float>(d.x)), y(as<float>(d.y)), z(as<float>(d.z));
  DeviceArray<float> gx(d.x.size()), gy(d.x.size()), gz(d.x.size());
  es.evaluate(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get());
  Design3DCase moved = d;
  for (double& v : moved.x) v += 0.37;
  x.upload(as<float>(moved.x));
  const EvaluateResult r = es.evaluate(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get(), {2.0, false});
  const Output3D<float> expect = evaluate_device<float>(plain, moved, {2.0, false});
  EXPECT_EQ(r.energy, expect.result.energy);
  EXPECT_EQ(gx.download(), expect.gx);
  // accumulate: grad += weight g
  es.evaluate(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get(), {-1.0, true});
  const std::vector<float> after = gz.download();
  for (std::size_t i = 0; i < after.size(); ++i)
    if (i < 3000 || i >= 3007) EXPECT_FLOAT_EQ(after[i], expect.gz[i] / 2.0f) << i;
}

TEST(ElectrostaticSystem3DCuda, AsyncAndDeviceResult) {
  EFIELD_REQUIRE_GPU();
  Design3DCase d = random_design3d(8, 16, 16, 2, 500, 100, 2);
  d.options.backend = Backend::Cuda;
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  const Output3D<double> sync = evaluate_device<double>(es, d);
  DeviceArray<double> x(d.x), y(d.y), z(d.z), gx(d.x.size()), gy(d.x.size()), gz(d.x.size());
  es.evaluate_async(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get());
  const EvaluateResult r = es.wait_result();
  EXPECT_EQ(r.energy, sync.result.energy);
  EXPECT_EQ(gy.download(), sync.gy);
  const StageTimes t = es.profile_stages(x.get(), y.get(), z.get(), gx.get(), gy.get(), gz.get(), 3);
  EXPECT_GT(t.total_ms, 0);
  EXPECT_GT(t.forward_fft_ms, 0);
  EXPECT_GT(t.inverse_fft_ms, 0);
  EXPECT_EQ(gy.download(), sync.gy);
  ASSERT_NE(es.device_result(), nullptr);
  std::vector<double> device(5);
  copy_to_host(device.data(), es.device_result(), 5 * sizeof(double));
  EXPECT_EQ(device[0], r.energy);
  EXPECT_EQ(device[1], r.overflow);
  EXPECT_EQ(device[2], r.max_density);
  std::vector<double> host(d.x.size());
  expect_error([&] { es.evaluate_async(d.x.data(), d.y.data(), d.z.data(), host.data(), gy.get(), gz.get()); },
               "host memory or all be device memory");
  expect_error([&] { es.evaluate_async(d.x.data(), d.y.data(), d.z.data(), host.data(), host.data() , host.data()); },
               "share memory");
}

TEST(ElectrostaticSystem3DCuda, UpdatesAndCpuRefusesDevicePointers) {
  EFIELD_REQUIRE_GPU();
  Design3DCase d = random_design3d(12, 10, 9, 3);
  d.options.backend = Backend::Cuda;
  ElectrostaticSystem3D es(d.options, d.movable, d.fillers, d.fixed);
  evaluate_device<double>(es, d);
  Design3DCase e = d;
  for (double& v : e.movable.depths) v *= 0.7;
  e.fixed.x[0] += 1.0;
  es.update_movable_sizes(e.movable);
  es.update_fixed_cells(e.fixed);
  ElectrostaticSystem3D fresh(e.options, e.movable, e.fillers, e.fixed);
  const Output3D<double> a = evaluate_device<double>(es, e), b = evaluate_device<double>(fresh, e);
  EXPECT_EQ(a.result.energy, b.result.energy);
  EXPECT_EQ(a.result.overflow, b.result.overflow);
  EXPECT_EQ(a.gz, b.gz);
  d.options.backend = Backend::Cpu;
  ElectrostaticSystem3D cpu(d.options, d.movable, d.fillers, d.fixed);
  expect_error([&] { evaluate_device<double>(cpu, d); }, "CPU backend was given a CUDA device pointer");
}

}  // namespace
}  // namespace efield::test
