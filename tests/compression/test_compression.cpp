// DCT image compression (DCT paper Algorithm 3), whole-image and 8x8-blocked, against float64
// references built from docs/math.md's dense dct2/idct2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "efield/error.hpp"
#include "efield/image_compression.hpp"
#include "reference/dense_transforms.hpp"
#include "support/gpu.hpp"
#include "support/random.hpp"

namespace {

using efield::CompressionMethod;
using efield::CompressionOptions;
using efield::Image;
using efield::Transform2D;

CompressionOptions cpu_options(CompressionMethod method) {
  CompressionOptions o;
  o.method = method;
  o.backend = efield::Backend::Cpu;
  return o;
}

Image poisoned_like(const Image& im) {
  Image out = im;
  for (auto& v : out.pixels) v = std::numeric_limits<float>::quiet_NaN();
  return out;
}

double max_abs_diff(const Image& a, const Image& b) {
  double m = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = std::abs(static_cast<double>(a.pixels[i]) - b.pixels[i]);
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m;
}

// Float64 reference of Algorithm 3 on one plane (rows x cols): dct2, |B| < eps -> 0,
// idct2 / (rows cols). Sets `near` when a coefficient is too close to eps to call in float.
std::vector<double> reference_plane(const std::vector<double>& a, int rows, int cols, double eps, bool& near) {
  auto b = efield::test::dense_2d(Transform2D::Dct2, a, rows, cols);
  for (auto& v : b) {
    if (std::abs(std::abs(v) - eps) < 1e-4 * (1 + eps)) near = true;
    if (std::abs(v) < eps) v = 0;
  }
  auto d = efield::test::dense_2d(Transform2D::Idct2, b, rows, cols);
  for (auto& v : d) v /= static_cast<double>(rows) * cols;
  return d;
}

// The reference for a whole image under `method` (blocked: per 8x8 block with edge padding).
std::vector<double> reference_image(const Image& im, CompressionMethod method, double eps, bool& near) {
  std::vector<double> out(im.pixels.size());
  for (int c = 0; c < im.channels; ++c) {
    if (method == CompressionMethod::WholeImage) {
      std::vector<double> a(im.channel(c), im.channel(c) + im.plane_size());
      const auto d = reference_plane(a, im.height, im.width, eps, near);
      std::copy(d.begin(), d.end(), out.begin() + c * im.plane_size());
      continue;
    }
    for (int y0 = 0; y0 < im.height; y0 += 8) {
      for (int x0 = 0; x0 < im.width; x0 += 8) {
        std::vector<double> blk(64);
        for (int y = 0; y < 8; ++y)
          for (int x = 0; x < 8; ++x)
            blk[8 * y + x] = im.channel(c)[std::min(y0 + y, im.height - 1) * im.width + std::min(x0 + x, im.width - 1)];
        const auto d = reference_plane(blk, 8, 8, eps, near);
        for (int y = 0; y < 8 && y0 + y < im.height; ++y)
          for (int x = 0; x < 8 && x0 + x < im.width; ++x)
            out[c * im.plane_size() + (y0 + y) * im.width + x0 + x] = d[8 * y + x];
      }
    }
  }
  return out;
}

class CompressionBothMethods : public ::testing::TestWithParam<CompressionMethod> {};

TEST_P(CompressionBothMethods, ZeroEpsRoundTripReturnsTheInput) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Image im = efield::generate_test_image(70, 45, 3, seed);  // not multiples of 8
  Image out = poisoned_like(im);
  const auto stats = efield::compress_image(im, 0.0, out, cpu_options(GetParam()));
  EXPECT_EQ(stats.kept_fraction, 1.0);
  EXPECT_LE(efield::test::relative_l2(out.pixels, im.pixels), 1e-5);
  EXPECT_LE(max_abs_diff(out, im), 1e-5 * 255);
  EXPECT_GT(stats.psnr, 90);
}

