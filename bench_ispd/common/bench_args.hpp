#pragma once
// bench_ispd's command line.
#include <cstdint>
#include <optional>
#include <string>

#include "common/density_run.hpp"

namespace efield::bench {

struct BenchArgs {
  std::string aux;                        // --aux
  bool suite = false;                     // --suite [DIR]
  std::string suite_dir;                  // where real ISPD2005 files are looked for ("" = none)
  std::string only;                       // --only a,b: the suite's designs to run ("" = all)
  std::int64_t synthetic_cells = 0;       // --synthetic N (0 = not asked)
  std::uint64_t design_seed = 1;          // --design-seed
  std::string write_dir;                  // --write DIR: the design as Bookshelf files
  std::string json_path, markdown_path;   // --json, --markdown
  bool quiet = false;
  bool help = false;
  RunOptions run;
};

// Throws efield::Error naming the flag for anything it cannot read.
BenchArgs parse_bench_args(int argc, char** argv);
const char* bench_usage();

}  // namespace efield::bench
