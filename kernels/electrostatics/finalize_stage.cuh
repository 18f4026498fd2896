#pragma once
// Internal: the last stage of the CUDA pipeline: one block reduces the density and spectral
// stages' partials in a fixed order into the evaluate's scalars, written straight into pinned
// host memory (mapped into the device's address space), so no copy node follows the kernel.
// Kernel: finalize.cu.
#include <algorithm>
#include <cmath>

#include "electrostatics/backend.hpp"
#include "electrostatics/density_stage.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/spectral_stage.cuh"

namespace efield::detail {

template <typename T>
class FinalizeStage {
 public:
  FinalizeStage() : result_(kEsResultSlots) { std::fill(result_.get(), result_.get() + kEsResultSlots, 0.0); }

  // The scales come from `d` as it is now (a size update changes the movable area; the captured
  // graphs are captured again after one).
  void enqueue(const ElectrostaticDesign& d, const DensityStage<T>& density, const SpectralStage<T>& spectral,
               Bins bins, cudaStream_t stream) const {
    FinalizeArgs<T> f{};
    density.fill_finalize_args(bins, &f);
    spectral.fill_finalize_args(&f);
    f.overflow_scale = d.movable_area > 0 ? d.bx * d.by / d.movable_area : 0.0;
    f.outside_scale = std::ldexp(d.bx * d.by, -kOutsideFractionBits);
    f.result = result_.get();
    launch_finalize(f, stream);
  }

  // The latest finalize's scalars (valid once it ran).
  EvaluateResult result() const {
    const double* r = result_.get();
    EvaluateResult out;
    out.energy = r[0];
    out.overflow = r[1];
    out.max_density = r[2];
    out.movable_area_outside = r[3];
    out.filler_area_outside = r[4];
    return out;
  }
  // Whether the latest run flagged a bin whose sum may have rounded (bins that check).
  bool rerun_flagged() const { return result_.get()[kEsRerunSlot] != 0; }
  const double* device_result() const { return result_.get(); }

 private:
  EsPinnedArray<double> result_;  // kEsResultSlots values
};

}  // namespace efield::detail
