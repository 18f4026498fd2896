#include "common/bench_args.hpp"

#include <charconv>
#include <cstring>

#include "efield/error.hpp"

namespace efield::bench {
namespace {

template <typename T>
T parse_number(const std::string& flag, const std::string& text) {
  T value{};
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw Error(flag + ": expected a number, got '" + text + "'");
  return value;
}

}  // namespace

const char* bench_usage() {
  return R"(usage: bench_ispd [options]
Times one evaluate of the electrostatic density system (density map, FFTs, field, energy,
gradient) on a placement design. With no arguments it runs the embedded default: a synthetic
design of 50,000 cells (40 macros, 200 I/O pads, 70% utilization) generated in memory.

design (one of):
  --aux FILE             a Bookshelf design (ISPD2005/2006, ICCAD04); without .nets is fine
  --synthetic N          a synthetic design of N movable cells (built-in size mix)
  --suite [DIR]          the eight ISPD2005 designs (adaptec1-4, bigblue1-4): real files from DIR
                         (DIR/<name>/<name>.aux or DIR/<name>.aux) where present, otherwise
                         synthetic stand-ins with each design's published cell count, terminal
                         count and utilization, labelled "-synthetic"
  --only NAME[,NAME]     with --suite: run only these designs (e.g. adaptec1,bigblue1)
  --design-seed S        seed of synthetic designs (default 1)
evaluation:
  --bins MxN             bin grid (default: DREAMPlace's for ISPD2005 designs, else the
                         RePlAce/DREAMPlace rule from the mean cell area)
  --device cuda|cpu|auto backend (default auto: CUDA when a device is present)
  --precision f32|f64    arithmetic (default f32)
  --placement uniform|center|file
                         movable cells uniformly random, in a Gaussian cluster at the centre
                         (sigma 5% of the region, DREAMPlace's start; the default), or at their
                         .pl positions; fillers always uniformly random
  --target-density TD    in (0, 1] (default 1.0)
  --iters N              timed evaluates after warm-up (default 50)
  --warmup N             untimed evaluates first (default 5)
  --threads N            CPU backend threads (default: all)
  --no-stages            skip the per-stage split
  --seed S               seed of the initial positions (default 1)
output:
  --json FILE            results for machines
  --markdown FILE        the summary table with GPU, date and commit (for bench_ispd/results/)
  --png PREFIX           heat maps PREFIX_<design>_{density,potential,field}.png
  --write DIR            also write the design as Bookshelf files into DIR (not with --suite)
  --quiet                no progress display on stderr
  --help                 this text
)";
}

BenchArgs parse_bench_args(int argc, char** argv) {
  BenchArgs a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(flag + ": expects a value (see --help)");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") a.help = true;
    else if (flag == "--aux") a.aux = value();
    else if (flag == "--suite") {
      a.suite = true;
      if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) a.suite_dir = argv[++i];
    } else if (flag == "--only") a.only = value();
    else if (flag == "--synthetic") a.synthetic_cells = parse_number<std::int64_t>(flag, value());
    else if (flag == "--design-seed") a.design_seed = parse_number<std::uint64_t>(flag, value());
    else if (flag == "--write") a.write_dir = value();
    else if (flag == "--json") a.json_path = value();
    else if (flag == "--markdown") a.markdown_path = value();
    else if (flag == "--png") a.run.png_prefix = value();
    else if (flag == "--quiet") a.quiet = true;
    else if (flag == "--no-stages") a.run.profile_stages = false;
    else if (flag == "--iters") a.run.iterations = parse_number<int>(flag, value());
    else if (flag == "--warmup") a.run.warmup = parse_number<int>(flag, value());
    else if (flag == "--threads") a.run.cpu_threads = parse_number<int>(flag, value());
    else if (flag == "--seed") a.run.seed = parse_number<std::uint64_t>(flag, value());
    else if (flag == "--target-density") a.run.target_density = parse_number<double>(flag, value());
    else if (flag == "--placement") a.run.placement = parse_initial_placement(value());
    else if (flag == "--precision") {
      const std::string p = value();
      if (p == "f32" || p == "float") a.run.precision = Precision::Float;
      else if (p == "f64" || p == "double") a.run.precision = Precision::Double;
      else throw Error("--precision '" + p + "' is unknown (use f32 or f64)");
    } else if (flag == "--device") {
      const std::string d = value();
      if (d == "cuda") a.run.backend = Backend::Cuda;
      else if (d == "cpu") a.run.backend = Backend::Cpu;
      else if (d == "auto") a.run.backend = Backend::Auto;
      else throw Error("--device '" + d + "' is unknown (use cuda, cpu or auto)");
    } else if (flag == "--bins") {
      const std::string b = value();
      const auto x = b.find_first_of("xX");
      if (x == std::string::npos) throw Error("--bins: expected MxN (e.g. 512x512), got '" + b + "'");
      a.run.bins_x = parse_number<int>("--bins", b.substr(0, x));
      a.run.bins_y = parse_number<int>("--bins", b.substr(x + 1));
      if (a.run.bins_x < 1 || a.run.bins_y < 1) throw Error("--bins: both counts must be at least 1, got '" + b + "'");
    } else {
      throw Error("unknown argument '" + flag + "' (see --help)");
    }
  }
  const int sources = !a.aux.empty() + a.suite + (a.synthetic_cells > 0);
  if (sources > 1) throw Error("--aux, --suite and --synthetic exclude one another");
  if (!a.only.empty() && !a.suite) throw Error("--only selects designs of --suite");
  if (a.synthetic_cells < 0) throw Error("--synthetic: the cell count must be positive");
  if (a.suite && !a.write_dir.empty()) throw Error("--write works on one design, not with --suite");
  if (a.run.iterations < 1) throw Error("--iters must be at least 1");
  if (a.run.warmup < 0) throw Error("--warmup must not be negative");
  return a;
}

}  // namespace efield::bench