TEST_P(CompressionBothMethods, ThresholdedResultMatchesFloat64Reference) {
  const auto seed = efield::test::next_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Image im = efield::generate_test_image(40, 28, 2, seed);
  const auto opt = cpu_options(GetParam());
  for (double fraction : {0.5, 0.1}) {
    // eps_for_kept_fraction returns the magnitude of a (float) coefficient, and coefficients of
    // equal magnitude in exact arithmetic (mirrored or edge-padded blocks) differ in float's last
    // bits, so float and the float64 reference may split such a tie differently. The threshold is
    // nudged until no coefficient lies within float's reach of it (the reference reports `near`).
    const double base = efield::eps_for_kept_fraction(im, fraction, opt);
    double eps = base;
    bool near = true;
    std::vector<double> ref_kept;
    for (const double nudge : {1 + 1e-3, 1 - 1e-3, 1 + 3e-3, 1 - 3e-3, 1 + 1e-2, 1 - 1e-2}) {
      eps = base * nudge;
      near = false;
      ref_kept = reference_image(im, GetParam(), eps, near);
      if (!near) break;
    }
    ASSERT_FALSE(near) << "every threshold tried sits on a coefficient";
    Image out = poisoned_like(im);
    const auto stats = efield::compress_image(im, eps, out, opt);
    EXPECT_NEAR(stats.kept_fraction, fraction, 0.02);
    EXPECT_LE(efield::test::relative_l2(out.pixels, ref_kept), 1e-4) << "fraction " << fraction;
  }
}

TEST_P(CompressionBothMethods, PsnrFallsAsEpsGrows) {
  const Image im = efield::generate_test_image(96, 64, 3, 7);
  const auto opt = cpu_options(GetParam());
  double last_psnr = std::numeric_limits<double>::infinity(), last_kept = 2;
  double last_eps = -1;
  for (double fraction : {1.0, 0.6, 0.3, 0.15, 0.05, 0.02, 0.005}) {
    const double eps = efield::eps_for_kept_fraction(im, fraction, opt);
    EXPECT_GE(eps, last_eps);
    Image out;
    const auto stats = efield::compress_image(im, eps, out, opt);
    SCOPED_TRACE(::testing::Message() << "fraction " << fraction << " eps " << eps << " kept "
                                      << stats.kept_fraction << " psnr " << stats.psnr);
    EXPECT_LT(stats.psnr, last_psnr);
    EXPECT_LT(stats.kept_fraction, last_kept);
    EXPECT_TRUE(std::isfinite(stats.psnr) || fraction == 1.0);
    last_psnr = stats.psnr;
    last_kept = stats.kept_fraction;
    last_eps = eps;
  }
}

TEST_P(CompressionBothMethods, CompressorIsReusableAcrossImages) {
  const auto opt = cpu_options(GetParam());
  const Image a = efield::generate_test_image(32, 24, 1, 1), b = efield::generate_test_image(32, 24, 1, 2);
  efield::ImageCompressor comp(32, 24, 100.0, opt);
  Image out_a, out_b, again;
  const auto sa = comp.compress(a, out_a);
  comp.compress(b, out_b);
  const auto sa2 = comp.compress(a, again);
  EXPECT_EQ(out_a.pixels, again.pixels);
  EXPECT_EQ(sa.kept_fraction, sa2.kept_fraction);
  EXPECT_THROW(comp.compress(efield::generate_test_image(24, 32, 1, 1), out_a), efield::Error);
  EXPECT_THROW(comp.compress(a, const_cast<Image&>(a)), efield::Error);
}

INSTANTIATE_TEST_SUITE_P(Methods, CompressionBothMethods,
                         ::testing::Values(CompressionMethod::WholeImage, CompressionMethod::Blocked8),
                         [](const auto& info) {
                           return info.param == CompressionMethod::WholeImage ? std::string("WholeImage")
                                                                              : std::string("Blocked8");
                         });

TEST(Compression, KeepFractionEdges) {
  const Image im = efield::generate_test_image(24, 16, 1, 3);
  const auto opt = cpu_options(CompressionMethod::WholeImage);
  EXPECT_EQ(efield::eps_for_kept_fraction(im, 1.0, opt), 0.0);
  Image out;
  const auto none = efield::compress_image_keep(im, 0.0, out, opt);
  EXPECT_EQ(none.kept_fraction, 0.0);
  for (float v : out.pixels) EXPECT_EQ(v, 0.0f);
  EXPECT_THROW(efield::eps_for_kept_fraction(im, 1.5, opt), efield::Error);
  EXPECT_THROW(efield::eps_for_kept_fraction(im, -0.1, opt), efield::Error);
  EXPECT_THROW(efield::eps_for_kept_fraction(im, std::nan(""), opt), efield::Error);
}

