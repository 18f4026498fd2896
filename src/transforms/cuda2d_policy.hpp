#pragma once
// Internal: Auto's choice among the CUDA 2D methods as a table. Each row names the GPUs (compute
// capability), the precision, the direction and the shape it covers, and the method to run
// there; the first row that covers a plan and whose method takes the shape (cuda2d_registry.hpp)
// wins. The rows were measured on one GPU generation (bench_ispd/results/transforms2d.md); other
// GPUs get only the methods that take any size and lean on cuFFT alone (PackedFft, OneFft).
// scripts/check_auto_policy.py checks the table against a bench_transforms2d --json run.
#include <limits>
#include <vector>

#include "efield/transforms.hpp"
#include "transforms/cuda2d_registry.hpp"

namespace efield::detail {

constexpr int kNoLimit = std::numeric_limits<int>::max();

struct SizeRange {
  int min = 1;
  int max = kNoLimit;  // inclusive
  bool contains(int n) const { return n >= min && n <= max; }
};

enum class ForScalar { Any, Float, Double };
enum class ForDirection { Any, Forward, Inverse };  // Forward: dct2; Inverse: the other three

struct Cuda2DPolicyRow {
  int min_cc;  // compute capability as 10 major + minor (sm_90: 90), inclusive
  int max_cc;
  ForScalar scalar;
  ForDirection direction;
  SizeRange rows;  // of the planned shape (canonical_2d_shape)
  SizeRange cols;
  bool cols_not_power_of_two;  // the row covers only column counts that are not powers of two
  Cuda2DMethod method;
};

// The rows in order; the last covers everything with OneFft.
const std::vector<Cuda2DPolicyRow>& cuda_2d_policy();

// The method Auto runs for a plan of `kind`, rows x cols in `scalar` on a device of compute
// capability `compute_capability` (10 major + minor; 0 when unknown).
Cuda2DMethod choose_cuda_2d_method(int compute_capability, Scalar scalar, Transform2D kind, int rows, int cols);

}  // namespace efield::detail
