#include "common/heatmap_png.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "efield/error.hpp"

#if EFIELD_HAS_STB
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image_write.h>
#pragma GCC diagnostic pop
#endif

namespace efield::bench {
namespace {

// A blue - cyan - yellow - red ramp, linear between five anchors.
std::array<std::uint8_t, 3> colour(double t) {
  static constexpr double kAnchors[5][3] = {
      {0.05, 0.05, 0.35}, {0.10, 0.45, 0.90}, {0.30, 0.90, 0.80}, {0.98, 0.85, 0.20}, {0.60, 0.05, 0.05}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int k = std::min(3, static_cast<int>(t));
  const double u = t - k;
  std::array<std::uint8_t, 3> rgb{};
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<std::uint8_t>(std::lround(255.0 * ((1 - u) * kAnchors[k][c] + u * kAnchors[k + 1][c])));
  return rgb;
}

}  // namespace

bool png_supported() noexcept { return EFIELD_HAS_STB != 0; }

void write_heatmap_png(const std::string& path, const std::vector<double>& map, int mx, int ny) {
  if (mx < 1 || ny < 1 || map.size() != static_cast<std::size_t>(mx) * static_cast<std::size_t>(ny))
    throw Error(path + ": heat map of " + std::to_string(map.size()) + " values for " + std::to_string(mx) + " x " +
                std::to_string(ny) + " bins");
#if EFIELD_HAS_STB
  double lo = 0, hi = 0;
  bool first = true;
  for (double v : map)
    if (std::isfinite(v)) {
      lo = first ? v : std::min(lo, v), hi = first ? v : std::max(hi, v);
      first = false;
    }
  const double span = hi > lo ? hi - lo : 1.0;
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(mx) * ny * 3);
  for (int row = 0; row < ny; ++row) {
    const int n = ny - 1 - row;  // y up
    for (int m = 0; m < mx; ++m) {
      const auto rgb = colour((map[static_cast<std::size_t>(m) * ny + n] - lo) / span);
      std::copy(rgb.begin(), rgb.end(), pixels.begin() + (static_cast<std::size_t>(row) * mx + m) * 3);
    }
  }
  if (!stbi_write_png(path.c_str(), mx, ny, 3, pixels.data(), mx * 3)) throw Error(path + ": cannot write PNG");
#else
  throw Error(path + ": PNG output needs stb (libstb-dev); efield was built without it");
#endif
}

}  // namespace efield::bench
