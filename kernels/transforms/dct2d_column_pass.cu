// Instantiations of the column pass (dct2d_column_pass.cuh) for every supported column length,
// and the choice of kernel and block shape at plan construction.
#include <type_traits>

#include "common/cuda_check.cuh"
#include "transforms/dct2d_column_pass.cuh"
#include "transforms/dct2d_column_pass.hpp"

namespace efield::detail::cuda_nd {
namespace {

// Columns a block keeps in shared memory: as many as fit in 128 KiB, at most 8 (32 bytes of
// each output row side in float), so that one block of up to 1024 threads fills an SM.
template <typename T>
constexpr int columns_per_block(int log2_rows) {
  int cols = 8;
  while (cols > 1 && (static_cast<long long>(cols) << log2_rows) * static_cast<long long>(sizeof(Complex<T>)) >
                         128 * 1024) {
    cols /= 2;
  }
  return cols;
}

template <typename T, int kLog2M>
PassLaunch launch_shape(int cols) {
  constexpr int kCols = columns_per_block<T>(kLog2M);
  using Shape = ColumnPassShape<T, kLog2M, kCols>;
  PassLaunch l;
  l.blocks = static_cast<unsigned>((cols / 2 + 1 + kCols - 1) / kCols);
  l.threads = Shape::kThreads;
  l.shared_bytes = static_cast<std::size_t>(kCols) * Shape::kStride * sizeof(Complex<T>);
  return l;
}

}  // namespace

template <typename T>
Dct2ColumnKernel<T> dct2_column_kernel(int rows, int cols, PassLaunch& launch) {
  return with_log2_length(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    const Dct2ColumnKernel<T> kernel = dct2_column_pass<T, kLog2M, columns_per_block<T>(kLog2M)>;
    launch = launch_shape<T, kLog2M>(cols);
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Idct2ColumnKernel<T> idct2_column_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch) {
  return with_log2_length(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    constexpr int kCols = columns_per_block<T>(kLog2M);
    launch = launch_shape<T, kLog2M>(cols);
    Idct2ColumnKernel<T> kernel = nullptr;
    // The quad preprocess: four columns a thread (kCols of them a block), N a multiple of 4.
    if constexpr (kCols % 4 == 0) launch.quad_input = cols % 4 == 0 && cols >= 8;
    auto pick = [&](auto wide) {
      constexpr bool kWide = decltype(wide)::value && kCols % 4 == 0;
      kernel = idct2_column_pass<T, kLog2M, kCols, false, false, kWide>;
      if (kind == Transform2D::IdxstIdct) kernel = idct2_column_pass<T, kLog2M, kCols, true, false, kWide>;
      if (kind == Transform2D::IdctIdxst) kernel = idct2_column_pass<T, kLog2M, kCols, false, true, kWide>;
    };
    if (launch.quad_input) {
      pick(std::true_type{});
    } else {
      pick(std::false_type{});
    }
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template Dct2ColumnKernel<float> dct2_column_kernel<float>(int, int, PassLaunch&);
template Dct2ColumnKernel<double> dct2_column_kernel<double>(int, int, PassLaunch&);
template Idct2ColumnKernel<float> idct2_column_kernel<float>(Transform2D, int, int, PassLaunch&);
template Idct2ColumnKernel<double> idct2_column_kernel<double>(Transform2D, int, int, PassLaunch&);

}  // namespace efield::detail::cuda_nd
