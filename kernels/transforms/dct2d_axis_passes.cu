// Cuda2DMethod::AxisPasses of the CUDA Plan2D: a 2D transform as two kernels, one per axis
// (dct_axis_pass.cuh): the first transforms every column of `in` into the plan's scratch
// array, the second every row of the scratch into `out`. Each kernel reads and writes the array
// once, so the whole transform moves it twice (the OneFft path moves it four times: reorder,
// cuFFT's two passes, postprocess). Tile sizes, launch shapes, twiddle tables and the scratch
// are fixed at construction; execute() enqueues two launches (capturable in a CUDA graph).
#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"
#include "common/host_staging.cuh"
#include "math/twiddle.hpp"
#include "transforms/dct2d_axis_passes.hpp"
#include "transforms/dct_axis_pass.cuh"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {
namespace {

using cuda_nd::AxisTransform;

int log2_exact(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

// The twiddles of shared_fft (shared_fft.cuh) for length n, forward sign: the stages in the
// device's order (radix 8 while at least three factors of 2 remain, then one radix 4 or 2),
// stage (ns, R) holding exp(-2 pi i r k / (ns R)) at (ns - 1) + (r - 1) ns + k, 1 <= r < R,
// k < ns; n - 1 entries in all.
template <typename T>
std::vector<Complex<T>> stage_twiddles(int n) {
  std::vector<Complex<T>> table;
  table.reserve(static_cast<std::size_t>(n));
  const double pi = 3.14159265358979323846;
  for (int ns = 1; ns < n;) {
    const int radix = n / ns >= 8 ? 8 : n / ns;
    for (int r = 1; r < radix; ++r) {
      for (int k = 0; k < ns; ++k) {
        const double a = -2.0 * pi * r * k / (static_cast<double>(ns) * radix);
        table.push_back({static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))});
      }
    }
    ns *= radix;
  }
  return table;
}

// Enough blocks to fill the GPU twice over where the array allows it; otherwise the largest
// tile (a column tile of C lines reads C consecutive values of each row).
constexpr int kTargetBlocks = 256;

template <typename T>
class AxisPass {
 public:
  using Kernel = void (*)(const T*, T*, int, int, int, const Complex<T>*, const Complex<T>*, T);

  AxisPass(bool columns, AxisTransform op, int rows, int cols)
      : kernel_(select(columns, op)),
        cols_(cols),
        twiddles_(quarter_twiddles<T>(columns ? rows : cols)),
        fft_twiddles_(stage_twiddles<T>(columns ? rows : cols)) {
    const int length = columns ? rows : cols;
    const int lines = columns ? cols : rows;
    constexpr int kMaxTileComplex = axis_passes_max_length<T>();  // complex values in 64 KiB
    int tile_lines = std::min(lines, 2 * kMaxTileComplex / length);
    while (tile_lines > 2 && lines / tile_lines < kTargetBlocks) tile_lines /= 2;
    log2_length_ = log2_exact(length);
    log2_lines_ = log2_exact(tile_lines);
    blocks_ = static_cast<unsigned>(lines / tile_lines);
    const int tile_complex = tile_lines / 2 * length;
    const int needed = (tile_complex + cuda_nd::kSharedFftPerThread - 1) / cuda_nd::kSharedFftPerThread;
    threads_ = static_cast<unsigned>(std::clamp((needed + 31) / 32 * 32, 32, 512));
    shared_bytes_ = static_cast<std::size_t>(tile_lines / 2) * cuda_nd::shared_fft_line_stride(length) * sizeof(Complex<T>);
    EFIELD_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_),
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes_)));
  }

  void run(const T* in, T* out, T zero_below, cudaStream_t s) const {
    kernel_<<<blocks_, threads_, shared_bytes_, s>>>(in, out, cols_, log2_length_, log2_lines_, twiddles_.get(),
                                                     fft_twiddles_.get(), zero_below);
    EFIELD_CUDA_CHECK_LAUNCH();
  }

 private:
  template <bool Columns>
  static Kernel select_axis(AxisTransform op) {
    switch (op) {
      case AxisTransform::Dct: return cuda_nd::dct_axis_pass<T, Columns, AxisTransform::Dct>;
      case AxisTransform::Idct: return cuda_nd::dct_axis_pass<T, Columns, AxisTransform::Idct>;
      case AxisTransform::Idxst: return cuda_nd::dct_axis_pass<T, Columns, AxisTransform::Idxst>;
    }
    return nullptr;
  }
  static Kernel select(bool columns, AxisTransform op) {
    return columns ? select_axis<true>(op) : select_axis<false>(op);
  }

  Kernel kernel_;
  int cols_;
  DeviceBuffer<Complex<T>> twiddles_;  // quarter twiddles of the dct pre/postprocess
  DeviceBuffer<Complex<T>> fft_twiddles_;  // the shared-memory FFT's stage twiddles
  int log2_length_ = 0;
  int log2_lines_ = 0;
  unsigned blocks_ = 0;
  unsigned threads_ = 0;
  std::size_t shared_bytes_ = 0;
};

