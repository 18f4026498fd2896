#pragma once
// bench_accuracy's stage-by-stage references: each step of docs/math.md 2.3-2.9 recomputed in
// double from what a system handed out (its density map, its field maps), so that the float
// system's error against the double system can be split into the part a stage brings in and the
// part it carries from the stages before it.
#include <vector>

#include "common/ispd_stand_ins.hpp"
#include "efield/electrostatic_system.hpp"

namespace efield::bench {

// What one evaluate of a system gives: its scalars, the gradient per cell (movable, then
// fillers) and its maps, all as double.
struct SystemOutputs {
  EvaluateResult result;
  std::vector<double> gx, gy;
  std::vector<double> rho, ex, ey;
};

// docs/math.md 2.5-2.8 in double from a density map: the energy from the coefficients and the
// field maps (CPU double transforms, FFTW).
struct SpectralReference {
  double energy = 0;
  std::vector<double> ex, ey;
};
SpectralReference spectral_in_double(const ElectrostaticOptions& o, const std::vector<double>& rho);

// docs/math.md 2.9 (GradientScale::DreamPlace) in double from field maps: footprints in double
// from positions x, y (movable cells, then fillers).
void gather_in_double(const StandInDesign& d, const ElectrostaticOptions& o, const std::vector<double>& ex,
                      const std::vector<double>& ey, const std::vector<double>& x, const std::vector<double>& y,
                      std::vector<double>* gx, std::vector<double>* gy);

// docs/math.md 2.3-2.4 with the footprints and weights of a T pipeline (cell_footprint<T>,
// footprint_weight<T>, the same inline functions the pipelines call) summed in double, plus the
// fixed map F (area units): the density map as it would be with an exact accumulation. With
// fraction_bits > 0 each weight is first rounded to a whole number of 2^-fraction_bits bin areas
// as the CUDA float maps round it (18 bits in deterministic mode: kEsExactFloatBits).
template <typename T>
std::vector<double> density_in_double(const StandInDesign& d, const ElectrostaticOptions& o,
                                      const std::vector<T>& x, const std::vector<T>& y,
                                      const std::vector<double>& fixed_map, int fraction_bits = 0);

// ||a - b||_2 / ||b - shift||_2 (shift: 0, or the mean of b for a density map, whose mean has no
// potential).
double relative_l2(const std::vector<double>& a, const std::vector<double>& b, double shift = 0);
// ||(ax, ay) - (bx, by)||_2 / ||(bx, by)||_2 over both components.
double relative_l2(const std::vector<double>& ax, const std::vector<double>& ay, const std::vector<double>& bx,
                   const std::vector<double>& by);
// max |(ax, ay) - (bx, by)| / max |(bx, by)|.
double relative_max(const std::vector<double>& ax, const std::vector<double>& ay, const std::vector<double>& bx,
                    const std::vector<double>& by);

}  // namespace efield::bench
