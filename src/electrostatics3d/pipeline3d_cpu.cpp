// The CPU 3D electrostatic pipeline (OpenMP loops, FFTW through Plan3D):
//   rasterize (cells across threads, 64-bit fixed-point atomics into the movable and filler maps)
//   -> density pass (rho, overflow, max density per x-slab; clears the maps) -> Plan3D Dct
//   -> spectral pass (energy per x-slab, the inputs of the field transforms) -> Plan3D Idct of each
//   field (and of the potential with GradientScale::Exact) -> gather (each cell by one thread).
// Deterministic for every thread count: integer sums are order-free, every floating-point
// reduction is a per-slab partial summed in slab order, each gradient is summed by one thread.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <string>

#include "efield/transforms.hpp"
#include "electrostatics3d/backend3d.hpp"

namespace efield::detail {
namespace {

template <typename T>
class CpuPipeline3D final : public ElectrostaticBackend3D {
 public:
  using ElectrostaticBackend3D::evaluate;
  using ElectrostaticBackend3D::profile;

  explicit CpuPipeline3D(Design3D design)
      : ElectrostaticBackend3D(std::move(design)),
        threads_(design_.options.cpu_threads > 0 ? design_.options.cpu_threads : omp_get_max_threads()),
        dct_(Transform3D::Dct, design_.options.num_bins_x, design_.options.num_bins_y, design_.options.num_bins_z,
             plan_options()),
        idct_(Transform3D::Idct, design_.options.num_bins_x, design_.options.num_bins_y, design_.options.num_bins_z,
              plan_options()) {
    grid_ = make_grid3d<T>(design_);
    spectral_ = make_spectral_grid3d<T>(design_);
    exact_ = design_.options.gradient_scale == GradientScale::Exact;
    const std::size_t bins = static_cast<std::size_t>(design_.num_bins());
    acc_movable_.assign(bins, 0);
    acc_filler_.assign(bins, 0);
    rho_.assign(bins, T(0));
    coef_.assign(bins, T(0));
    for (auto& f : fields_) f.assign(bins, T(0));
    phi_.assign(bins, T(0));
    slab_overflow_.assign(grid_.M, 0.0);
    slab_max_.assign(grid_.M, 0.0);
    slab_energy_.assign(grid_.M, 0.0);
    inv_scale_ = static_cast<T>(std::ldexp(1.0, -FixedPointBits<T>::value));
    cell_sizes3d<T>(design_, &w_, &h_, &d_);
    load_fixed();
  }

  EvaluateResult evaluate(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) override {
    rasterize(x, y, z);
    density_pass();
    dct_.execute(rho_.data(), coef_.data());
    spectral();
    inverse_transforms();
    gather(x, y, z, gx, gy, gz, GradientWrite<T>{static_cast<T>(eo.weight), eo.accumulate});
    return finish();
  }
  EvaluateResult wait_result() override { return last_; }

