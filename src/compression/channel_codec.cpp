#include "compression/channel_codec.hpp"

#include <algorithm>

namespace efield::detail {

namespace {
int round_up8(int n) { return (n + 7) / 8 * 8; }
}  // namespace

ChannelCodec::ChannelCodec(int width, int height, double eps, const CompressionOptions& options)
    : width_(width), height_(height), eps_(eps) {
  const bool blocked = options.method == CompressionMethod::Blocked8;
  padded_width_ = blocked ? round_up8(width) : width;
  padded_height_ = blocked ? round_up8(height) : height;
  const std::size_t n = static_cast<std::size_t>(padded_width_) * padded_height_;
  coeffs_.resize(n);
  work_.resize(n);
  if (blocked) {
    BlockedDct8Options fo;
    fo.backend = options.backend;
    fo.cpu_threads = options.cpu_threads;
    BlockedDct8Options io = fo;
    fo.zero_below = eps;
    io.inverse_scale = 1.0 / 64.0;  // idct2(dct2(x)) = 64 x per block
    blocked_forward_ = std::make_unique<BlockedDct8<float>>(Transform2D::Dct2, padded_height_, padded_width_, fo);
    blocked_inverse_ = std::make_unique<BlockedDct8<float>>(Transform2D::Idct2, padded_height_, padded_width_, io);
  } else {
    PlanOptions fo;
    fo.backend = options.backend;
    fo.cpu_threads = options.cpu_threads;
    PlanOptions io = fo;
    fo.zero_below = eps;  // Algorithm 3's f_eps, fused into the dct2 postprocess
    whole_forward_ = std::make_unique<Plan2D<float>>(Transform2D::Dct2, height, width, fo);
    whole_inverse_ = std::make_unique<Plan2D<float>>(Transform2D::Idct2, height, width, io);
  }
}

Backend ChannelCodec::backend() const noexcept {
  return whole_forward_ ? whole_forward_->backend() : blocked_forward_->backend();
}

void ChannelCodec::pad(const float* channel) {
  for (int y = 0; y < padded_height_; ++y) {
    const float* src = channel + static_cast<std::size_t>(std::min(y, height_ - 1)) * width_;
    float* dst = work_.data() + static_cast<std::size_t>(y) * padded_width_;
    std::copy(src, src + width_, dst);
    std::fill(dst + width_, dst + padded_width_, src[width_ - 1]);
  }
}

std::size_t ChannelCodec::forward(const float* channel) {
  if (whole_forward_) {
    whole_forward_->execute_host(channel, coeffs_.data());
  } else {
    pad(channel);
    blocked_forward_->execute_host(work_.data(), coeffs_.data());
  }
  if (eps_ == 0) return coeffs_.size();  // nothing is thresholded, zeros included
  return coeffs_.size() - static_cast<std::size_t>(std::count(coeffs_.begin(), coeffs_.end(), 0.0f));
}

void ChannelCodec::inverse(float* channel) {
  if (whole_inverse_) {
    whole_inverse_->execute_host(coeffs_.data(), work_.data());
    // idct2(dct2(x)) = M N x (docs/math.md): Algorithm 3's normalization.
    const float scale = 1.0f / (static_cast<float>(width_) * static_cast<float>(height_));
    for (std::size_t i = 0; i < work_.size(); ++i) channel[i] = work_[i] * scale;
  } else {
    blocked_inverse_->execute_host(coeffs_.data(), work_.data());
    for (int y = 0; y < height_; ++y) {
      const float* src = work_.data() + static_cast<std::size_t>(y) * padded_width_;
      std::copy(src, src + width_, channel + static_cast<std::size_t>(y) * width_);
    }
  }
}

}  // namespace efield::detail
