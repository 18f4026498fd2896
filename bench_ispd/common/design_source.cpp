#include "common/design_source.hpp"

#include <chrono>
#include <filesystem>

namespace efield::bench {
namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

BenchDesign load_design(const std::string& aux_path) {
  BenchDesign b;
  const auto t0 = std::chrono::steady_clock::now();
  BookshelfLoadOptions options;
  options.allow_missing_nets = true;
  b.design = load_bookshelf(aux_path, options);
  b.obtain_ms = ms_since(t0);
  b.label = b.design.name;
  b.source = aux_path;
  return b;
}

BenchDesign generate_design(const SyntheticDesignSpec& spec) {
  BenchDesign b;
  const auto t0 = std::chrono::steady_clock::now();
  b.design = generate_synthetic_design(spec);
  b.obtain_ms = ms_since(t0);
  b.label = spec.name;
  b.synthetic = true;
  b.source = "generated (seed " + std::to_string(spec.seed) + ")";
  return b;
}

std::string find_ispd2005_aux(const std::string& dir, const std::string& name) {
  for (const std::string& path : {dir + "/" + name + "/" + name + ".aux", dir + "/" + name + ".aux"})
    if (std::filesystem::exists(path)) return path;
  return {};
}

}  // namespace efield::bench
