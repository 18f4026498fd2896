#pragma once
// One channel of DCT compression: forward transform with the threshold fused, then the
// normalized inverse. Hides the difference between the whole-image Plan2D and the 8x8-blocked
// BlockedDct8 (which also pads to multiples of 8 by repeating the edge).
#include <memory>
#include <vector>

#include "efield/blocked_dct8.hpp"
#include "efield/image_compression.hpp"
#include "efield/transforms.hpp"

namespace efield::detail {

class ChannelCodec {
 public:
  // Makes the plans and buffers; eps = 0 keeps every coefficient.
  ChannelCodec(int width, int height, double eps, const CompressionOptions& options);

  // Coefficients of one channel (width x height floats), |B| < eps already zero, into
  // coefficients(). Returns how many coefficients have |B| >= eps.
  std::size_t forward(const float* channel);
  // The reconstruction from coefficients(), normalized and cropped: width x height floats.
  void inverse(float* channel);

  const std::vector<float>& coefficients() const { return coeffs_; }
  Backend backend() const noexcept;

 private:
  void pad(const float* channel);  // blocked: channel -> work_, edge repeated
  int width_, height_;
  int padded_width_, padded_height_;  // the transform's size (= width, height for WholeImage)
  double eps_;
  std::unique_ptr<Plan2D<float>> whole_forward_, whole_inverse_;
  std::unique_ptr<BlockedDct8<float>> blocked_forward_, blocked_inverse_;
  std::vector<float> coeffs_, work_;
};

}  // namespace efield::detail
