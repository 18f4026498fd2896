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

// SMs of the current device.
int multiprocessors() {
  int device = 0, sms = 0;
  EFIELD_CUDA_CHECK(cudaGetDevice(&device));
  EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Double up to 1,024 rows takes 8 columns a block, so 512^2 and 1024^2 make 33 and 65 blocks for
// a GPU of 132 SMs. Where blocks of 8 leave SMs idle, a block takes 4 (its reads 64 bytes of a
// row, its writes 32: whole sectors still, which float's 16-byte halves would not be); in float,
// and where blocks of 8 fill the SMs, 8 stays (docs/performance.md, "Column pass: narrow blocks").
template <typename T, int kLog2M>
constexpr int narrow_columns_per_block() {
  return sizeof(T) == 8 && columns_per_block<T>(kLog2M) == 8 ? 4 : columns_per_block<T>(kLog2M);
}
template <typename T, int kLog2M>
bool narrow_blocks_fill_more_sms(int cols) {
  constexpr int kWide = columns_per_block<T>(kLog2M);
  return narrow_columns_per_block<T, kLog2M>() < kWide && (cols / 2 + kWide) / kWide < multiprocessors();
}

// Calls f(std::integral_constant<int, columns a block>) with columns_per_block or, where
// narrow_blocks_fill_more_sms, narrow_columns_per_block.
template <typename T, int kLog2M, typename F>
auto with_columns_per_block(int cols, F&& f) {
  if (narrow_blocks_fill_more_sms<T, kLog2M>(cols)) {
    return f(std::integral_constant<int, narrow_columns_per_block<T, kLog2M>()>{});
  }
  return f(std::integral_constant<int, columns_per_block<T>(kLog2M)>{});
}

// The inverse's quad preprocess: four columns a thread (kCols of them a block), N a multiple of 4.
template <typename T, int kLog2M>
bool wide_preprocess_applies(int cols) {
  return columns_per_block<T>(kLog2M) % 4 == 0 && cols % 4 == 0 && cols >= 8;
}

template <typename T, int kLog2M, int kCols = columns_per_block<T>(kLog2M)>
PassLaunch launch_shape(int cols) {
  using Shape = ColumnPassShape<T, kLog2M, kCols>;
  PassLaunch l;
  l.blocks = static_cast<unsigned>((cols / 2 + 1 + kCols - 1) / kCols);
  l.threads = Shape::kThreads;
  l.shared_bytes = static_cast<std::size_t>(kCols) * Shape::kStride * sizeof(Complex<T>);
  return l;
}

}  // namespace

