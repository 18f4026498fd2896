#pragma once
// Launch side shared by the own FFT passes of the 2D transforms (the column pass of
// dct2d_column_pass.cuh, the row pass of dct2d_row_pass.cuh, the four-step column passes of
// dct2d_column_four_step.cuh): a launch shape, and the helpers that pick a compile-time line
// length and raise a kernel's shared-memory limit, used once at plan construction.
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "common/cuda_check.cuh"
#include "efield/transforms.hpp"

namespace efield::detail::cuda_nd {

struct PassLaunch {
  unsigned blocks = 0;    // grid x
  unsigned blocks_y = 1;  // grid y (the four-step column passes: groups of lines)
  unsigned threads = 0;
  std::size_t shared_bytes = 0;
  // The kernel reads its input array in 16-byte quads: the caller passes it 16-byte aligned.
  bool quad_input = false;
  dim3 grid() const { return dim3(blocks, blocks_y); }
};

// Calls f(std::integral_constant<int, log2(length)>) for a line length the passes are compiled
// for, the powers of two 2^kMinLog2..8192 (64.. by default; the four-step passes start at 1024).
// The caller checked it (transforms/cuda2d_registry.cpp); anything else is taken as 8192. Only those lengths
// are instantiated.
template <int kMinLog2 = 6, typename F>
auto with_log2_length(int length, F&& f) {
  constexpr int kMaxLog2 = 13;
  if constexpr (kMinLog2 == kMaxLog2) {
    return f(std::integral_constant<int, kMaxLog2>{});
  } else {
    if (length == (1 << kMinLog2)) return f(std::integral_constant<int, kMinLog2>{});
    return with_log2_length<kMinLog2 + 1>(length, std::forward<F>(f));
  }
}

// __launch_bounds__' minimum of blocks an SM must hold so that it holds resident_threads
// threads of blocks of block_threads (at least 1): the register cap of a pass, chosen by measure.
constexpr int min_blocks_for(int resident_threads, int block_threads) {
  return resident_threads / block_threads > 1 ? resident_threads / block_threads : 1;
}

// Calls f(sine_rows, sine_cols), each a std::bool_constant, for the sine axes of an inverse
// `kind` (idct2: neither; idxst_idct: rows; idct_idxst: columns), to pick a kernel instance.
template <typename F>
auto for_kind(Transform2D kind, F&& f) {
  if (kind == Transform2D::IdxstIdct) return f(std::true_type{}, std::false_type{});
  if (kind == Transform2D::IdctIdxst) return f(std::false_type{}, std::true_type{});
  return f(std::false_type{}, std::false_type{});
}

// Calls f(std::bool_constant<threshold>): the dct2 column kernels are compiled with and without
// PlanOptions::zero_below (store_dct2_quad_rows), and a plan picks by its option.
template <typename F>
auto with_threshold(bool threshold, F&& f) {
  return threshold ? f(std::true_type{}) : f(std::false_type{});
}

template <typename Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  EFIELD_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace efield::detail::cuda_nd