// The 1D transform of each axis: dct2 = dct along both; the inverses idct, with idxst on the
// sine axis (docs/math.md 1).
AxisTransform first_axis(Transform2D kind) {
  if (kind == Transform2D::Dct2) return AxisTransform::Dct;
  return kind == Transform2D::IdxstIdct ? AxisTransform::Idxst : AxisTransform::Idct;
}
AxisTransform second_axis(Transform2D kind) {
  if (kind == Transform2D::Dct2) return AxisTransform::Dct;
  return kind == Transform2D::IdctIdxst ? AxisTransform::Idxst : AxisTransform::Idct;
}

template <typename T>
class AxisPassPlan2D final : public Plan2DImpl<T> {
 public:
  AxisPassPlan2D(Transform2D kind, int rows, int cols, const PlanOptions& options)
      : Plan2DImpl<T>(kind, rows, cols),
        zero_below_(kind == Transform2D::Dct2 ? static_cast<T>(options.zero_below) : T(0)),
        column_pass_(true, first_axis(kind), rows, cols),
        row_pass_(false, second_axis(kind), rows, cols),
        scratch_(static_cast<std::size_t>(rows) * cols),
        io_(static_cast<std::size_t>(rows) * cols) {}

  void execute(const T* in, T* out, Stream stream) override {
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    column_pass_.run(in, scratch_.get(), T(0), s);
    row_pass_.run(scratch_.get(), out, zero_below_, s);
  }

  void execute_host(const T* in, T* out) override {
    execute_through_staging(io_.get(), in, out, io_.size(), host_stream_.get(),
                            [&](T* data) { execute(data, data, reinterpret_cast<Stream>(host_stream_.get())); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }
  Cuda2DMethod cuda_2d_method() const noexcept override { return Cuda2DMethod::AxisPasses; }

 private:
  T zero_below_;
  AxisPass<T> column_pass_;
  AxisPass<T> row_pass_;
  DeviceBuffer<T> scratch_;
  DeviceBuffer<T> io_;
  OwnedStream host_stream_;  // execute_host runs on it
};

}  // namespace

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_axis_pass_plan2d(Transform2D kind, int rows, int cols,
                                                          const PlanOptions& options) {
  return std::make_unique<AxisPassPlan2D<T>>(kind, rows, cols, options);
}

template std::unique_ptr<Plan2DImpl<float>> make_cuda_axis_pass_plan2d<float>(Transform2D, int, int,
                                                                               const PlanOptions&);
template std::unique_ptr<Plan2DImpl<double>> make_cuda_axis_pass_plan2d<double>(Transform2D, int, int,
                                                                                const PlanOptions&);

}  // namespace efield::detail
