// Names of the transform enums, for logs, errors and benchmark tables.
#include "efield/transforms.hpp"

namespace efield {

const char* to_string(Transform1D kind) noexcept {
  switch (kind) {
    case Transform1D::Dct: return "dct";
    case Transform1D::Idct: return "idct";
    case Transform1D::Idxst: return "idxst";
  }
  return "unknown";
}

const char* to_string(Transform2D kind) noexcept {
  switch (kind) {
    case Transform2D::Dct2: return "dct2";
    case Transform2D::Idct2: return "idct2";
    case Transform2D::IdctIdxst: return "idct_idxst";
    case Transform2D::IdxstIdct: return "idxst_idct";
  }
  return "unknown";
}

const char* to_string(Transform3D kind) noexcept {
  switch (kind) {
    case Transform3D::Dct: return "dct3d";
    case Transform3D::Idct: return "idct3d";
  }
  return "unknown";
}

const char* to_string(DctAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case DctAlgorithm::NPoint: return "npoint";
    case DctAlgorithm::Mirrored2N: return "mirrored2n";
    case DctAlgorithm::Padded2N: return "padded2n";
    case DctAlgorithm::FourN: return "fourn";
  }
  return "unknown";
}

const char* to_string(Cuda2DMethod method) noexcept {
  switch (method) {
    case Cuda2DMethod::Auto: return "auto";
    case Cuda2DMethod::OneFft: return "one_fft";
    case Cuda2DMethod::RowFftColumnPass: return "row_fft_column_pass";
    case Cuda2DMethod::TwoPasses: return "two_passes";
    case Cuda2DMethod::ThreePasses: return "three_passes";
    case Cuda2DMethod::PackedFft: return "packed_fft";
    case Cuda2DMethod::TransposedPackedFft: return "transposed_packed_fft";
    case Cuda2DMethod::PrimeFactorFft: return "prime_factor_fft";
  }
  return "unknown";
}

}  // namespace efield
