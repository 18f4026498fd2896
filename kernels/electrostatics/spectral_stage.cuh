#pragma once
// Internal: the spectral stage of the CUDA pipeline: rho -> forward 2D R2C -> the spectral kernel
// (DCT postprocess, scale, energy partials, the preprocess of both field transforms) -> one
// complex inverse FFT in place whose output is Ex + i Ey (permuted); phi on request (or for
// GradientScale::Exact) by one more C2R. It owns the twiddles, the spectrum, the C2C array, the
// potential's arrays, the energy partials and the cuFFT plans, bound to the pipeline's stream.
// Kernels: spectral.cu.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/cufft_plan.cuh"
#include "common/cufft_real.cuh"
#include "electrostatics/backend.hpp"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/pipeline_setup.hpp"
#include "math/twiddle.hpp"

namespace efield::detail {

// A cuFFT plan of 2D M x N transforms, `batch` of them, contiguous (real: M N; Hermitian half:
// M (N/2 + 1); complex: M N), on `stream`.
inline CufftPlan make_es_2d_plan(int M, int N, int batch, cufftType type, cudaStream_t stream) {
  int n[2] = {M, N};
  const int real = M * N, half = M * (N / 2 + 1);
  const bool forward = (type == CUFFT_R2C || type == CUFFT_D2Z);
  const bool complex = (type == CUFFT_C2C || type == CUFFT_Z2Z);
  const int in_dist = forward || complex ? real : half, out_dist = forward ? half : real;
  CufftPlan plan(
      [&](cufftHandle handle, std::size_t* work) {
        return cufftMakePlanMany(handle, 2, n, nullptr, 1, in_dist, nullptr, 1, out_dist, type, batch, work);
      },
      "ElectrostaticSystem (CUDA): cuFFT could not make a plan of " + std::to_string(M) + " x " +
          std::to_string(N) + " bins");
  EFIELD_CUFFT_CHECK(cufftSetStream(plan.get(), stream));
  return plan;
}

template <typename T>
class SpectralStage {
  using Cpx = Complex<T>;

 public:
  SpectralStage() = default;
  SpectralStage(const ElectrostaticDesign& d, cudaStream_t stream, bool overlap)
      : M_(d.options.num_bins_x), N_(d.options.num_bins_y), overlap_(overlap), grid_(make_spectral_grid<T>(d)) {
    const std::int64_t bins = static_cast<std::int64_t>(M_) * N_;
    const std::size_t half = static_cast<std::size_t>(M_) * (N_ / 2 + 1);
    const std::vector<Cpx> tw_m = quarter_twiddles<T>(M_), tw_n = quarter_twiddles<T>(N_);
    tw_m_ = EsDeviceArray<Cpx>(tw_m.size());
    tw_n_ = EsDeviceArray<Cpx>(tw_n.size());
    es_upload(tw_m_.get(), tw_m.data(), tw_m.size());
    es_upload(tw_n_.get(), tw_n.data(), tw_n.size());
    grid_.tw_m = tw_m_.get();
    grid_.tw_n = tw_n_.get();
    spectrum_ = EsDeviceArray<Cpx>(half);
    z_ = EsDeviceArray<Cpx>(bins);
    w_phi_ = EsDeviceArray<Cpx>(half);
    y_phi_ = EsDeviceArray<T>(bins);
    EFIELD_CUDA_CHECK(cudaMemset(spectrum_.get(), 0, spectrum_.bytes()));
    EFIELD_CUDA_CHECK(cudaMemset(z_.get(), 0, z_.bytes()));
    blocks_ = std::min(M_ / 2 + 1, kEsMaxReduceBlocks);  // a row u each (spectral.cu)
    part_energy_ = EsDeviceArray<double>(blocks_);
    forward_ = make_es_2d_plan(M_, N_, 1, CufftReal<T>::r2c, stream);
    fields_ = make_es_2d_plan(M_, N_, 1, CufftReal<T>::c2c, stream);
    potential_ = make_es_2d_plan(M_, N_, 1, CufftReal<T>::c2r, stream);
  }

  // Later work of this stage goes to `stream` (the caller orders the streams).
  void set_stream(cudaStream_t stream) {
    for (const CufftPlan* plan : {&forward_, &fields_, &potential_}) {
      EFIELD_CUFFT_CHECK(cufftSetStream(plan->get(), stream));
    }
  }

  // rho (permuted) -> spectrum.
  void enqueue_forward(T* rho) const {
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_r2c(forward_.get(), rho, spectrum_.get()));
  }
  // spectrum -> the C2C input w_x + i w_y, and the energy partials.
  void enqueue_fields(cudaStream_t stream) const {
    SpectralArgs<T> a{};
    a.g = grid_;
    a.spectrum = spectrum_.get();
    a.z = z_.get();
    a.part_energy = part_energy_.get();
    a.blocks = blocks_;
    launch_spectral_fields(a, stream, overlap_);
  }
  // The C2C input -> Ex + i Ey, in place (in place is the quicker cuFFT plan: docs/performance.md,
  // "CUDA pipeline: the C2C in place").
  void enqueue_inverse() const {
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2c(fields_.get(), z_.get(), z_.get(), CUFFT_INVERSE));
  }
  // phi (permuted, potential()) from the spectrum of the latest evaluate (nothing else writes it).
  void enqueue_potential(cudaStream_t stream) const {
    SpectralArgs<T> a{};
    a.g = grid_;
    a.spectrum = spectrum_.get();
    a.w_phi = w_phi_.get();
    launch_spectral_potential(a, stream);
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2r(potential_.get(), w_phi_.get(), y_phi_.get()));
  }

  // The parts of FinalizeArgs this stage owns.
  void fill_finalize_args(FinalizeArgs<T>* f) const {
    f->part_energy = part_energy_.get();
    f->spectral_blocks = blocks_;
    f->energy_scale = static_cast<double>(M_) * N_ / 4.0;
  }

  // Ex + i Ey after enqueue_inverse (permuted; the sine axes' signs not applied).
  const Cpx* fields() const { return z_.get(); }
  // phi after enqueue_potential (permuted).
  const T* potential() const { return y_phi_.get(); }

 private:
  int M_ = 0, N_ = 0;
  bool overlap_ = false;
  SpectralGrid<T> grid_;
  EsDeviceArray<Cpx> tw_m_, tw_n_;
  EsDeviceArray<Cpx> spectrum_, z_, w_phi_;
  EsDeviceArray<T> y_phi_;
  int blocks_ = 1;  // of the spectral kernel (= energy partials)
  EsDeviceArray<double> part_energy_;
  CufftPlan forward_, fields_, potential_;
};

}  // namespace efield::detail
