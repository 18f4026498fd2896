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

// to_string(Cuda2DMethod) reads the method registry (cuda2d_registry.cpp).

const char* to_string(PlanEffort effort) noexcept {
  switch (effort) {
    case PlanEffort::Estimate: return "estimate";
    case PlanEffort::Measure: return "measure";
  }
  return "unknown";
}

}  // namespace efield
