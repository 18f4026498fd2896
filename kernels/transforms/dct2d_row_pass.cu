// Instantiations of the row pass (dct2d_row_pass.cuh) for every supported row length, and the
// choice of kernel and block shape at plan construction.
#include "transforms/dct2d_row_pass.cuh"
#include "transforms/dct2d_row_pass.hpp"

namespace efield::detail::cuda_nd {
namespace {

template <typename T, int kLog2N, bool Inverse>
PassLaunch launch_shape(int rows) {
  using Shape = RowPassShape<T, kLog2N, Inverse>;
  PassLaunch l;
  l.blocks = static_cast<unsigned>((rows + Shape::kRowsPerBlock - 1) / Shape::kRowsPerBlock);
  l.threads = Shape::kThreads;
  l.shared_bytes = Shape::kSharedBytes;
  return l;
}

}  // namespace

template <typename T>
Dct2RowKernel<T> dct2_row_kernel(int rows, int cols, PassLaunch& launch, Dct2RowOutput output) {
  return with_log2_length(cols, [&](auto log2_cols) {
    constexpr int kLog2N = decltype(log2_cols)::value;
    Dct2RowKernel<T> kernel = dct2_row_pass<T, kLog2N, Dct2RowOutput::Spectrum>;
    if (output == Dct2RowOutput::RowDct) kernel = dct2_row_pass<T, kLog2N, Dct2RowOutput::RowDct>;
    if constexpr (sizeof(T) == sizeof(float)) {  // the plans ask for the compact spectrum in float only
      if (output == Dct2RowOutput::CompactSpectrum) kernel = dct2_row_pass<T, kLog2N, Dct2RowOutput::CompactSpectrum>;
    }
    launch = launch_shape<T, kLog2N, false>(rows);
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Idct2RowKernel<T> idct2_row_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch) {
  return with_log2_length(cols, [&](auto log2_cols) {
    constexpr int kLog2N = decltype(log2_cols)::value;
    const auto kernel = for_kind(kind, [](auto sine_rows, auto sine_cols) {
      return idct2_row_pass<T, kLog2N, decltype(sine_rows)::value, decltype(sine_cols)::value>;
    });
    launch = launch_shape<T, kLog2N, true>(rows);
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Idct2InPlaceRowKernel<T> idct2_row_in_place_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch) {
  return with_log2_length(cols, [&](auto log2_cols) -> Idct2InPlaceRowKernel<T> {
    constexpr int kLog2N = decltype(log2_cols)::value;
    if constexpr (sizeof(T) != sizeof(float) || kLog2N < 9) {
      return nullptr;
    } else {
      const auto kernel = for_kind(kind, [](auto sine_rows, auto sine_cols) {
        return idct2_row_pass_in_place<T, kLog2N, decltype(sine_rows)::value, decltype(sine_cols)::value>;
      });
      launch = launch_shape<T, kLog2N, true>(rows);
      allow_shared(kernel, launch.shared_bytes);
      return kernel;
    }
  });
}

template Dct2RowKernel<float> dct2_row_kernel<float>(int, int, PassLaunch&, Dct2RowOutput);
template Dct2RowKernel<double> dct2_row_kernel<double>(int, int, PassLaunch&, Dct2RowOutput);
template Idct2RowKernel<float> idct2_row_kernel<float>(Transform2D, int, int, PassLaunch&);
template Idct2RowKernel<double> idct2_row_kernel<double>(Transform2D, int, int, PassLaunch&);
template Idct2InPlaceRowKernel<float> idct2_row_in_place_kernel<float>(Transform2D, int, int, PassLaunch&);
template Idct2InPlaceRowKernel<double> idct2_row_in_place_kernel<double>(Transform2D, int, int, PassLaunch&);

}  // namespace efield::detail::cuda_nd
