// The CPU electrostatic pipeline (FFTW + efield's thread pool), stage for stage the CUDA one:
//   rasterize (chunks of cells claimed by the threads, each thread adding into its own copy of the
//   fixed-point maps: cpu_density_copies.hpp) -> density pass (the copies summed; rho, overflow,
//   max density, into the permuted layout) -> 2D R2C -> spectral step -> batched 2D C2R (Ex, Ey)
//   -> gather (cells in index order, the fields read from a natural-layout copy; footprints a
//   block at a time: cpu_block_footprints.hpp).
// Deterministic by construction: integer sums are order-free, every floating-point reduction
// is a per-row partial summed in row order, and each gradient is summed by one thread; the
// results are bitwise the same for every thread count. The loops run on a ThreadPool whose
// idle threads block instead of spinning (cpu/thread_pool.hpp).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <string>

#include "common/log.hpp"
#include "electrostatics/backend.hpp"
#include "cpu/fftw.hpp"
#include "cpu/thread_pool.hpp"
#include "electrostatics/cpu_density_copies.hpp"
#include "electrostatics/pipeline_setup.hpp"
#include "math/twiddle.hpp"

namespace efield::detail {
namespace {

template <typename T>
class CpuPipeline final : public ElectrostaticBackend {
  using Api = Fftw<T>;
  using Cpx = Complex<T>;

