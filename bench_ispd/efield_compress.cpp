// efield_compress: DCT image compression from the command line (DCT paper, Algorithm 3).
// Reads a PNG (or makes a test picture), compresses every channel with the whole-image DCT and
// with the 8x8-blocked DCT, writes the reconstructions, and prints kept fraction and PSNR.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "efield/efield.hpp"

namespace {

efield::Image quantized(const efield::Image& im) {
  efield::Image q = im;
  for (auto& v : q.pixels) v = std::isnan(v) ? 0.0f : std::round(std::fmin(255.0f, std::fmax(0.0f, v)));
  return q;
}

std::string psnr_text(double p) {
  if (std::isinf(p)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", p);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Compresses every channel of an image with the DCT: B = dct2(A), coefficients with |B| < eps set to 0 (fused "
      "into the transform), then the normalized idct2 back. whole: one dct2 of each whole channel "
      "(efield::Plan2D); blocked: dct2 of every 8x8 block, as in JPEG (efield::BlockedDct8), sides that are not "
      "multiples of 8 padded by repeating the edge.",
      "efield_compress"};
  app.footer(
      "PSNR is 10 log10(255^2 / MSE) against the input; 'float' before 8-bit rounding, '8-bit' of the PNG written.");
  std::string input, generate, output = "compressed", method = "both", save_input;
  double eps = -1, keep = -1;
  unsigned long long seed = 1;
  efield::Backend backend = efield::Backend::Auto;
  CLI::Option* input_opt =
      app.add_option("--input", input, "8-bit PNG (grey or RGB; alpha is dropped)")->type_name("FILE.png");
  CLI::Option* generate_opt = app.add_option("--generate", generate, "a synthetic RGB test picture of that size instead")
                                  ->type_name("WxH")
                                  ->check(efield::bench::grid_size_check());
  auto* picture = app.add_option_group("picture", "one of --input and --generate");
  picture->add_option(input_opt);
  picture->add_option(generate_opt);
  picture->require_option(1);
  CLI::Option* eps_opt =
      app.add_option("--eps", eps,
                     "threshold on the unnormalized coefficients (docs/math.md dct2: the whole-image DC is the pixel "
                     "sum, a blocked DC the sum of 64 pixels, so one eps means different things for the two methods)")
          ->check(CLI::NonNegativeNumber)
          ->type_name("E");
  CLI::Option* keep_opt = app.add_option("--keep", keep,
                                         "choose eps per method so that this fraction (0..1) of the coefficients is "
                                         "kept (the fair comparison)")
                              ->check(CLI::Range(0.0, 1.0))
                              ->type_name("FRACTION");
  auto* threshold = app.add_option_group("threshold", "one of --eps and --keep");
  threshold->add_option(eps_opt);
  threshold->add_option(keep_opt);
  threshold->require_option(1);
  app.add_option("--output", output, "writes PREFIX_whole.png and/or PREFIX_blocked.png")
      ->type_name("PREFIX")
      ->capture_default_str();
  app.add_option("--method", method, "whole, blocked or both")
      ->check(CLI::IsMember({"whole", "blocked", "both"}))
      ->capture_default_str();
  std::string backend_name = "auto";
  app.add_option("--backend", backend_name, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of --generate")->check(efield::bench::seed_check())->capture_default_str();
  app.add_option("--save-input", save_input, "also write the input picture (useful with --generate)")
      ->type_name("FILE.png");
  CLI11_PARSE(app, argc, argv);
  if (backend_name == "cpu") backend = efield::Backend::Cpu;
  if (backend_name == "cuda") backend = efield::Backend::Cuda;

  try {
    efield::Image image;
    if (!input.empty()) {
      image = efield::read_png(input);
    } else {
      const efield::bench::GridSize size = efield::bench::parse_grid_size(generate);  // width x height
      image = efield::generate_test_image(size.rows, size.cols, 3, seed);
    }
    if (!save_input.empty()) efield::write_png(save_input, image);
    std::printf("image: %s, %d x %d, %d channel(s); backend %s\n", input.empty() ? "generated" : input.c_str(),
                image.width, image.height, image.channels,
                efield::to_string(efield::resolve_backend(backend)));

    std::vector<efield::CompressionMethod> methods;
    if (method != "blocked") methods.push_back(efield::CompressionMethod::WholeImage);
    if (method != "whole") methods.push_back(efield::CompressionMethod::Blocked8);
    std::printf("%-12s %14s %10s %12s %12s  %s\n", "method", "eps", "kept", "PSNR float", "PSNR 8-bit", "output");
    for (const auto m : methods) {
      efield::CompressionOptions options;
      options.method = m;
      options.backend = backend;
      const double e = keep >= 0 ? efield::eps_for_kept_fraction(image, keep, options) : eps;
      efield::ImageCompressor compressor(image.width, image.height, e, options);
      efield::Image out;
      const efield::CompressionStats stats = compressor.compress(image, out);
      const std::string path =
          output + (m == efield::CompressionMethod::WholeImage ? "_whole.png" : "_blocked.png");
      efield::write_png(path, out);
      std::printf("%-12s %14.6g %9.4f%% %12s %12s  %s\n", efield::to_string(m), stats.eps, 100 * stats.kept_fraction,
                  psnr_text(stats.psnr).c_str(), psnr_text(efield::psnr(image, quantized(out))).c_str(),
                  path.c_str());
    }
  } catch (const efield::Error& e) {
    std::fprintf(stderr, "efield_compress: %s\n", e.what());
    return 1;
  }
  return 0;
}