  StageTimes profile(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, int reps) override {
    using clock = std::chrono::steady_clock;
    std::vector<double> t[6];
    evaluate(x, y, z, gx, gy, gz, {});  // warm-up
    const auto ms = [](clock::time_point a, clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    for (int r = 0; r < reps; ++r) {
      const auto t0 = clock::now();
      rasterize(x, y, z);
      density_pass();
      const auto t1 = clock::now();
      dct_.execute(rho_.data(), coef_.data());
      const auto t2 = clock::now();
      spectral();
      const auto t3 = clock::now();
      inverse_transforms();
      const auto t4 = clock::now();
      gather(x, y, z, gx, gy, gz, GradientWrite<T>{});
      finish();
      const auto t5 = clock::now();
      const clock::time_point points[6] = {t0, t1, t2, t3, t4, t5};
      for (int s = 0; s < 5; ++s) t[s].push_back(ms(points[s], points[s + 1]));
      t[5].push_back(ms(t0, t5));
    }
    return median_stage_times(t, reps);
  }

  std::vector<double> density_map() override { return host_map3d(rho_.data(), grid_, -1); }
  std::vector<double> field_map(int axis) override { return host_map3d(fields_[axis].data(), grid_, axis); }
  std::vector<double> potential_map() override {
    if (!exact_) {  // GradientScale::Exact computed it in evaluate
      spectral_loop([&](std::int64_t i, const SpectralInputs3D<T>& s) { phi_[i] = s.phi; });
      idct_.execute(phi_.data(), phi_.data());
    }
    return host_map3d(phi_.data(), grid_, -1);
  }
  std::vector<double> fixed_map() override { return fixed_natural_; }
  void update_fixed_cells(const FixedCells3D& fixed) override {
    design_.fixed = fixed;
    load_fixed();
  }
  Backend backend() const noexcept override { return Backend::Cpu; }

 protected:
  void sizes_changed() override {
    cell_sizes3d<T>(design_, &w_, &h_, &d_);
    grid_ = make_grid3d<T>(design_);  // the macro mask's pointer
  }

 private:
  void inverse_transforms() {
    for (auto& f : fields_) idct_.execute(f.data(), f.data());
    if (exact_) idct_.execute(phi_.data(), phi_.data());
  }

  EvaluateResult finish() {
    double overflow = 0, mx = 0, energy = 0;
    for (int m = 0; m < grid_.M; ++m) {
      overflow += slab_overflow_[m];
      mx = std::max(mx, slab_max_[m]);
      energy += slab_energy_[m];
    }
    last_ = finish_result3d(design_, energy, overflow, mx, outside_[0], outside_[1]);
    return last_;
  }

  PlanOptions plan_options() const {
    PlanOptions p;
    p.backend = Backend::Cpu;
    p.cpu_threads = threads_;
    p.reproducible = true;  // the same bits in every process, as the 2D system's FFTW_ESTIMATE plans
    return p;
  }

  void load_fixed() {
    fixed_natural_ = compute_fixed_map3d(design_);
    const double inv_vol = 1.0 / (design_.bx * design_.by * design_.bz);
    fixed_rho_.resize(fixed_natural_.size());
    for (std::size_t i = 0; i < fixed_natural_.size(); ++i) fixed_rho_[i] = static_cast<T>(fixed_natural_[i] * inv_vol);
  }

  Footprint3D<T> footprint(std::int64_t c, const T* x, const T* y, const T* z) const {
    const std::int64_t i = position_index3d(grid_, c);
    return cell_footprint3d(grid_, c, x[i], y[i], z[i], w_[c], h_[c], d_[c]);
  }

  void rasterize(const T* x, const T* y, const T* z) {
    const Grid3D<T> g = grid_;
    std::int64_t out_m = 0, out_f = 0;
#pragma omp parallel for num_threads(threads_) schedule(static, 1024) reduction(+ : out_m, out_f)
    for (std::int64_t c = 0; c < g.num_cells; ++c) {
      const Footprint3D<T> f = footprint(c, x, y, z);
      std::int64_t* acc = c < g.num_movable ? acc_movable_.data() : acc_filler_.data();
      for_each_bin3d(f, g, [&](std::int64_t b, T v) {
        const std::int64_t q = to_fixed_point(v, g.fixed_scale);
#pragma omp atomic
        acc[b] += q;
      });
      (c < g.num_movable ? out_m : out_f) += outside_fixed_point3d(f, g);
    }
    outside_[0] = out_m;
    outside_[1] = out_f;
  }

  // rho, and per x-slab the overflow (bin volumes) and the largest movable density; clears the maps.
  void density_pass() {
    const T td = static_cast<T>(design_.options.target_density);
    const std::int64_t slab = static_cast<std::int64_t>(grid_.N) * grid_.L;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int m = 0; m < grid_.M; ++m) {
      double overflow = 0;
      T mx = T(0);
      for (std::int64_t i = m * slab; i < (m + 1) * slab; ++i) {
        const BinDensity<T> b = bin_density(acc_movable_[i], acc_filler_[i], fixed_rho_[i], inv_scale_);
        rho_[i] = b.rho;
        overflow += static_cast<double>(bin_overflow(b.movable_rho, td));
        mx = std::max(mx, b.movable_rho);
        acc_movable_[i] = 0;
        acc_filler_[i] = 0;
      }
      slab_overflow_[m] = overflow;
      slab_max_[m] = static_cast<double>(mx);
    }
  }

