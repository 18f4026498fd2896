#pragma once
// Fast Fourier-related transforms (DCT-II, DCT-III, DXST) in 1D, 2D and 3D on CUDA and CPU.
// Definitions: docs/math.md section 1 (unnormalized; idct(dct(x)) = N x).
//
// Plan once, execute many: a plan's constructor makes the FFT plans, twiddle tables and scratch;
// execute() allocates nothing. Arrays are row-major with the last index fastest:
//   1D plans: [batch][n]        2D plans: [rows][cols]        3D plans: [d0][d1][d2]
// `in` and `out` may be the same array. A plan is not safe to execute from two threads at once.
#include <memory>
#include <string>
#include <vector>

#include "efield/device.hpp"

namespace efield {

enum class Transform1D {
  Dct,    // X[k] = sum_n x[n] cos(pi k (2n+1) / 2N)
  Idct,   // x[n] = sum_k c_k X[k] cos(pi k (2n+1) / 2N), c_0 = 1, c_k = 2
  Idxst,  // x[n] = sum_k 2 X[k] sin(pi k (2n+1) / 2N)
};

enum class Transform2D {
  Dct2,       // dct along both axes
  Idct2,      // idct along both axes
  IdctIdxst,  // idct along the rows axis (first), idxst along the cols axis (second)
  IdxstIdct,  // idxst along the first axis, idct along the second
};

// The 3D DCT-II (`dct3d`, Python's dct2_3d) and its unnormalised inverse, the DCT-III along every
// axis (`idct3d`, Python's idct2_3d). Dct3 and Idct3 are their former names, which read as DCT
// type 3.
enum class Transform3D {
  Dct,
  Idct,
  Dct3 [[deprecated("Transform3D::Dct3 is Transform3D::Dct (the 3D DCT-II)")]] = Dct,
  Idct3 [[deprecated("Transform3D::Idct3 is Transform3D::Idct")]] = Idct,
};

// The four ways of computing a 1D DCT through one real FFT (DCT paper, Algorithm 1).
enum class DctAlgorithm {
  NPoint,      // Makhoul reordering + length-N real FFT (fastest; the default)
  Mirrored2N,  // [x, reversed(x)], length-2N real FFT
  Padded2N,    // [x, zeros], length-2N real FFT
  FourN,       // x on the odd entries of a mirrored length-4N sequence
};

// How the CUDA backend of Plan2D computes a 2D transform (the CPU backend always runs OneFft).
enum class Cuda2DMethod {
  Auto,        // the fastest method for the shape and type (docs/design.md)
  OneFft,      // the DCT paper's Algorithm 2: reorder, one 2D cuFFT real FFT, postprocess; any size
  RowFftColumnPass,  // Algorithm 2 with the 2D FFT split: cuFFT's batched row FFTs, then one own
                     // pass down the columns (their FFTs as radix-16 butterflies in registers)
                     // that also runs the postprocess (dct2) or preprocess (inverses): one pass
                     // fewer than OneFft. Row count a power of two in 64..8192 (after a single
                     // column is planned as a single row); any column count; throws otherwise.
  TwoPasses,  // Algorithm 2 with the 2D FFT as two own passes, as cuFFT's 2D FFT itself runs: a
              // row pass (row real FFTs with the reorder folded into its loads, or for the
              // inverses its stores) and RowFftColumnPass's column pass. The array crosses
              // memory twice. Both sizes powers of two in 64..8192; throws otherwise.
  ThreePasses,  // TwoPasses with the column FFT split in two passes of short lines (four-step,
                // 64 x rows/64; the dct2 at 8192 rows 128 x 64), so that long columns are read
                // and written in 256-byte pieces of each row: the array crosses memory three
                // times. TwoPasses's shapes with at least 1024 rows; throws otherwise.
  PackedFft,  // OneFft with the 2D real FFT taken as one complex 2D FFT of the rows x cols/2
              // array of packed (even, odd) pairs, the real FFT's split fused into the
              // postprocess (the inverses: its merge into the preprocess). cuFFT's R2C of a long
              // row that is not a power of two runs that split as a pass of its own. An even
              // column count of at least 4 (after a single column is planned as a single row);
              // throws otherwise.
  TransposedPackedFft,  // PackedFft of the transposed array, the transposition folded into its
                        // first and last passes (32 x 32 tiles in shared memory, and the quad
                        // postprocess's stores): for tall arrays of short rows (10000 x 100),
                        // whose 2D FFT cuFFT runs with few long columns. An even row count of at
                        // least 4; throws otherwise.
  PrimeFactorFft,  // TransposedPackedFft with the long axis's complex FFT (length L = rows/2) split
                   // by the prime-factor (Good-Thomas) map L = P Q, P the power of two in L, Q
                   // odd: the length-P DFTs in registers in its first and last passes, cuFFT's
                   // part P batched FFTs of Q x cols, and no transposition (every pass reads and
                   // writes along the caller's rows). Rows with rows/2 = P Q, P in 2..16, Q >= 3
                   // (10000 = 2 x 8 x 625); throws otherwise.
};

// How Cuda2DMethod::Auto chooses (Plan2D on CUDA). Either way a choice already in the process's
// wisdom (measured earlier, or read by load_wisdom) for the plan's device, precision, kind and
// shape is taken first.
enum class PlanEffort {
  Estimate,  // no time spent: the policy table where it has a row for the GPU and shape, else a
             // rule that leans on cuFFT alone (docs/design.md)
  Measure,   // like FFTW_MEASURE: the first plan of a device, precision, kind and shape times every
             // method that takes it (a few runs each, on scratch arrays) and keeps the fastest in
             // the wisdom; costs milliseconds to a second at plan time
};

struct PlanOptions {
  Backend backend = Backend::Auto;
  // Plan2D on the CUDA backend only.
  Cuda2DMethod cuda_2d_method = Cuda2DMethod::Auto;
  // Plan2D on the CUDA backend with cuda_2d_method = Auto only.
  PlanEffort effort = PlanEffort::Estimate;
  // CPU backend: worker threads for FFTW and the pre/postprocessing (0 = all hardware threads).
  int cpu_threads = 0;
  // CPU backend: plan FFTW with FFTW_ESTIMATE, whose choice of algorithm does not depend on
  // timings, so every process gets the same bits (the electrostatic systems plan this way). false
  // plans with FFTW_MEASURE: usually faster, but its choice, and so the last bits, may differ from
  // one process to the next.
  bool reproducible = false;
  // Forward transforms only: coefficients with |X| < zero_below are written as exactly 0
  // (fused into the postprocess; used for DCT compression). 0 keeps every coefficient.
  double zero_below = 0.0;
};

namespace detail {
template <typename T> class Plan1DImpl;
template <typename T> class Plan2DImpl;
template <typename T> class Plan3DImpl;
}  // namespace detail

// Batched 1D transforms along the last axis. T is float or double.
template <typename T>
class Plan1D {
 public:
  Plan1D(Transform1D kind, int n, int batch = 1, DctAlgorithm algorithm = DctAlgorithm::NPoint,
         const PlanOptions& options = {});
  ~Plan1D();
  Plan1D(Plan1D&&) noexcept;
  Plan1D& operator=(Plan1D&&) noexcept;

