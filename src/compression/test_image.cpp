// A synthetic photograph stand-in: what makes DCT compression interesting is a mix of smooth
// areas (few coefficients), hard edges (ringing) and fine texture (many coefficients).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "efield/error.hpp"
#include "efield/image_compression.hpp"

namespace efield {

Image generate_test_image(int width, int height, int channels, std::uint64_t seed) {
  if (width <= 0 || height <= 0 || width > 65536 || height > 65536)
    throw Error("generate_test_image: size must be 1..65536 on each side, got " + std::to_string(width) + " x " +
                std::to_string(height));
  if (channels < 1 || channels > 4)
    throw Error("generate_test_image: channels must be 1..4, got " + std::to_string(channels));
  Image img;
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.pixels.resize(img.plane_size() * channels);
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> noise(0.0, 3.0);
  const double pi = 3.14159265358979323846;
  const double s = std::min(width, height);
  for (int c = 0; c < channels; ++c) {
    float* p = img.channel(c);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const double u = static_cast<double>(x) / width, v = static_cast<double>(y) / height;
        // Smooth shading, a little different per channel.
        double val = 110 + 50 * std::sin(2 * pi * u * (1 + 0.5 * c)) * std::cos(1.5 * pi * v) + 30 * v;
        // A bright disk and a dark bar with hard edges.
        const double dx = x - 0.35 * width, dy = y - 0.4 * height;
        if (dx * dx + dy * dy < (0.22 * s) * (0.22 * s)) val += 60 - 20 * c;
        if (u > 0.6 && u < 0.85 && v > 0.15 && v < 0.8) val -= 70;
        // Fine texture: a 4-pixel checkerboard in the lower-right corner, thin stripes lower-left.
        if (u > 0.7 && v > 0.85) val += ((x / 4 + y / 4) % 2) ? 35 : -35;
        if (u < 0.3 && v > 0.75) val += 25 * std::sin(2 * pi * x / 5.0);
        val += noise(gen);
        p[static_cast<std::size_t>(y) * width + x] = static_cast<float>(std::round(std::clamp(val, 0.0, 255.0)));
      }
    }
  }
  return img;
}

}  // namespace efield
