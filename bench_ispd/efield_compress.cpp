// efield_compress: DCT image compression from the command line (DCT paper, Algorithm 3).
// Reads a PNG (or makes a test picture), compresses every channel with the whole-image DCT and
// with the 8x8-blocked DCT, writes the reconstructions, and prints kept fraction and PSNR.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "efield/efield.hpp"

namespace {

void print_usage(std::FILE* f) {
  std::fprintf(f,
               "usage: efield_compress (--input FILE.png | --generate WxH) (--eps E | --keep FRACTION)\n"
               "                       [--output PREFIX] [--method whole|blocked|both]\n"
               "                       [--backend auto|cpu|cuda] [--seed N] [--save-input FILE.png]\n"
               "\n"
               "Compresses every channel of an image with the DCT: B = dct2(A), coefficients with\n"
               "|B| < eps set to 0 (fused into the transform), then the normalized idct2 back.\n"
               "  whole    one dct2 of each whole channel (efield::Plan2D)\n"
               "  blocked  dct2 of every 8x8 block, as in JPEG (efield::BlockedDct8); sides that are not\n"
               "           multiples of 8 are padded by repeating the edge\n"
               "\n"
               "  --input FILE.png   8-bit PNG (grey or RGB; alpha is dropped)\n"
               "  --generate WxH     a synthetic RGB test picture of that size instead (e.g. 512x384)\n"
               "  --eps E            threshold on the unnormalized coefficients (docs/math.md dct2: the\n"
               "                     whole-image DC is the pixel sum, a blocked DC the sum of 64\n"
               "                     pixels, so one eps means different things for the two methods)\n"
               "  --keep FRACTION    choose eps per method so that this fraction (0..1) of the\n"
               "                     coefficients is kept (the fair comparison)\n"
               "  --output PREFIX    writes PREFIX_whole.png and/or PREFIX_blocked.png (default: compressed)\n"
               "  --method M         whole, blocked or both (default both)\n"
               "  --backend B        auto (default), cpu or cuda\n"
               "  --seed N           seed of --generate (default 1)\n"
               "  --save-input FILE  also write the input picture (useful with --generate)\n"
               "\n"
               "PSNR is 10 log10(255^2 / MSE) against the input; 'float' before 8-bit rounding,\n"
               "'8-bit' of the PNG written.\n");
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "efield_compress: %s\n(see efield_compress --help)\n", message.c_str());
  std::exit(2);
}

double parse_number(const std::string& flag, const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v)) usage_error(flag + " needs a number, got '" + text + "'");
  return v;
}

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
  std::string input, generate, output = "compressed", method = "both", backend_name = "auto", save_input;
  double eps = -1, keep = -1;
  unsigned long long seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      return 0;
    } else if (arg == "--input") {
      input = value();
    } else if (arg == "--generate") {
      generate = value();
    } else if (arg == "--eps") {
      eps = parse_number(arg, value());
      if (eps < 0) usage_error("--eps must be >= 0");
    } else if (arg == "--keep") {
      keep = parse_number(arg, value());
      if (keep < 0 || keep > 1) usage_error("--keep must lie in [0, 1]");
    } else if (arg == "--output") {
      output = value();
    } else if (arg == "--method") {
      method = value();
    } else if (arg == "--backend") {
      backend_name = value();
    } else if (arg == "--seed") {
      seed = static_cast<unsigned long long>(parse_number(arg, value()));
    } else if (arg == "--save-input") {
      save_input = value();
    } else {
      usage_error("unknown argument '" + arg + "'");
    }
  }
  if (input.empty() == generate.empty()) usage_error("give exactly one of --input FILE.png and --generate WxH");
  if ((eps >= 0) == (keep >= 0)) usage_error("give exactly one of --eps E and --keep FRACTION");
  if (method != "whole" && method != "blocked" && method != "both")
    usage_error("--method must be whole, blocked or both, got '" + method + "'");
  efield::Backend backend = efield::Backend::Auto;
  if (backend_name == "cpu") backend = efield::Backend::Cpu;
  else if (backend_name == "cuda") backend = efield::Backend::Cuda;
  else if (backend_name != "auto") usage_error("--backend must be auto, cpu or cuda, got '" + backend_name + "'");

  try {
    efield::Image image;
    if (!input.empty()) {
      image = efield::read_png(input);
    } else {
      int w = 0, h = 0;
      char extra = 0;
      if (std::sscanf(generate.c_str(), "%dx%d%c", &w, &h, &extra) != 2 || w <= 0 || h <= 0)
        usage_error("--generate needs WxH with positive sizes, e.g. 512x384, got '" + generate + "'");
      image = efield::generate_test_image(w, h, 3, seed);
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
