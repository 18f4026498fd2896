// PNG reading and writing for the compression tool, through stb (libstb-dev). stb's functions are
// compiled static into this file only, so another part of efield may use stb too without clashes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/image_compression.hpp"

#if EFIELD_HAS_STB
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STB_ONLY_PNG
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb_image.h>
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#endif

namespace efield {

#if EFIELD_HAS_STB

Image read_png(const std::string& path) {
  int w = 0, h = 0, n = 0;
  if (!stbi_info(path.c_str(), &w, &h, &n))
    throw Error("read_png: cannot read '" + path + "': " + (stbi_failure_reason() ? stbi_failure_reason() : "unknown error"));
  // Alpha is dropped: grey+alpha -> grey, RGBA -> RGB.
  const int want = (n == 1 || n == 2) ? 1 : 3;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, want);
  if (!data)
    throw Error("read_png: cannot decode '" + path + "': " + (stbi_failure_reason() ? stbi_failure_reason() : "unknown error"));
  Image img;
  img.width = w;
  img.height = h;
  img.channels = want;
  img.pixels.resize(img.plane_size() * want);
  for (int c = 0; c < want; ++c)
    for (std::size_t i = 0; i < img.plane_size(); ++i) img.channel(c)[i] = data[i * want + c];
  stbi_image_free(data);
  return img;
}

void write_png(const std::string& path, const Image& image) {
  if (image.width <= 0 || image.height <= 0 || image.channels < 1 || image.channels > 4 ||
      image.pixels.size() != image.plane_size() * image.channels)
    throw Error("write_png: '" + path + "': the image is empty or inconsistent (" + std::to_string(image.width) +
                " x " + std::to_string(image.height) + " x " + std::to_string(image.channels) + ")");
  const int n = image.channels;
  std::vector<unsigned char> data(image.plane_size() * n);
  for (int c = 0; c < n; ++c) {
    for (std::size_t i = 0; i < image.plane_size(); ++i) {
      const float v = image.channel(c)[i];
      const float clamped = std::isnan(v) ? 0.0f : std::min(255.0f, std::max(0.0f, v));
      data[i * n + c] = static_cast<unsigned char>(std::lround(clamped));
    }
  }
  if (!stbi_write_png(path.c_str(), image.width, image.height, n, data.data(), image.width * n))
    throw Error("write_png: cannot write '" + path + "'");
}

#else

Image read_png(const std::string& path) {
  throw Error("read_png: cannot read '" + path + "': efield was built without stb (install libstb-dev)");
}

void write_png(const std::string& path, const Image&) {
  throw Error("write_png: cannot write '" + path + "': efield was built without stb (install libstb-dev)");
}

#endif

}  // namespace efield
