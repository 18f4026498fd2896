// bench_accuracy: how close the float ElectrostaticSystem comes to the double one on an ISPD-scale
// stand-in (bigblue4-like: 2.2M cells + fillers, 2048 x 2048 bins; adaptec1-like: 512 x 512), and
// where its error enters. Both systems evaluate the same positions once; the table gives the
// float system's error against the double system's results, stage by stage, each split into the
// part the stage brings in and the part it carries from the stages before it (the stage redone in
// double from the float system's own input to it: bench_ispd/common/accuracy_stages.hpp).
//
// Errors: maps and gradients relative L2, ||a32 - a64||_2 / ||a64||_2 (the tests' measure; a
// density map against its fluctuation, ||rho64 - mean||, since its mean has no potential); the
// gradient also as max |g32 - g64| / max |g64|; scalars |s32 - s64| / |s64|.
// --positions float (default): both systems get the same float coordinates (the pipeline's own
// error); double: the double system gets coordinates within half a float ulp of them, as a placer
// holding double positions would hand a float system rounded ones (the input's rounding counted).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/accuracy_stages.hpp"
#include "common/cli.hpp"
#include "common/ispd_stand_ins.hpp"
#include "common/timing.hpp"
#include "efield/efield.hpp"

namespace {

using efield::bench::StandInDesign;
using efield::bench::SystemOutputs;

template <typename T>
SystemOutputs evaluate_once(const efield::ElectrostaticOptions& o, const StandInDesign& d, const std::vector<T>& x,
                            const std::vector<T>& y, std::vector<double>* fixed_map) {
  efield::ElectrostaticSystem es(o, d.movable, d.fillers, d.fixed);
  std::vector<T> gx(x.size()), gy(x.size());
  SystemOutputs out;
  out.result = es.evaluate(x.data(), y.data(), gx.data(), gy.data());
  out.gx.assign(gx.begin(), gx.end());
  out.gy.assign(gy.begin(), gy.end());
  out.rho = es.density_map();
  out.ex = es.field_x_map();
  out.ey = es.field_y_map();
  if (fixed_map != nullptr) *fixed_map = es.fixed_map();
  return out;
}

double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-300); }

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double e : v) s += e;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Float against double ElectrostaticSystem on an ISPD-scale stand-in: the float system's error, "
               "stage by stage (density map, energy, fields, gradient), and where it enters.",
               "bench_accuracy"};
  std::string design = "bigblue4", backend = "cpu", placement = "random", positions = "float", markdown;
  int threads = 0;
  bool nondeterministic = false;
  app.add_option("--design", design, "stand-in")->check(CLI::IsMember({"adaptec1", "bigblue4"}))->capture_default_str();
  app.add_option("--backend", backend, "backend of both systems")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--placement", placement, "cell positions")
      ->check(CLI::IsMember({"random", "sorted", "piled"}))
      ->capture_default_str();
  app.add_option("--positions", positions,
                 "float: both systems get the same float coordinates; double: the double system's are within half a "
                 "float ulp of them (the input's rounding counted)")
      ->check(CLI::IsMember({"float", "double"}))
      ->capture_default_str();
  app.add_option("--threads", threads, "CPU threads (0: all)")->capture_default_str();
  app.add_flag("--nondeterministic", nondeterministic, "deterministic = false");
  app.add_option("--markdown", markdown, "also write the table to FILE")->type_name("FILE");
  CLI11_PARSE(app, argc, argv);

  if (backend == "cuda" && efield::cuda_device_count() == 0) {
    std::printf("bench_accuracy: no CUDA device\n");
    return 0;
  }
  try {
    const efield::bench::StandInPlacement where = placement == "sorted" ? efield::bench::StandInPlacement::Sorted
                                                  : placement == "piled" ? efield::bench::StandInPlacement::Piled
                                                                         : efield::bench::StandInPlacement::Random;
    const StandInDesign d = efield::bench::make_ispd_stand_in(design, where);
    efield::ElectrostaticOptions o = efield::bench::stand_in_options(d);
    o.backend = backend == "cuda" ? efield::Backend::Cuda : efield::Backend::Cpu;
    o.deterministic = !nondeterministic;
    o.cpu_threads = threads;
    const std::vector<float>& x32 = d.x;
    const std::vector<float>& y32 = d.y;
    std::vector<double> x64(x32.begin(), x32.end()), y64(y32.begin(), y32.end());
    if (positions == "double") {  // within half an ulp: x32 is x64 rounded to float
      std::mt19937_64 gen(7);
      std::uniform_real_distribution<double> half(-0.4999, 0.4999);
      for (std::vector<double>* v : {&x64, &y64})
        for (double& e : *v) e += half(gen) * (std::nextafter(static_cast<float>(e), INFINITY) - static_cast<float>(e));
    }
    std::vector<double> fixed;
    efield::ElectrostaticOptions o64 = o;
    o64.precision = efield::Precision::Double;
    const SystemOutputs s64 = evaluate_once(o64, d, x64, y64, &fixed);
    o.precision = efield::Precision::Float;
    const SystemOutputs s32 = evaluate_once(o, d, x32, y32, nullptr);

    // The stages redone in double from the float system's inputs to them.
    const std::vector<double> rho_fp32 = efield::bench::density_in_double(d, o, x32, y32, fixed);
    const std::vector<double> rho_fp64 = efield::bench::density_in_double(d, o, x64, y64, fixed);
    // The CUDA float maps' rounding of each contribution (2^-18 bin areas), on the float footprints.
    const std::vector<double> rho_cuda = efield::bench::density_in_double(d, o, x32, y32, fixed, 18);
    const efield::bench::SpectralReference from_rho_cuda = efield::bench::spectral_in_double(o, rho_cuda);
    const efield::bench::SpectralReference from_rho32 = efield::bench::spectral_in_double(o, s32.rho);
    const efield::bench::SpectralReference from_rho64 = efield::bench::spectral_in_double(o, s64.rho);
    std::vector<double> gx_f32, gy_f32, gx_f64, gy_f64;
    efield::bench::gather_in_double(d, o, s32.ex, s32.ey, x64, y64, &gx_f32, &gy_f32);
    efield::bench::gather_in_double(d, o, s64.ex, s64.ey, x64, y64, &gx_f64, &gy_f64);

    using efield::bench::relative_l2;
    const double rho_mean = mean(s64.rho);
    const double e64 = s64.result.energy;
    std::string md;
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "float against double, %s, %s (%s), %s, commit %s, %s, %s positions (%s), %lld movable + %lld "
                  "fillers, %dx%d bins.\n\n",
                  d.name.c_str(), backend.c_str(),
                  backend == "cuda" ? efield::bench::device_name().c_str() : efield::bench::cpu_description().c_str(),
                  efield::bench::today().c_str(), efield::bench::source_commit().c_str(),
                  nondeterministic ? "deterministic = false" : "deterministic", placement.c_str(),
                  positions == "float" ? "the same float coordinates for both"
                                       : "double coordinates, rounded to float for the float system",
                  static_cast<long long>(d.movable.widths.size()), static_cast<long long>(d.fillers.widths.size()),
                  d.bins, d.bins);
    md += buf;
    md += "| stage | float vs double | of which the stage's own | carried from before |\n| --- | ---: | ---: | ---: |\n";
    const auto row = [&](const char* name, double total, double own, double carried) {
      std::snprintf(buf, sizeof buf, "| %s | %.3e | %.3e | %.3e |\n", name, total, own, carried);
      md += buf;
    };
    // The density map: footprints' arithmetic (own: float footprints summed in double against
    // double ones) and the accumulation (the float map against its footprints summed in double).
    row("density map rho (accumulation; footprints carried)", relative_l2(s32.rho, s64.rho, rho_mean),
        relative_l2(s32.rho, rho_fp32, rho_mean), relative_l2(rho_fp32, s64.rho, rho_mean));
    row("energy (spectral step + energy sum; rho carried)", rel(s32.result.energy, e64),
        std::fabs(s32.result.energy - from_rho32.energy) / e64, rel(from_rho32.energy, e64));
    row("fields Ex, Ey (transforms + spectral; rho carried)", relative_l2(s32.ex, s32.ey, s64.ex, s64.ey),
        relative_l2(s32.ex, s32.ey, from_rho32.ex, from_rho32.ey),
        relative_l2(from_rho32.ex, from_rho32.ey, s64.ex, s64.ey));
    row("gradient, relative L2 (gather; fields carried)", relative_l2(s32.gx, s32.gy, s64.gx, s64.gy),
        relative_l2(s32.gx, s32.gy, gx_f32, gy_f32), relative_l2(gx_f32, gy_f32, s64.gx, s64.gy));
    row("gradient, max abs / max |g64| (gather; fields carried)", efield::bench::relative_max(s32.gx, s32.gy, s64.gx, s64.gy),
        efield::bench::relative_max(s32.gx, s32.gy, gx_f32, gy_f32),
        efield::bench::relative_max(gx_f32, gy_f32, s64.gx, s64.gy));
    std::snprintf(buf, sizeof buf, "| overflow | %.3e | | |\n| max density | %.3e | | |\n",
                  rel(s32.result.overflow, s64.result.overflow), rel(s32.result.max_density, s64.result.max_density));
    md += buf;
    std::snprintf(buf, sizeof buf,
                  "\nThe double system against the same stage references (their own round-off): density map %.1e "
                  "(footprints summed in double), energy %.1e, fields %.1e, gradient %.1e. Values: energy %.9g "
                  "(float %.9g), overflow %.6f, max density %.4f.\n",
                  relative_l2(rho_fp64, s64.rho, rho_mean), rel(from_rho64.energy, e64),
                  relative_l2(from_rho64.ex, from_rho64.ey, s64.ex, s64.ey),
                  relative_l2(gx_f64, gy_f64, s64.gx, s64.gy), e64, s32.result.energy, s64.result.overflow,
                  s64.result.max_density);
    md += buf;
    std::snprintf(buf, sizeof buf,
                  "The CUDA float maps' rounding of each contribution to 2^-18 bin areas (deterministic), emulated "
                  "on the float footprints, against the double system: density map %.1e, energy %.1e, fields %.1e.\n",
                  relative_l2(rho_cuda, s64.rho, rho_mean), rel(from_rho_cuda.energy, e64),
                  relative_l2(from_rho_cuda.ex, from_rho_cuda.ey, s64.ex, s64.ey));
    md += buf;
    std::printf("%s", md.c_str());
    if (!markdown.empty()) efield::bench::save_text(markdown, md);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_accuracy: %s\n", e.what());
    return 1;
  }
  return 0;
}
