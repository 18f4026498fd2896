// Whole-image and blocked DCT compression of every channel (DCT paper, Algorithm 3).
#include <algorithm>
#include <cmath>
#include <string>

#include "common/log.hpp"
#include "compression/channel_codec.hpp"
#include "efield/error.hpp"
#include "efield/image_compression.hpp"

namespace efield {

const char* to_string(CompressionMethod method) noexcept {
  switch (method) {
    case CompressionMethod::WholeImage: return "whole-image";
    case CompressionMethod::Blocked8: return "blocked-8x8";
  }
  return "unknown";
}

namespace {

void check_image(const Image& image, const char* who) {
  if (image.width <= 0 || image.height <= 0 || image.channels <= 0)
    throw Error(std::string(who) + ": empty image (" + std::to_string(image.width) + " x " +
                std::to_string(image.height) + " x " + std::to_string(image.channels) + ")");
  if (image.pixels.size() != image.plane_size() * image.channels)
    throw Error(std::string(who) + ": the image holds " + std::to_string(image.pixels.size()) + " values, expected " +
                std::to_string(image.plane_size() * image.channels));
}

void check_method(CompressionMethod method, const char* who) {
  if (method != CompressionMethod::WholeImage && method != CompressionMethod::Blocked8)
    throw Error(std::string(who) + ": unknown CompressionMethod");
}

}  // namespace

struct ImageCompressor::Impl {
  int width;
  int height;
  double eps;
  CompressionMethod method;
  detail::ChannelCodec codec;
};

ImageCompressor::ImageCompressor(int width, int height, double eps, const CompressionOptions& options) {
  if (width <= 0 || height <= 0)
    throw Error("ImageCompressor: size must be positive, got " + std::to_string(width) + " x " + std::to_string(height));
  if (!(eps >= 0) || !std::isfinite(eps))
    throw Error("ImageCompressor: eps must be finite and >= 0, got " + std::to_string(eps));
  check_method(options.method, "ImageCompressor");
  impl_.reset(new Impl{width, height, eps, options.method, detail::ChannelCodec(width, height, eps, options)});
  detail::log().debug("ImageCompressor {} {}x{} eps {} on {}", to_string(options.method), width, height, eps,
                      to_string(impl_->codec.backend()));
}

ImageCompressor::~ImageCompressor() = default;
ImageCompressor::ImageCompressor(ImageCompressor&&) noexcept = default;
ImageCompressor& ImageCompressor::operator=(ImageCompressor&&) noexcept = default;

CompressionStats ImageCompressor::compress(const Image& input, Image& output) {
  if (!impl_) throw Error("ImageCompressor::compress: the compressor was moved from");
  check_image(input, "ImageCompressor::compress");
  if (input.width != impl_->width || input.height != impl_->height)
    throw Error("ImageCompressor::compress: the image is " + std::to_string(input.width) + " x " +
                std::to_string(input.height) + ", the compressor was made for " + std::to_string(impl_->width) +
                " x " + std::to_string(impl_->height));
  if (&input == &output) throw Error("ImageCompressor::compress: output must be a different Image than input");
  output.width = input.width;
  output.height = input.height;
  output.channels = input.channels;
  output.pixels.resize(input.pixels.size());
  std::size_t kept = 0, total = 0;
  for (int c = 0; c < input.channels; ++c) {
    kept += impl_->codec.forward(input.channel(c));
    total += impl_->codec.coefficients().size();
    impl_->codec.inverse(output.channel(c));
  }
  CompressionStats stats;
  stats.eps = impl_->eps;
  stats.kept_fraction = static_cast<double>(kept) / static_cast<double>(total);
  stats.psnr = psnr(input, output);
  return stats;
}

int ImageCompressor::width() const noexcept { return impl_->width; }
int ImageCompressor::height() const noexcept { return impl_->height; }
double ImageCompressor::eps() const noexcept { return impl_->eps; }
CompressionMethod ImageCompressor::method() const noexcept { return impl_->method; }
Backend ImageCompressor::backend() const noexcept { return impl_->codec.backend(); }

double eps_for_kept_fraction(const Image& image, double fraction, const CompressionOptions& options) {
  check_image(image, "eps_for_kept_fraction");
  check_method(options.method, "eps_for_kept_fraction");
  if (!(fraction >= 0 && fraction <= 1))
    throw Error("eps_for_kept_fraction: fraction must lie in [0, 1], got " + std::to_string(fraction));
  detail::ChannelCodec codec(image.width, image.height, 0.0, options);
  std::vector<float> magnitudes;
  magnitudes.reserve(codec.coefficients().size() * image.channels);
  for (int c = 0; c < image.channels; ++c) {
    codec.forward(image.channel(c));
    for (float b : codec.coefficients()) magnitudes.push_back(std::abs(b));
  }
  const std::size_t n = magnitudes.size();
  const auto k = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(n)));
  if (k >= n) return 0.0;
  if (k == 0) {
    // Above every |B| (in float too, since the transforms compare in float).
    const double top = *std::max_element(magnitudes.begin(), magnitudes.end());
    return std::nextafter(static_cast<float>(top), INFINITY) * 2.0 + 1.0;
  }
  // The k-th largest magnitude: |B| >= it keeps k coefficients (more on ties).
  std::nth_element(magnitudes.begin(), magnitudes.begin() + (k - 1), magnitudes.end(), std::greater<float>());
  return magnitudes[k - 1];
}

CompressionStats compress_image(const Image& input, double eps, Image& output, const CompressionOptions& options) {
  check_image(input, "compress_image");
  ImageCompressor compressor(input.width, input.height, eps, options);
  return compressor.compress(input, output);
}

CompressionStats compress_image_keep(const Image& input, double fraction, Image& output,
                                     const CompressionOptions& options) {
  const double eps = eps_for_kept_fraction(input, fraction, options);
  return compress_image(input, eps, output, options);
}

}  // namespace efield
