// Instantiations of the four-step column passes (dct2d_column_four_step.cuh) for 1024..8192
// rows, and the choice of kernel and grid at plan construction.
#include <type_traits>

#include "transforms/dct2d_column_four_step.cuh"
#include "transforms/dct2d_column_four_step.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail::cuda_nd {
namespace {

// The passes are compiled for 2^10 = 1024..8192 rows (FourStepSplit's least, lines of 16),
// the rows ThreePasses admits (transforms/cuda2d_registry.cpp).
constexpr int kMinLog2Rows = 10;
static_assert((1 << kMinLog2Rows) == kFourStepMinRows, "the plan admits the rows compiled for");

// Blocks of Shape over the spectrum's complex columns (x: N/2 packed column pairs in the dct2,
// N/2 + 1 columns of the rows' real FFT in the inverses) and `lines` lines (y).
template <typename Shape>
PassLaunch launch_shape(bool inverse, int cols, int lines) {
  const int spectrum_cols = inverse ? cols / 2 + 1 : cols / 2;
  PassLaunch l;
  l.blocks = static_cast<unsigned>((spectrum_cols + Shape::kCols - 1) / Shape::kCols);
  l.blocks_y = static_cast<unsigned>(lines / Shape::kLines);
  l.threads = Shape::kThreads;
  l.shared_bytes = Shape::kSharedBytes;
  return l;
}

}  // namespace

int four_step_m1(bool inverse, int rows) {
  return with_log2_length<kMinLog2Rows>(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    return inverse ? FourStepSplit<kLog2M, true>::kM1 : FourStepSplit<kLog2M, false>::kM1;
  });
}

// Rows of N/2 + 1 complex values put every 256-byte piece of a row but the first 8 or 16
// bytes off its 128-byte lines; padded to whole pieces, each piece is two lines
// (bench_ispd/results/transforms2d.md, "The inverses' spectrum rows padded").
template <typename T>
int four_step_spectrum_pitch(int cols) {
  constexpr int kPiece = kFourStepPieceBytes / static_cast<int>(sizeof(Complex<T>));
  return (cols / 2 + 1 + kPiece - 1) / kPiece * kPiece;
}

template <typename T>
ColumnLinesKernel<T> column_lines_kernel(bool inverse, int rows, int cols, PassLaunch& launch) {
  return with_log2_length<kMinLog2Rows>(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    // Forward: M2 lines of length M1; inverse: M1 lines of length M2.
    auto pick = [&](auto is_inverse) {
      constexpr bool kInverse = decltype(is_inverse)::value;
      using Split = FourStepSplit<kLog2M, kInverse>;
      launch = launch_shape<ColumnLinesShape<T, kLog2M, kInverse>>(kInverse, cols, Split::kM / Split::kLineLength);
      return column_lines<T, kLog2M, kInverse>;
    };
    const ColumnLinesKernel<T> kernel = inverse ? pick(std::true_type{}) : pick(std::false_type{});
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Dct2ColumnKernel<T> dct2_column_groups_kernel(int rows, int cols, bool threshold, PassLaunch& launch) {
  return with_log2_length<kMinLog2Rows>(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    using Split = FourStepSplit<kLog2M, false>;
    const Dct2ColumnKernel<T> kernel =
        with_threshold(threshold, [](auto kept) { return dct2_column_groups<T, kLog2M, decltype(kept)::value>; });
    launch = launch_shape<ColumnGroupsShape<T, kLog2M, false>>(false, cols, Split::kM1);  // M1 groups, in pairs
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template <typename T>
Idct2GroupsKernel<T> idct2_column_groups_kernel(Transform2D kind, int rows, int cols, PassLaunch& launch) {
  return with_log2_length<kMinLog2Rows>(rows, [&](auto log2_rows) {
    constexpr int kLog2M = decltype(log2_rows)::value;
    using Split = FourStepSplit<kLog2M, true>;
    launch = launch_shape<ColumnGroupsShape<T, kLog2M, true>>(true, cols, Split::kM2);  // M2 groups, in pairs
    launch.quad_input = true;  // N is a power of two from 64 (ThreePasses' rule)
    const Idct2GroupsKernel<T> kernel = for_kind(kind, [](auto sine_rows, auto sine_cols) {
      return idct2_column_groups<T, kLog2M, decltype(sine_rows)::value, decltype(sine_cols)::value>;
    });
    allow_shared(kernel, launch.shared_bytes);
    return kernel;
  });
}

template int four_step_spectrum_pitch<float>(int);
template int four_step_spectrum_pitch<double>(int);
template ColumnLinesKernel<float> column_lines_kernel<float>(bool, int, int, PassLaunch&);
template ColumnLinesKernel<double> column_lines_kernel<double>(bool, int, int, PassLaunch&);
template Dct2ColumnKernel<float> dct2_column_groups_kernel<float>(int, int, bool, PassLaunch&);
template Dct2ColumnKernel<double> dct2_column_groups_kernel<double>(int, int, bool, PassLaunch&);
template Idct2GroupsKernel<float> idct2_column_groups_kernel<float>(Transform2D, int, int, PassLaunch&);
template Idct2GroupsKernel<double> idct2_column_groups_kernel<double>(Transform2D, int, int, PassLaunch&);

}  // namespace efield::detail::cuda_nd
