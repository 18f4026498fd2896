#pragma once
// DCT image compression (the DCT paper's Section V-A, Algorithm 3), whole-image and 8x8-blocked.
//
// Whole image, per channel A (height x width):  B = dct2(A);  C = B with |B| < eps set to 0
// (fused into the forward transform's postprocess, PlanOptions::zero_below);
// D = idct2(C) / (height * width).  With eps = 0, D = A up to rounding.
// Blocked: the same per 8x8 block (efield::BlockedDct8, threshold fused, 1/64 folded into the
// inverse). An image whose sides are not multiples of 8 is padded by repeating its last row and
// column, and the reconstruction is cropped back; its coefficients include the padding.
//
// Coefficients are docs/math.md's unnormalized dct2 (the whole-image B[0,0] is the sum of all pixels,
// a blocked B[0,0] the sum of 64), so one eps means different things in the two methods; compare
// them at equal kept fractions (eps_for_kept_fraction).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "efield/device.hpp"

namespace efield {

// `channels` planes of height x width floats, planar and row-major: pixel (c, y, x) lives at
// pixels[(c * height + y) * width + x]. 8-bit images map to values 0..255.
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<float> pixels;

  std::size_t plane_size() const { return static_cast<std::size_t>(width) * height; }
  float* channel(int c) { return pixels.data() + c * plane_size(); }
  const float* channel(int c) const { return pixels.data() + c * plane_size(); }
};

// PNG through stb (libstb-dev); throws efield::Error naming the file when it cannot be read or
// written, or when efield was built without stb. Alpha is dropped on reading (1 or 3 channels).
Image read_png(const std::string& path);
// Values are clamped to [0, 255] and rounded. 1 to 4 channels.
void write_png(const std::string& path, const Image& image);

// A deterministic synthetic test picture (smooth shading, hard-edged shapes, fine texture and
// a little noise, 8-bit values), since the repository ships no photographs.
Image generate_test_image(int width, int height, int channels = 3, std::uint64_t seed = 1);

// Peak signal-to-noise ratio 10 log10(peak^2 / MSE) over all channels; +inf when equal.
// Throws efield::Error when the sizes differ.
double psnr(const Image& reference, const Image& test, double peak = 255.0);

enum class CompressionMethod {
  WholeImage,  // one dct2 / idct2 of each whole channel (efield::Plan2D)
  Blocked8,    // dct2 / idct2 of every 8x8 block (efield::BlockedDct8), as in JPEG
};

const char* to_string(CompressionMethod method) noexcept;

struct CompressionOptions {
  CompressionMethod method = CompressionMethod::WholeImage;
  Backend backend = Backend::Auto;
  int cpu_threads = 0;  // CPU backend: 0 = all hardware threads
};

struct CompressionStats {
  double eps = 0;            // the threshold used
  double kept_fraction = 0;  // coefficients with |B| >= eps over all coefficients (all channels)
  double psnr = 0;           // of the float reconstruction against the input (before 8-bit rounding)
};

// Plan once for one image size, threshold and method; compress any number of images of that size.
class ImageCompressor {
 public:
  ImageCompressor(int width, int height, double eps, const CompressionOptions& options = {});
  ~ImageCompressor();
  ImageCompressor(ImageCompressor&&) noexcept;
  ImageCompressor& operator=(ImageCompressor&&) noexcept;

  // Compresses every channel of `input` (its width and height must match the plan) into `output`
  // (resized to match; keeps its storage across calls). `output` must not be `input`.
  CompressionStats compress(const Image& input, Image& output);

  int width() const noexcept;
  int height() const noexcept;
  double eps() const noexcept;
  CompressionMethod method() const noexcept;
  Backend backend() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The eps that keeps `fraction` (0..1) of the coefficients of `image` under `options.method`:
// the k-th largest |B| over all channels, k = round(fraction * count); 0 for fraction 1, and
// above the largest |B| for fraction 0. Ties at that magnitude are all kept.
double eps_for_kept_fraction(const Image& image, double fraction, const CompressionOptions& options = {});

// One-shot helpers (a plan each call).
CompressionStats compress_image(const Image& input, double eps, Image& output,
                                const CompressionOptions& options = {});
CompressionStats compress_image_keep(const Image& input, double fraction, Image& output,
                                     const CompressionOptions& options = {});

}  // namespace efield