 public:
  using ElectrostaticBackend::evaluate;  // the other precision's overloads throw (backend.hpp)
  using ElectrostaticBackend::profile;
  explicit CpuPipeline(ElectrostaticDesign design) : ElectrostaticBackend(std::move(design)) {
    const ElectrostaticDesign& d = design_;
    M_ = d.options.num_bins_x;
    N_ = d.options.num_bins_y;
    H_ = N_ / 2 + 1;
    threads_ = d.options.cpu_threads > 0 ? d.options.cpu_threads : omp_get_max_threads();
    pool_ = std::make_unique<ThreadPool>(threads_);
    geom_ = make_cell_geometry<T>(d);
    density_.configure(geom_, threads_);
    grid_ = make_spectral_grid<T>(d);
    tw_m_ = quarter_twiddles<T>(M_);
    tw_n_ = quarter_twiddles<T>(N_);
    grid_.tw_m = tw_m_.data();
    grid_.tw_n = tw_n_.data();
    exact_ = d.options.gradient_scale == GradientScale::Exact;
    zero_gap_ = d.options.zero_gap_gradient;
    load_sizes();
    const size_t bins = static_cast<size_t>(M_) * N_;
    row_overflow_.assign(M_, 0.0);
    row_max_.assign(M_, T(0));
    row_energy_.assign(M_ / 2 + 1, 0.0);
    rho_ = FftwBuffer<T, T>(bins);
    spectrum_ = FftwBuffer<T, Cpx>(static_cast<size_t>(M_) * H_);
    w_fields_ = FftwBuffer<T, Cpx>(2 * static_cast<size_t>(M_) * H_);
    y_fields_ = FftwBuffer<T, T>(2 * bins);
    fields_natural_.assign(2 * bins, T(0));
    w_phi_ = FftwBuffer<T, Cpx>(static_cast<size_t>(M_) * H_);
    y_phi_ = FftwBuffer<T, T>(bins);
    std::fill(rho_.get(), rho_.get() + bins, T(0));
    std::fill(y_fields_.get(), y_fields_.get() + 2 * bins, T(0));
    std::fill(spectrum_.get(), spectrum_.get() + static_cast<size_t>(M_) * H_, Cpx{T(0), T(0)});
    fixed_natural_ = compute_fixed_map(d);
    fixed_rho_ = permuted_fixed_density<T>(d, fixed_natural_);
    scale_ = static_cast<T>(std::ldexp(1.0, FixedPointBits<T>::value));
    inv_scale_ = static_cast<T>(std::ldexp(1.0, -FixedPointBits<T>::value));
    bin_cell_ = static_cast<T>(scale_ / (d.bx * d.by));

    const int dims[2] = {M_, N_};
    forward_ = fftw_plan_real<T>(true, 2, dims, 1, rho_.get(), spectrum_.get(), threads_, FFTW_ESTIMATE);
    // C2R destroys its input; w_* are rewritten before every execution.
    fields_ = fftw_plan_real<T>(false, 2, dims, 2, y_fields_.get(), w_fields_.get(), threads_,
                                FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
    potential_ = fftw_plan_real<T>(false, 2, dims, 1, y_phi_.get(), w_phi_.get(), threads_,
                                   FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
    if (!forward_ || !fields_ || !potential_) throw Error("ElectrostaticSystem (CPU): FFTW could not make a plan");
  }

  ~CpuPipeline() override {
    fftw_destroy_real<T>(forward_);
    fftw_destroy_real<T>(fields_);
    fftw_destroy_real<T>(potential_);
  }

  EvaluateResult evaluate(const T* x, const T* y, T* gx, T* gy, const EvaluateOptions& eo) override {
    const GradientWrite<T> write{static_cast<T>(eo.weight), eo.accumulate};
    rasterize(x, y);
    density_pass();
    Api::execute(forward_);
    spectral();
    Api::execute(fields_);
    if (exact_) potential();
    gather(x, y, gx, gy, write);
    last_ = finish();
    return last_;
  }
  EvaluateResult wait_result() override { return last_; }

  StageTimes profile(const T* x, const T* y, T* gx, T* gy, int reps) override {
    using clock = std::chrono::steady_clock;
    std::vector<double> t[6];
    evaluate(x, y, gx, gy, {});  // warm-up
    for (int r = 0; r < reps; ++r) {
      const auto t0 = clock::now();
      rasterize(x, y);
      density_pass();
      const auto t1 = clock::now();
      Api::execute(forward_);
      const auto t2 = clock::now();
      spectral();
      const auto t3 = clock::now();
      Api::execute(fields_);
      if (exact_) potential();
      const auto t4 = clock::now();
      gather(x, y, gx, gy, GradientWrite<T>{});
      finish();
      const auto t5 = clock::now();
      const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
      t[0].push_back(ms(t0, t1));
      t[1].push_back(ms(t1, t2));
      t[2].push_back(ms(t2, t3));
      t[3].push_back(ms(t3, t4));
      t[4].push_back(ms(t4, t5));
      t[5].push_back(ms(t0, t5));
    }
    return median_stage_times(t, reps);
  }

  std::vector<double> density_map() override { return unpermute(rho_.get(), M_, N_, -1); }
  std::vector<double> field_x_map() override { return unpermute(y_fields_.get(), M_, N_, 0); }
  std::vector<double> field_y_map() override {
    return unpermute(y_fields_.get() + static_cast<size_t>(M_) * N_, M_, N_, 1);
  }
  std::vector<double> potential_map() override {
    if (!exact_) potential();  // GradientScale::Exact computed it in evaluate
    return unpermute(y_phi_.get(), M_, N_, -1);
  }
  std::vector<double> fixed_map() override { return fixed_natural_; }
  void update_fixed_cells(const FixedCells& fixed) override {
    design_.fixed = fixed;
    fixed_natural_ = compute_fixed_map(design_);
    fixed_rho_ = permuted_fixed_density<T>(design_, fixed_natural_);
  }
  Backend backend() const noexcept override { return Backend::Cpu; }

 protected:
  void sizes_changed() override { load_sizes(); }

 private:
  void load_sizes() {
    const ElectrostaticDesign& d = design_;
    const std::int64_t nc = d.num_cells();
    widths_.resize(nc);
    heights_.resize(nc);
    for (std::int64_t c = 0; c < nc; ++c) {
      widths_[c] = static_cast<T>(d.width(c));
      heights_[c] = static_cast<T>(d.height(c));
    }
    geom_.movable_macro = d.has_movable_macros() ? d.movable.movable_macro_mask.data() : nullptr;
    density_.set_sizes(widths_.data(), heights_.data(), geom_.movable_macro);
  }

  // phi (permuted) from the spectrum of the latest evaluate (nothing else writes spectrum_).
  void potential() {
    const int v_count = N_ / 2 + 1;
    pool_->for_range(M_ / 2 + 1, rows_per_chunk(v_count), [&](std::int64_t u0, std::int64_t u1) {
      for (std::int64_t u = u0; u < u1; ++u)
        for (int v = 0; v < v_count; ++v)
          spectral_potential_step(spectrum_.get(), w_phi_.get(), grid_, static_cast<int>(u), v);
    });
    Api::execute(potential_);
  }

  // How many cells ahead the gather loads the field lines of a cell.
  static constexpr int kAhead = 8;

  void rasterize(const T* x, const T* y) { density_.rasterize(*pool_, x, y, bin_cell_, outside_fixed_); }

  // Rows of about 2048 bins per chunk of a row loop (at least one row): tens of microseconds of
  // work, and enough chunks for 16 threads at 512 x 512 (the spectral loop has M/2 + 1 rows).
  static std::int64_t rows_per_chunk(int row_length) { return std::max<std::int64_t>(1, 2048 / row_length); }

  // rho, overflow and max density per row of the permuted layout; clears the accumulators.
  void density_pass() {
    const T td = static_cast<T>(design_.options.target_density);
    pool_->for_range(M_, rows_per_chunk(N_), [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        // Permuted row r holds natural row m; its column j natural column makhoul_source(j).
        const int m = makhoul_source(static_cast<int>(r), M_);
        const std::int64_t *acc_m, *acc_f;
        density_.take_row(m, &acc_m, &acc_f);
        T* rho = rho_.get() + static_cast<size_t>(r) * N_;
        const T* fixed = fixed_rho_.data() + static_cast<size_t>(r) * N_;
        // Bin j's rho; its overflow and movable density into the sums of lane j % 4 (four
        // independent chains instead of one: the loop waits on no addition).
        double overflow[4] = {0, 0, 0, 0};
        T mx[4] = {T(0), T(0), T(0), T(0)};
        const auto bin = [&](int j, int lane) {
          const int n = makhoul_source(j, N_);
          const BinDensity<T> b = bin_density(acc_m[n], acc_f[n], fixed[j], inv_scale_);
          rho[j] = b.rho;
          overflow[lane] += static_cast<double>(bin_overflow(b.movable_rho, td));
          mx[lane] = std::max(mx[lane], b.movable_rho);
        };
        int j = 0;
        for (; j + 4 <= N_; j += 4) bin(j, 0), bin(j + 1, 1), bin(j + 2, 2), bin(j + 3, 3);
        for (; j < N_; ++j) bin(j, j & 3);
        density_.clear_row(m);
        row_overflow_[r] = (overflow[0] + overflow[1]) + (overflow[2] + overflow[3]);
        row_max_[r] = std::max(std::max(mx[0], mx[1]), std::max(mx[2], mx[3]));
      }
    });
  }

  void spectral() {
    const int v_count = N_ / 2 + 1;
    Cpx* w_x = w_fields_.get();
    Cpx* w_y = w_x + static_cast<size_t>(M_) * H_;
    pool_->for_range(M_ / 2 + 1, rows_per_chunk(v_count), [&](std::int64_t u0, std::int64_t u1) {
      for (std::int64_t u = u0; u < u1; ++u) {
        double e = 0;
        for (int v = 0; v < v_count; ++v)
          e += spectral_field_step(spectrum_.get(), w_x, w_y, grid_, static_cast<int>(u), v);
        row_energy_[u] = e;
      }
    });
  }

  // The gradients, cells in index order in chunks across the threads (each cell's sum is taken
  // by one thread in a fixed order: bitwise the same for any thread count).
  void gather(const T* x, const T* y, T* gx, T* gy, const GradientWrite<T> write) {
    const CellGeometry<T> g = geom_;
    if (!exact_) natural_fields();
    constexpr std::int64_t kCellsPerChunk = 2048;
    pool_->for_range(g.num_cells, kCellsPerChunk, [&](std::int64_t c0, std::int64_t c1) {
      BlockFootprints<T> fp;
      const T* fields = fields_natural_.data();
      const std::size_t N = static_cast<std::size_t>(g.N);
      // Blocks of cells whose positions are consecutive (movable cells, then fillers).
      for (std::int64_t b0 = c0; b0 < c1;) {
        const std::int64_t b1 = std::min({c1, b0 + kBlock, b0 < g.num_movable ? g.num_movable : c1});
        const std::int64_t i0 = position_index(g, b0);
        const int count = static_cast<int>(b1 - b0);
        block_footprints(g, b0, x + i0, y + i0, widths_.data() + b0, heights_.data() + b0, count, fp);
        for (int k = 0; k < count; ++k) {
          if (!exact_ && k + kAhead < count) {
            // The field lines of a cell a few ahead: the sums below then rarely wait on memory.
            const int j = k + kAhead, m0 = fp.m0[j], m1 = fp.m1[j];
            __builtin_prefetch(fields + 2 * (static_cast<std::size_t>(m0) * N + fp.n0[j]));
            __builtin_prefetch(fields + 2 * (static_cast<std::size_t>(std::min(m0 + 1, m1)) * N + fp.n0[j]));
            __builtin_prefetch(fields + 2 * (static_cast<std::size_t>(m1) * N + fp.n0[j]));
          }
          const std::int64_t i = i0 + k;
          T dx, dy;
          cell_gradient(fp[k], &dx, &dy);
          gx[i] = write.value(gx + i, dx);
          gy[i] = write.value(gy + i, dy);
        }
        b0 = b1;
      }
    });
    const std::int64_t gap_begin = g.num_movable, gap_end = g.filler_offset;
    if (zero_gap_ && !write.accumulate && gap_end > gap_begin) {
      std::fill(gx + gap_begin, gx + gap_end, T(0));
      std::fill(gy + gap_begin, gy + gap_end, T(0));
    }
  }

  // Ex, Ey in natural layout, interleaved per bin, the sine axes' signs applied: Ex = (-1)^m y_x,
  // Ey = (-1)^n y_y (electrostatics.hpp). A footprint's bins are then neighbouring addresses.
  // The products in the gather are unchanged: (w s) e = w (s e) for s = +-1.
  void natural_fields() {
    const T* yx = y_fields_.get();
    const T* yy = yx + static_cast<size_t>(M_) * N_;
    pool_->for_range(M_, rows_per_chunk(N_), [&](std::int64_t m0, std::int64_t m1) {
      for (std::int64_t m = m0; m < m1; ++m) {
        const std::int64_t row = static_cast<std::int64_t>(makhoul_position(static_cast<int>(m), M_)) * N_;
        const T sign_m = alternating_sign<T>(static_cast<int>(m));
        T* out = fields_natural_.data() + 2 * m * N_;
        for (int n = 0; n < N_; ++n) {
          const std::int64_t k = row + makhoul_position(n, N_);
          out[2 * n] = sign_m * yx[k];
          out[2 * n + 1] = alternating_sign<T>(n) * yy[k];
        }
      }
    });
  }

  // One cell's density gradient: DREAMPlace's field estimate -sum w E (the weights are
  // footprint_weight's (charge * ox) * oy), or with GradientScale::Exact dE/dx from phi.
  void cell_gradient(const Footprint<T>& f, T* dx, T* dy) const {
    const CellGeometry<T>& g = geom_;
    if (exact_) {
      const T* phi = y_phi_.get();
      exact_footprint_gradient(f, g, [&](int m, int n) { return phi[permuted_index(m, n, g.M, g.N)]; }, dx, dy);
      return;
    }
    T sx = 0, sy = 0;
    if (misses_grid(f, g)) {
      *dx = -sx, *dy = -sy;  // every weight is 0: the sums stay +0
      return;
    }
    const int cols = f.n1 - f.n0 + 1;
    constexpr int kSpan = DensityCopies<T>::kSpan;
    if (cols <= kSpan) {
      T oy[kSpan];
      for (int j = 0; j < cols; ++j) oy[j] = overlap_y(f, g, f.n0 + j);
      for (int m = f.m0; m <= f.m1; ++m) {
        const T cx = f.charge * overlap_x(f, g, m);
        const T* e = fields_natural_.data() + 2 * (static_cast<std::int64_t>(m) * g.N + f.n0);
        for (int j = 0; j < cols; ++j) {
          const T wgt = cx * oy[j];
          sx += wgt * e[2 * j];
          sy += wgt * e[2 * j + 1];
        }
      }
    } else {
      for (int m = f.m0; m <= f.m1; ++m) {
        const T cx = f.charge * overlap_x(f, g, m);
        const T* e = fields_natural_.data() + 2 * static_cast<std::int64_t>(m) * g.N;
        for (int n = f.n0; n <= f.n1; ++n) {
          const T wgt = cx * overlap_y(f, g, n);
          sx += wgt * e[2 * n];
          sy += wgt * e[2 * n + 1];
        }
      }
    }
    *dx = -sx;
    *dy = -sy;
  }

  EvaluateResult finish() const {
    double overflow = 0, energy = 0;
    T mx = T(0);
    for (int r = 0; r < M_; ++r) {
      overflow += row_overflow_[r];
      mx = std::max(mx, row_max_[r]);
    }
    for (double e : row_energy_) energy += e;
    EvaluateResult res;
    res.energy = energy * (static_cast<double>(M_) * N_ / 4.0);
    res.overflow = design_.movable_area > 0 ? overflow * design_.bx * design_.by / design_.movable_area : 0.0;
    res.max_density = static_cast<double>(mx);
    const double outside_scale = std::ldexp(design_.bx * design_.by, -kOutsideFractionBits);
    res.movable_area_outside = static_cast<double>(outside_fixed_[0]) * outside_scale;
    res.filler_area_outside = static_cast<double>(outside_fixed_[1]) * outside_scale;
    return res;
  }

  int M_ = 0, N_ = 0, H_ = 0, threads_ = 1;
  bool exact_ = false;  // GradientScale::Exact
  bool zero_gap_ = false;
  std::int64_t outside_fixed_[2] = {0, 0};  // movable, filler: outside_fixed_point sums
  EvaluateResult last_;
  CellGeometry<T> geom_;
  SpectralGrid<T> grid_;
  std::vector<Cpx> tw_m_, tw_n_;
  std::vector<T> widths_, heights_;
  std::unique_ptr<ThreadPool> pool_;
  DensityCopies<T> density_;
  std::vector<T> fields_natural_;  // (Ex, Ey) per bin, natural layout [M][N] (natural_fields)
  std::vector<double> row_overflow_, row_energy_;
  std::vector<T> row_max_;
  std::vector<double> fixed_natural_;
  std::vector<T> fixed_rho_;
  T scale_ = 0, inv_scale_ = 0, bin_cell_ = 0;
  FftwBuffer<T, T> rho_, y_fields_, y_phi_;
  FftwBuffer<T, Cpx> spectrum_, w_fields_, w_phi_;
  typename Api::Plan forward_ = nullptr, fields_ = nullptr, potential_ = nullptr;
};

}  // namespace

std::unique_ptr<ElectrostaticBackend> make_cpu_pipeline(ElectrostaticDesign design) {
  const int M = design.options.num_bins_x, N = design.options.num_bins_y;
  const int threads = design.options.cpu_threads > 0 ? design.options.cpu_threads : omp_get_max_threads();
  try {
    if (design.options.precision == Precision::Double) return std::make_unique<CpuPipeline<double>>(std::move(design));
    return std::make_unique<CpuPipeline<float>>(std::move(design));
  } catch (const std::bad_alloc&) {
    throw Error("ElectrostaticSystem (CPU): out of memory allocating the buffers of a " + std::to_string(M) + " x " +
                std::to_string(N) + " bin grid for " + std::to_string(threads) +
                " threads (about 100 bytes per bin, plus 16 per bin per thread up to 1 GiB); use a smaller grid or "
                "fewer cpu_threads");
  }
}

}  // namespace efield::detail