TEST(Compression, BadInputsRaise) {
  const auto opt = cpu_options(CompressionMethod::WholeImage);
  EXPECT_THROW(efield::ImageCompressor(0, 8, 1.0, opt), efield::Error);
  EXPECT_THROW(efield::ImageCompressor(8, 8, -1.0, opt), efield::Error);
  EXPECT_THROW(efield::ImageCompressor(8, 8, std::nan(""), opt), efield::Error);
  EXPECT_THROW(efield::generate_test_image(0, 8), efield::Error);
  EXPECT_THROW(efield::generate_test_image(8, 8, 5), efield::Error);
  Image broken;
  broken.width = 8;
  broken.height = 8;
  broken.channels = 1;
  broken.pixels.resize(10);
  Image out;
  EXPECT_THROW(efield::compress_image(broken, 0.0, out, opt), efield::Error);
  EXPECT_THROW(efield::psnr(efield::generate_test_image(8, 8, 1), efield::generate_test_image(8, 9, 1)), efield::Error);
  const Image im = efield::generate_test_image(8, 8, 1);
  EXPECT_EQ(efield::psnr(im, im), std::numeric_limits<double>::infinity());
}

TEST(CompressionPng, MissingAndBadFilesRaiseNamingTheFile) {
  const std::string missing = "/nonexistent-dir/efield-no-such-file.png";
  try {
    efield::read_png(missing);
    FAIL() << "expected efield::Error";
  } catch (const efield::Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  const std::string text = ::testing::TempDir() + "efield_not_a_png.png";
  { std::ofstream(text) << "this is not a PNG file\n"; }
  EXPECT_THROW(efield::read_png(text), efield::Error);
  std::remove(text.c_str());
  EXPECT_THROW(efield::write_png("/nonexistent-dir/out.png", efield::generate_test_image(8, 8, 3)), efield::Error);
}

TEST(CompressionPng, WriteThenReadReturnsTheSamePixels) {
  if (!EFIELD_HAS_STB) GTEST_SKIP() << "efield was built without stb";
  for (int channels : {1, 3}) {
    const Image im = efield::generate_test_image(37, 21, channels, 11);
    const std::string path = ::testing::TempDir() + "efield_png_round_trip.png";
    efield::write_png(path, im);
    const Image back = efield::read_png(path);
    std::remove(path.c_str());
    EXPECT_EQ(back.width, im.width);
    EXPECT_EQ(back.height, im.height);
    EXPECT_EQ(back.channels, channels);
    EXPECT_EQ(back.pixels, im.pixels);  // the test image holds whole numbers 0..255
  }
}

TEST(CompressionGpu, CpuAndCudaAgree) {
  EFIELD_REQUIRE_GPU();
  const Image im = efield::generate_test_image(200, 136, 3, 5);
  for (auto method : {CompressionMethod::WholeImage, CompressionMethod::Blocked8}) {
    SCOPED_TRACE(efield::to_string(method));
    CompressionOptions cpu = cpu_options(method), gpu = cpu;
    gpu.backend = efield::Backend::Cuda;
    for (double fraction : {1.0, 0.1}) {
      // Nudged off the exact magnitude of a coefficient: FFTW and cuFFT round differently, and a
      // coefficient sitting on the threshold would be kept by one and dropped by the other.
      const double eps = efield::eps_for_kept_fraction(im, fraction, cpu) * (1 + 1e-3);
      Image out_cpu = poisoned_like(im), out_gpu = poisoned_like(im);
      efield::ImageCompressor gc(im.width, im.height, eps, gpu);
      ASSERT_EQ(gc.backend(), efield::Backend::Cuda);
      const auto sc = efield::compress_image(im, eps, out_cpu, cpu);
      const auto sg = gc.compress(im, out_gpu);
      EXPECT_NEAR(sg.kept_fraction, sc.kept_fraction, 1e-3);
      EXPECT_NEAR(sg.psnr, sc.psnr, fraction == 1.0 ? 30.0 : 0.05);
      EXPECT_LE(efield::test::relative_l2(out_gpu.pixels, out_cpu.pixels), fraction == 1.0 ? 1e-5 : 2e-3);
    }
  }
}

}  // namespace
