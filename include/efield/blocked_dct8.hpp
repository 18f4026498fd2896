#pragma once
// The blocked 8x8 DCT (as in JPEG): every 8x8 block of a rows x cols array transformed on its
// own, by the 11-multiplication network of Loeffler, Ligtenberg and Moschytz (docs/math.md 3).
//
// Definitions, per block (rows and cols of the block both 8, docs/math.md section 1):
//   Transform2D::Dct2   out block = dct2(in block), then |X| < zero_below -> exactly 0
//   Transform2D::Idct2  out block = inverse_scale * idct2(in block)
// so, per block, Idct2(Dct2(x)) = 64 x with the default inverse_scale = 1, and inverse_scale =
// 1/64 makes Idct2 the exact inverse. The network's own scale (it returns sqrt(2) X[k] for
// k >= 1) is undone inside by one table multiplication per coefficient: the results equal the
// definitions, not the network's scaled DCT.
//
// rows and cols must be positive multiples of 8 (efield::Error otherwise; pad an image first,
// e.g. by repeating its edge, as efield::compress_image does).
#include <memory>

#include "efield/device.hpp"
#include "efield/transforms.hpp"

namespace efield {

struct BlockedDct8Options {
  Backend backend = Backend::Auto;
  // CPU backend: OpenMP threads (0 = all hardware threads).
  int cpu_threads = 0;
  // Dct2 only: coefficients with |X| < zero_below are written as exactly 0 (fused; 0 keeps all).
  double zero_below = 0.0;
  // Idct2 only: every output multiplied by this (1/64 gives the exact inverse of Dct2).
  double inverse_scale = 1.0;
};

// T is float or double. Plan once (checks, device buffers for execute_host), execute many.
template <typename T>
class BlockedDct8 {
 public:
  // kind is Transform2D::Dct2 or Transform2D::Idct2.
  BlockedDct8(Transform2D kind, int rows, int cols, const BlockedDct8Options& options = {});
  ~BlockedDct8();
  BlockedDct8(BlockedDct8&&) noexcept;
  BlockedDct8& operator=(BlockedDct8&&) noexcept;

  // Pointers in the backend's memory (device memory for Backend::Cuda, host memory for Cpu);
  // asynchronous on `stream` for CUDA. `in` and `out` may be the same array; otherwise they must
  // not overlap.
  void execute(const T* in, T* out, Stream stream = nullptr);
  // Host pointers for either backend; synchronous (CUDA copies through buffers made at
  // construction).
  void execute_host(const T* in, T* out);

  Transform2D kind() const noexcept;
  int rows() const noexcept;
  int cols() const noexcept;
  Backend backend() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace efield