template <typename T>
Dct2ColumnKernel<T> dct2_column_kernel(int rows, int cols, bool threshold, PassLaunch& launch) {
  return with_log2_length(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    const Dct2ColumnKernel<T> kernel = with_columns_per_block<T, kLog2M>(cols, [&](auto columns) {
      constexpr int kCols = decltype(columns)::value;
      launch = launch_shape<T, kLog2M, kCols>(cols);
      return with_threshold(threshold,
                            [&](auto kept) { return dct2_column_pass<T, kLog2M, kCols, decltype(kept)::value>; });
    });
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Idct2ColumnKernel<T> idct2_column_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch) {
  return with_log2_length(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    const Idct2ColumnKernel<T> kernel = with_columns_per_block<T, kLog2M>(cols, [&](auto columns) {
      constexpr int kCols = decltype(columns)::value;
      launch = launch_shape<T, kLog2M, kCols>(cols);
      launch.quad_input = wide_preprocess_applies<T, kLog2M>(cols);
      auto pick = [&](auto wide) {
        return for_kind(kind, [&](auto sine_rows, auto sine_cols) {
          return idct2_column_pass<T, kLog2M, kCols, decltype(sine_rows)::value, decltype(sine_cols)::value,
                                   decltype(wide)::value && kCols % 4 == 0>;
        });
      };
      return launch.quad_input ? pick(std::true_type{}) : pick(std::false_type{});
    });
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Idct2CompactColumnKernel<T> idct2_column_compact_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch) {
  return with_log2_length(rows, [&](auto log2_rows) -> Idct2CompactColumnKernel<T> {
    constexpr int kLog2M = decltype(log2_rows)::value;
    constexpr int kCols = columns_per_block<T>(kLog2M);
    if constexpr (sizeof(T) != sizeof(float) || kLog2M < 9 || kCols % 4 != 0) {
      return nullptr;
    } else {
      if (!wide_preprocess_applies<T, kLog2M>(cols)) return nullptr;
      launch = launch_shape<T, kLog2M>(cols);
      launch.quad_input = true;
      const Idct2CompactColumnKernel<T> kernel = for_kind(kind, [](auto sine_rows, auto sine_cols) {
        return idct2_column_pass_compact<T, kLog2M, kCols, decltype(sine_rows)::value, decltype(sine_cols)::value>;
      });
      allow_shared(kernel, launch.shared_bytes);
      return kernel;
    }
  });
}

template <typename T>
Dct2InPlaceColumnKernel<T> dct2_column_in_place_kernel(int rows, int cols, bool threshold, PassLaunch& launch) {
  if constexpr (sizeof(T) != sizeof(float)) {
    return nullptr;
  } else {
    return with_log2_length(rows, [&](auto log2_rows) -> Dct2InPlaceColumnKernel<T> {
      constexpr int kLog2M = decltype(log2_rows)::value;
      const Dct2InPlaceColumnKernel<T> kernel = with_threshold(threshold, [](auto kept) {
        return dct2_column_pass_in_place<T, kLog2M, columns_per_block<T>(kLog2M), decltype(kept)::value>;
      });
      launch = launch_shape<T, kLog2M>(cols);
      allow_shared(kernel, launch.shared_bytes);
      int device = 0, cooperative = 0, per_sm = 0;
      const int sms = multiprocessors();
      EFIELD_CUDA_CHECK(cudaGetDevice(&device));
      EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
      EFIELD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(launch.threads),
                                                                      launch.shared_bytes));
      if (!cooperative || static_cast<long long>(per_sm) * sms < launch.blocks) return nullptr;
      return kernel;
    });
  }
}

template <typename T>
void launch_dct2_column_in_place(Dct2InPlaceColumnKernel<T> kernel, const PassLaunch& launch, T* X,
                                 const Complex<T>* nyquist, int N, const Complex<T>* tu, const Complex<T>* tv,
                                 const Complex<T>* twiddles, T zero_below, cudaStream_t stream) {
  void* args[] = {&X, &nyquist, &N, &tu, &tv, &twiddles, &zero_below};
  EFIELD_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), launch.grid(),
                                                dim3(launch.threads), args, launch.shared_bytes, stream));
}

template Dct2ColumnKernel<float> dct2_column_kernel<float>(int, int, bool, PassLaunch&);
template Dct2ColumnKernel<double> dct2_column_kernel<double>(int, int, bool, PassLaunch&);
template Idct2ColumnKernel<float> idct2_column_kernel<float>(Transform2D, int, int, PassLaunch&);
template Idct2ColumnKernel<double> idct2_column_kernel<double>(Transform2D, int, int, PassLaunch&);
template Idct2CompactColumnKernel<float> idct2_column_compact_kernel<float>(Transform2D, int, int, PassLaunch&);
template Idct2CompactColumnKernel<double> idct2_column_compact_kernel<double>(Transform2D, int, int, PassLaunch&);
template Dct2InPlaceColumnKernel<float> dct2_column_in_place_kernel<float>(int, int, bool, PassLaunch&);
template Dct2InPlaceColumnKernel<double> dct2_column_in_place_kernel<double>(int, int, bool, PassLaunch&);
template void launch_dct2_column_in_place<float>(Dct2InPlaceColumnKernel<float>, const PassLaunch&, float*,
                                                 const Complex<float>*, int, const Complex<float>*,
                                                 const Complex<float>*, const Complex<float>*, float, cudaStream_t);
template void launch_dct2_column_in_place<double>(Dct2InPlaceColumnKernel<double>, const PassLaunch&, double*,
                                                  const Complex<double>*, int, const Complex<double>*,
                                                  const Complex<double>*, const Complex<double>*, double, cudaStream_t);

}  // namespace efield::detail::cuda_nd