  // Pointers in the backend's memory (device memory for Backend::Cuda, host memory for Cpu).
  // Asynchronous on `stream` for CUDA; capturable into a CUDA graph.
  void execute(const T* in, T* out, Stream stream = nullptr);
  // Host pointers for either backend; synchronous. For CUDA it copies through device buffers
  // made at construction.
  void execute_host(const T* in, T* out);

  Transform1D kind() const noexcept;
  DctAlgorithm algorithm() const noexcept;
  int size() const noexcept;
  int batch() const noexcept;
  Backend backend() const noexcept;

 private:
  std::unique_ptr<detail::Plan1DImpl<T>> impl_;
};

// 2D transforms of a rows x cols array: one 2D real FFT with fused pre/postprocessing (on CUDA,
// optionally one fused pass per axis instead: PlanOptions::cuda_2d_method).
template <typename T>
class Plan2D {
 public:
  Plan2D(Transform2D kind, int rows, int cols, const PlanOptions& options = {});
  ~Plan2D();
  Plan2D(Plan2D&&) noexcept;
  Plan2D& operator=(Plan2D&&) noexcept;

  void execute(const T* in, T* out, Stream stream = nullptr);
  void execute_host(const T* in, T* out);

  Transform2D kind() const noexcept;
  int rows() const noexcept;
  int cols() const noexcept;
  Backend backend() const noexcept;
  // The CUDA method this plan runs, with Auto resolved; Cuda2DMethod::Auto for a CPU plan.
  Cuda2DMethod cuda_2d_method() const noexcept;

 private:
  std::unique_ptr<detail::Plan2DImpl<T>> impl_;
};

// 3D transforms of a d0 x d1 x d2 array: one 3D real FFT with fused pre/postprocessing.
template <typename T>
class Plan3D {
 public:
  Plan3D(Transform3D kind, int d0, int d1, int d2, const PlanOptions& options = {});
  ~Plan3D();
  Plan3D(Plan3D&&) noexcept;
  Plan3D& operator=(Plan3D&&) noexcept;

  void execute(const T* in, T* out, Stream stream = nullptr);
  void execute_host(const T* in, T* out);

  Transform3D kind() const noexcept;
  int dim(int axis) const;
  Backend backend() const noexcept;

 private:
  std::unique_ptr<detail::Plan3DImpl<T>> impl_;
};

// The row-column baseline: 1D N-point transforms along each axis with transposes in between,
// each step as fast as we can make it. Kept as the reference the fused plans are measured
// against (the DCT paper's "row-column method"). Supports Dct2 and Idct2.
template <typename T>
class RowColumnPlan2D {
 public:
  RowColumnPlan2D(Transform2D kind, int rows, int cols, const PlanOptions& options = {});
  ~RowColumnPlan2D();
  RowColumnPlan2D(RowColumnPlan2D&&) noexcept;
  RowColumnPlan2D& operator=(RowColumnPlan2D&&) noexcept;

  void execute(const T* in, T* out, Stream stream = nullptr);
  void execute_host(const T* in, T* out);
  Backend backend() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const char* to_string(Transform1D kind) noexcept;
const char* to_string(Transform2D kind) noexcept;
const char* to_string(Transform3D kind) noexcept;
const char* to_string(DctAlgorithm algorithm) noexcept;
const char* to_string(Cuda2DMethod method) noexcept;
const char* to_string(PlanEffort effort) noexcept;

// Every CUDA method of Plan2D but Auto, in the order of the method registry (docs/design.md).
std::vector<Cuda2DMethod> cuda_2d_methods();

// Wisdom: the choices PlanEffort::Measure made, per device, precision, kind and shape (and those
// of the electrostatic systems' ElectrostaticOptions::plan_effort), kept for the process. save_wisdom writes the current CUDA device's choices to `path` (a versioned text
// file naming the device); throws efield::Error when it cannot write. load_wisdom adds the choices
// of a file written on this kind of device (same name, compute capability and SM count) and
// returns true; a file from another GPU, of another format version or that does not parse is
// ignored with a warning in the log, and returns false (as does a missing file). forget_wisdom
// drops every choice.
void save_wisdom(const std::string& path);
bool load_wisdom(const std::string& path);
void forget_wisdom();

}  // namespace efield
