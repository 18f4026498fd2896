#pragma once
// Internal: the small-grid stage of the CUDA pipeline: on grids the policy table admits
// (pipeline_policy.cuh, kEsSmallFieldRows), one launch of the one-block field kernel
// (small_field.cuh) takes the place of the spectral stage, field_tiles and finalize (and with
// 64-bit bins in two maps, evaluate_async's deterministic float bins, of the density pass too). It owns the
// FFT's line twiddles and the energy partial; it writes into the spectral stage's spectrum and
// field buffers and the gather stage's tiled map, so the maps on request and the gather read the
// same buffers whichever path ran.
#include <cstdint>
#include <vector>

#include "common/device_properties.hpp"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/pipeline_layout.hpp"
#include "electrostatics/pipeline_policy.cuh"
#include "electrostatics/small_field.cuh"
#include "math/twiddle.hpp"

namespace efield::detail {

template <typename T>
class SmallFieldStage {
 public:
  SmallFieldStage() = default;
  // mode: the layout hook's choice; reads_field_map: the gather reads the tiled field map (not
  // phi: GradientScale::Exact takes the general path).
  SmallFieldStage(const ElectrostaticDesign& d, EsPipelineLayout::SmallField mode, bool reads_field_map, bool overlap)
      : M_(d.options.num_bins_x), N_(d.options.num_bins_y), overlap_(overlap) {
    constexpr bool is_double = sizeof(T) == sizeof(double);
    using Mode = EsPipelineLayout::SmallField;
    const int cc = current_compute_capability();
    const bool wanted = mode == Mode::Always    ? es_small_field_shape(M_, N_)
                        : mode == Mode::ByTable ? es_small_field_applies(M_, N_, is_double, cc)
                                                : false;
    active_ = reads_field_map && wanted && prepare_small_field<T>(M_, N_);
    if (!active_) return;
    const std::vector<Complex<T>> tm = root_twiddles<T>(M_, M_ / 2), tn = root_twiddles<T>(N_, N_ / 2);
    tw_m_ = EsDeviceArray<Complex<T>>(tm.size());
    tw_n_ = EsDeviceArray<Complex<T>>(tn.size());
    es_upload(tw_m_.get(), tm.data(), tm.size());
    es_upload(tw_n_.get(), tn.data(), tn.size());
    part_energy_ = EsDeviceArray<double>(1);
  }

  bool active() const { return active_; }

  // rho -> spectrum, Ex + i Ey, the tiled map e (weight folded in), and the scalars (finalize:
  // the density stage's partials as FinalizeStage::args fills them).
  // fold: the density pass's arguments when DensityStage::enqueue left the pass to this kernel (its
  // acc nullptr otherwise).
  void enqueue(const SpectralGrid<T>& grid, const T* rho, Complex<T>* spectrum, Complex<T>* fields, EsVec2<T>* e,
               const T* weight, FinalizeArgs<T> finalize, const DensityPassArgs<T>& fold, cudaStream_t stream) const {
    SmallFieldArgs<T> a{};
    a.g = grid;
    a.rho = rho;
    a.line_tw_m = tw_m_.get();
    a.line_tw_n = tw_n_.get();
    a.spectrum = spectrum;
    a.fields = fields;
    a.e = e;
    a.weight = weight;
    a.part_energy = part_energy_.get();
    finalize.part_energy = part_energy_.get();
    finalize.spectral_blocks = 1;
    if (fold.acc != nullptr) finalize.density_blocks = 1;  // the kernel's own partials
    a.finalize = finalize;
    a.fold = fold;
    launch_small_field(a, stream, overlap_);
  }

 private:
  int M_ = 0, N_ = 0;
  bool overlap_ = false;
  bool active_ = false;
  EsDeviceArray<Complex<T>> tw_m_, tw_n_;
  EsDeviceArray<double> part_energy_;
};

}  // namespace efield::detail
