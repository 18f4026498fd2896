// libFuzzer target for the input validation of efield::ElectrostaticSystem (CPU backend).
//
// One input picks an ElectrostaticOptions (region, bin grid, target density, precision, backend,
// gradient scale and cpu_threads, enum fields given raw integers in and out of range), movable,
// filler and fixed cells, positions, and an evaluate's weight and accumulate flag, from tables of
// ordinary and hostile numbers (0, negative, NaN, infinities, values past float's range, tiny
// denormals). Every construction and evaluate must either throw efield::Error or succeed with
// finite results (energy, overflow, max density, every gradient entry); anything else (another
// exception, a non-finite result, a crash, a sanitizer report) is a finding.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/error.hpp"
#include "efield/log.hpp"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Coordinates and sizes: ordinary values first (the fuzzer picks small indices more often).
constexpr double kValues[] = {0.5, 1, 2, 3.25, 10, 64, 100, 0.01, 1000, 0, -1, -100, 1e-3, 1e6, 1e12,
                              1e30, 1e38, 4e38, 1e300, 1e-30, 1e-45, 1e-310, -1e38, kInf, -kInf, kNan};
constexpr double kWeights[] = {1, 0, -1, 0.5, 1e6, 1e30, 3e38, 1e39, -1e39, 1e300, kInf, kNan};

double pick(FuzzedDataProvider& in, const double* table, std::size_t n) {
  return table[in.ConsumeIntegralInRange<std::size_t>(0, n - 1)];
}
double value(FuzzedDataProvider& in) { return pick(in, kValues, std::size(kValues)); }

void require(bool ok) {
  if (!ok) std::abort();  // libFuzzer reports the input
}

efield::CellSizes cells(FuzzedDataProvider& in, int max_count) {
  efield::CellSizes c;
  const int n = in.ConsumeIntegralInRange(0, max_count);
  for (int i = 0; i < n; ++i) c.widths.push_back(value(in)), c.heights.push_back(value(in));
  if (in.ConsumeBool() && !c.heights.empty()) c.heights.pop_back();  // counts that disagree
  return c;
}

template <typename T>
void evaluate(efield::ElectrostaticSystem& system, FuzzedDataProvider& in) {
  const std::int64_t nm = system.num_movable(), nf = system.num_fillers();
  const std::int64_t length = std::max<std::int64_t>(nm, system.options().filler_offset + nf) + 1;
  std::vector<T> x(length), y(length), gx(length, T(0)), gy(length, T(0));
  for (std::int64_t i = 0; i < length; ++i) x[i] = static_cast<T>(value(in)), y[i] = static_cast<T>(value(in));
  efield::EvaluateOptions eo;
  eo.weight = pick(in, kWeights, std::size(kWeights));
  eo.accumulate = in.ConsumeBool();
  // The same array as both gradients, sometimes: must be refused, never half-written.
  T* gy_ptr = in.ConsumeIntegralInRange(0, 7) == 0 ? gx.data() : gy.data();
  const efield::EvaluateResult r = system.evaluate(x.data(), y.data(), gx.data(), gy_ptr, eo);
  require(std::isfinite(r.energy) && std::isfinite(r.overflow) && std::isfinite(r.max_density) &&
          std::isfinite(r.movable_area_outside) && std::isfinite(r.filler_area_outside));
  // A weight near the top of T's range may overflow weight * gradient, as any T arithmetic would;
  // ordinary weights must give finite gradients.
  if (std::fabs(eo.weight) <= 1e6)
    for (std::int64_t i = 0; i < length; ++i) require(std::isfinite(gx[i]) && std::isfinite(gy[i]));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  efield::set_log_level("off");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  efield::ElectrostaticOptions o;
  o.xl = value(in), o.yl = value(in);
  o.xh = o.xl + value(in), o.yh = o.yl + value(in);
  o.num_bins_x = in.ConsumeIntegralInRange(-2, 48);
  o.num_bins_y = in.ConsumeIntegralInRange(-2, 48);
  o.target_density = pick(in, kValues, std::size(kValues));
  o.precision = static_cast<efield::Precision>(in.ConsumeIntegralInRange(-1, 3));
  o.backend = in.ConsumeIntegralInRange(0, 5) == 0 ? static_cast<efield::Backend>(in.ConsumeIntegralInRange(3, 9))
                                                   : efield::Backend::Cpu;
  o.gradient_scale = static_cast<efield::GradientScale>(in.ConsumeIntegralInRange(-1, 7));
  constexpr int kThreads[] = {1, 2, 0, 3, -1, 100000};
  o.cpu_threads = kThreads[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kThreads) - 1)];
  o.filler_offset = in.ConsumeIntegralInRange<std::int64_t>(-3, 40);
  o.zero_gap_gradient = in.ConsumeBool();
  const efield::CellSizes movable = cells(in, 12);
  const efield::CellSizes fillers = cells(in, 6);
  efield::FixedCells fixed;
  const int nfixed = in.ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < nfixed; ++i) {
    fixed.widths.push_back(value(in)), fixed.heights.push_back(value(in));
    fixed.x.push_back(value(in)), fixed.y.push_back(value(in));
  }
  try {
    efield::ElectrostaticSystem system(o, movable, fillers, fixed);
    for (int k = in.ConsumeIntegralInRange(1, 2); k > 0; --k) {
      if (system.options().precision == efield::Precision::Float) evaluate<float>(system, in);
      else evaluate<double>(system, in);
    }
  } catch (const efield::Error&) {
    // A clear error is a correct answer to a bad input.
  }
  return 0;
}
