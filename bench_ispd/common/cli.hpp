#pragma once
// Command-line pieces the benchmarks and tools share (CLI11): a ROWSxCOLS size, and writing a
// result file.
#include <CLI/CLI.hpp>

#include <string>

namespace efield::bench {

struct GridSize {
  int rows = 0;
  int cols = 0;
};

// "ROWSxCOLS" (or "ROWSXCOLS"; efield_compress reads WxH the same way), both whole numbers of at
// least 1; throws CLI::ValidationError saying what was expected.
GridSize parse_grid_size(const std::string& text);

// A CLI11 check for options that hold ROWSxCOLS (parse_grid_size's rule).
CLI::Validator grid_size_check();

// A CLI11 check for a whole number of at least `min` ("must be at least 1, got 0").
CLI::Validator at_least(long long min);

// A CLI11 check for a seed: a whole number in 0..2^64-1 ("-1" is refused, not wrapped around).
CLI::Validator seed_check();

// Writes `text` to `path`; throws efield::Error naming the file.
void save_text(const std::string& path, const std::string& text);

}  // namespace efield::bench
