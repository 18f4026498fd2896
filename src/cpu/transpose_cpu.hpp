#pragma once
// Internal: out-of-place transpose on the host, dst[c][r] = src[r][c] for a rows x cols src.
namespace efield::detail {

// Square tiles small enough that a source and a destination tile stay in L1 together, so the
// strided side of the copy hits cache; tiles are spread over `threads` OpenMP threads.
template <typename T>
void transpose_cpu(const T* src, T* dst, int rows, int cols, int threads);

}  // namespace efield::detail
