#include <cmath>
#include <limits>
#include <string>

#include "efield/error.hpp"
#include "efield/image_compression.hpp"

namespace efield {

double psnr(const Image& reference, const Image& test, double peak) {
  if (reference.width != test.width || reference.height != test.height || reference.channels != test.channels ||
      reference.pixels.size() != test.pixels.size())
    throw Error("psnr: image sizes differ (" + std::to_string(reference.width) + "x" +
                std::to_string(reference.height) + "x" + std::to_string(reference.channels) + " vs " +
                std::to_string(test.width) + "x" + std::to_string(test.height) + "x" +
                std::to_string(test.channels) + ")");
  if (reference.pixels.empty()) throw Error("psnr: empty images");
  double sum = 0;
  for (std::size_t i = 0; i < reference.pixels.size(); ++i) {
    const double d = static_cast<double>(reference.pixels[i]) - test.pixels[i];
    sum += d * d;
  }
  const double mse = sum / static_cast<double>(reference.pixels.size());
  if (std::isnan(mse)) return std::numeric_limits<double>::quiet_NaN();
  if (mse == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(peak * peak / mse);
}

}  // namespace efield