  // Calls out(i, inputs) for every coefficient; returns nothing, the energy goes per x-slab.
  template <typename Out>
  void spectral_loop(Out out) {
    const SpectralGrid3D<T> s = spectral_;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (int u = 0; u < s.M; ++u) {
      double e = 0;
      for (int v = 0; v < s.N; ++v)
        for (int l = 0; l < s.L; ++l) {
          const SpectralInputs3D<T> in = spectral_inputs3d(coef_.data(), s, u, v, l);
          e += in.energy;
          out(index3d(u, v, l, s.N, s.L), in);
        }
      slab_energy_[u] = e;
    }
  }

  void spectral() {
    spectral_loop([&](std::int64_t i, const SpectralInputs3D<T>& s) {
      fields_[0][i] = s.ex;
      fields_[1][i] = s.ey;
      fields_[2][i] = s.ez;
      if (exact_) phi_[i] = s.phi;
    });
  }

  void gather(const T* x, const T* y, const T* z, T* gx, T* gy, T* gz, const GradientWrite<T> write) {
    const Grid3D<T> g = grid_;
    const T *yx = fields_[0].data(), *yy = fields_[1].data(), *yz = fields_[2].data();
    const auto sample = [&](int m, int n, int k, std::int64_t i) { return field_sample3d(yx, yy, yz, m, n, k, i); };
#pragma omp parallel for num_threads(threads_) schedule(static, 1024)
    for (std::int64_t c = 0; c < g.num_cells; ++c) {
      const Footprint3D<T> f = footprint(c, x, y, z);
      const Gradient3D<T> d = exact_ ? exact_gradient3d(f, g, phi_.data()) : field_gradient3d(f, g, sample);
      const std::int64_t i = position_index3d(g, c);
      gx[i] = write.value(gx + i, d.x);
      gy[i] = write.value(gy + i, d.y);
      gz[i] = write.value(gz + i, d.z);
    }
    if (design_.options.zero_gap_gradient && !write.accumulate) {
      for (T* grad : {gx, gy, gz}) std::fill(grad + g.num_movable, grad + g.filler_offset, T(0));
    }
  }

  int threads_ = 1;
  Plan3D<T> dct_, idct_;
  Grid3D<T> grid_;
  SpectralGrid3D<T> spectral_;
  bool exact_ = false;
  std::vector<std::int64_t> acc_movable_, acc_filler_;
  std::vector<T> rho_, coef_, phi_, fixed_rho_;
  std::vector<T> fields_[3];  // idct3d outputs y_x, y_y, y_z (sine axes' signs not applied)
  std::vector<double> fixed_natural_, slab_overflow_, slab_max_, slab_energy_;
  std::vector<T> w_, h_, d_;
  std::int64_t outside_[2] = {0, 0};
  T inv_scale_ = 0;
  EvaluateResult last_;
};

}  // namespace

std::unique_ptr<ElectrostaticBackend3D> make_cpu_pipeline3d(Design3D design) {
  const std::int64_t bins = design.num_bins();
  try {
    if (design.options.precision == Precision::Double) return std::make_unique<CpuPipeline3D<double>>(std::move(design));
    return std::make_unique<CpuPipeline3D<float>>(std::move(design));
  } catch (const std::bad_alloc&) {
    throw Error("ElectrostaticSystem3D (CPU): out of memory allocating the buffers of " + std::to_string(bins) +
                " bins (about 60 bytes per bin); use a smaller grid");
  }
}

}  // namespace efield::detail
