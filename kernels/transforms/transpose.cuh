#pragma once
// Internal: out-of-place device transpose, dst[c][r] = src[r][c] for a rows x cols src,
// enqueued on `stream` (checks its launch).
#include <cuda_runtime.h>

namespace efield::detail {

template <typename T>
void transpose_cuda(const T* src, T* dst, int rows, int cols, cudaStream_t stream);

}  // namespace efield::detail
