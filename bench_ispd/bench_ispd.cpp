// bench_ispd: times the electrostatic density system (efield::ElectrostaticSystem) on placement
// designs: a Bookshelf design (--aux), a synthetic one (--synthetic N), the ISPD2005 suite
// (--suite, real files where present, labelled synthetic stand-ins otherwise) or, with no
// arguments, the embedded default (a 50,000-cell synthetic design made in memory).
// See --help; the latest suite table is kept in bench_ispd/results/ispd_suite.md.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "common/cli.hpp"
#include "common/density_run.hpp"
#include "common/design_source.hpp"
#include "common/heatmap_png.hpp"
#include "common/progress.hpp"
#include "common/result_report.hpp"
#include "efield/efield.hpp"

namespace {

using namespace efield;
using namespace efield::bench;

struct BenchArgs {
  std::string aux;                       // --aux
  bool suite = false;                    // --suite [DIR]
  std::string suite_dir;                 // where real ISPD2005 files are looked for ("" = none)
  std::string only;                      // --only a,b: the suite's designs to run ("" = all)
  std::int64_t synthetic_cells = 0;      // --synthetic N (0 = not asked)
  std::uint64_t design_seed = 1;         // --design-seed
  std::string write_dir;                 // --write DIR: the design as Bookshelf files
  std::string json_path, markdown_path;  // --json, --markdown
  bool quiet = false;
  RunOptions run;
};

// The command line; returns false after CLI11 has printed --help or an error (exit status in
// `status`).
bool parse_command_line(int argc, char** argv, BenchArgs& a, int& status) {
  CLI::App app{
      "Times one evaluate of the electrostatic density system (density map, FFTs, field, energy, gradient) on a "
      "placement design. With no arguments it runs the embedded default: a synthetic design of 50,000 cells (40 "
      "macros, 200 I/O pads, 70% utilization) generated in memory.",
      "bench_ispd"};
  // Design (one of).
  CLI::Option* aux = app.add_option("--aux", a.aux, "a Bookshelf design (ISPD2005/2006, ICCAD04); without .nets is fine")
                         ->type_name("FILE")
                         ->check(CLI::Validator(CLI::ExistingFile).description(""))
                         ->group("Design (one of)");
  CLI::Option* synthetic = app.add_option("--synthetic", a.synthetic_cells,
                                          "a synthetic design of N movable cells (built-in size mix)")
                               ->type_name("N")
                               ->check(at_least(1))
                               ->group("Design (one of)");
  CLI::Option* suite =
      app.add_option("--suite", a.suite_dir,
                     "the eight ISPD2005 designs (adaptec1-4, bigblue1-4): real files from DIR (DIR/<name>/<name>.aux or "
                     "DIR/<name>.aux) where present, otherwise synthetic stand-ins with each design's published cell "
                     "count, terminal count and utilization, labelled \"-synthetic\"")
          ->type_name("[DIR]")
          ->expected(0, 1)
          ->group("Design (one of)");
  aux->excludes(synthetic)->excludes(suite);
  synthetic->excludes(suite);
  app.add_option("--only", a.only, "with --suite: run only these designs (e.g. adaptec1,bigblue1)")
      ->type_name("NAME[,NAME]")
      ->needs(suite)
      ->group("Design (one of)");
  app.add_option("--design-seed", a.design_seed, "seed of synthetic designs")->check(seed_check())
      ->capture_default_str()
      ->group("Design (one of)");
  // Evaluation.
  const char* evaluation = "Evaluation";
  std::string bins;
  app.add_option("--bins", bins,
                 "bin grid (default: DREAMPlace's for ISPD2005 designs, else the RePlAce/DREAMPlace rule from the "
                 "mean cell area)")
      ->type_name("MxN")
      ->check(grid_size_check())
      ->group(evaluation);
  std::string device = "auto", precision = "f32";
  app.add_option("--device", device, "backend (auto: CUDA when a device is present)")
      ->check(CLI::IsMember({"cuda", "cpu", "auto"}))
      ->capture_default_str()
      ->group(evaluation);
  app.add_option("--precision", precision, "arithmetic")
      ->check(CLI::IsMember({"f32", "f64", "float", "double"}))
      ->capture_default_str()
      ->group(evaluation);
  std::string placement = to_string(a.run.placement);
  app.add_option("--placement", placement,
                 "movable cells uniformly random, in a Gaussian cluster at the centre (sigma 5% of the region, "
                 "DREAMPlace's start), or at their .pl positions; fillers always uniformly random")
      ->check(CLI::IsMember({"uniform", "center", "file"}))
      ->capture_default_str()
      ->group(evaluation);
  const CLI::Validator density_range(
      [](std::string& text) {
        double v = 0;
        return CLI::detail::lexical_cast(text, v) && v > 0 && v <= 1 ? std::string()
                                                                        : "must lie in (0, 1], got " + text;
      },
      "", "(0, 1]");
  app.add_option("--target-density", a.run.target_density, "target density, in (0, 1]")
      ->check(density_range)
      ->type_name("TD")
      ->capture_default_str()
      ->group(evaluation);
  app.add_option("--iters", a.run.iterations, "timed evaluates after warm-up")
      ->check(at_least(1))
      ->capture_default_str()
      ->group(evaluation);
  app.add_option("--warmup", a.run.warmup, "untimed evaluates first")
      ->check(at_least(0))
      ->capture_default_str()
      ->group(evaluation);
  app.add_option("--threads", a.run.cpu_threads, "CPU backend threads (0: all)")
      ->check(at_least(0))
      ->capture_default_str()
      ->group(evaluation);
  bool no_stages = false;
  app.add_flag("--no-stages", no_stages, "skip the per-stage split")->group(evaluation);
  app.add_option("--seed", a.run.seed, "seed of the initial positions")
      ->check(seed_check())
      ->capture_default_str()
      ->group(evaluation);
  // Output.
  const char* output = "Output";
  app.add_option("--json", a.json_path, "results for machines")->type_name("FILE")->group(output);
  app.add_option("--markdown", a.markdown_path, "the summary table with GPU, date and commit (for bench_ispd/results/)")
      ->type_name("FILE")
      ->group(output);
  app.add_option("--png", a.run.png_prefix, "heat maps PREFIX_<design>_{density,potential,field}.png")
      ->type_name("PREFIX")
      ->group(output);
  app.add_option("--write", a.write_dir, "also write the design as Bookshelf files into DIR (made if missing)")
      ->type_name("DIR")
      ->excludes(suite)
      ->group(output);
  app.add_flag("--quiet", a.quiet, "no progress display on stderr")->group(output);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    status = app.exit(e);
    return false;
  }
  a.suite = suite->count() > 0;
  a.run.profile_stages = !no_stages;
  a.run.placement = parse_initial_placement(placement);
  a.run.backend = device == "cuda" ? Backend::Cuda : device == "cpu" ? Backend::Cpu : Backend::Auto;
  a.run.precision = precision == "f64" || precision == "double" ? Precision::Double : Precision::Float;
  if (!bins.empty()) {
    const GridSize g = parse_grid_size(bins);
    a.run.bins_x = g.rows;
    a.run.bins_y = g.cols;
  }
  return true;
}

// The designs to run, in order; each is obtained just before it runs (the suite's largest
// stand-ins take a while to generate and memory to hold).
struct DesignRequest {
  std::string label;
  std::string aux;            // load this when set
  SyntheticDesignSpec spec;   // else generate this
};

std::vector<DesignRequest> requested_designs(const BenchArgs& a) {
  std::vector<DesignRequest> out;
  if (a.suite) {
    for (const auto& d : ispd2005_designs()) {
      if (!a.only.empty() && ("," + a.only + ",").find("," + std::string(d.name) + ",") == std::string::npos) continue;
      DesignRequest r;
      r.label = d.name;
      if (!a.suite_dir.empty()) r.aux = find_ispd2005_aux(a.suite_dir, d.name);
      if (r.aux.empty()) r.spec = ispd2005_standin_spec(d.name, a.design_seed);
      out.push_back(std::move(r));
    }
    if (out.empty()) throw Error("--only '" + a.only + "' names no ISPD2005 design (adaptec1-4, bigblue1-4)");
    return out;
  }
  DesignRequest r;
  if (!a.aux.empty()) {
    r.aux = a.aux;
  } else if (a.synthetic_cells > 0) {
    r.spec = default_synthetic_spec();
    r.spec.num_movable = a.synthetic_cells;
    r.spec.name = "synthetic" + std::to_string(a.synthetic_cells);
    r.spec.seed = a.design_seed;
  } else {
    r.spec = default_synthetic_spec();
    r.spec.seed = a.design_seed;
  }
  r.label = r.aux.empty() ? r.spec.name : r.aux;
  out.push_back(std::move(r));
  return out;
}

std::string joined(int argc, char** argv) {
  std::string s = "bench_ispd";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

int run(const BenchArgs& args, int argc, char** argv) {
  if (!args.run.png_prefix.empty() && !png_supported())
    throw Error("--png: efield was built without stb (libstb-dev), so it cannot write PNG files");
  Progress progress(args.quiet);
  const std::vector<DesignRequest> requests = requested_designs(args);
  std::vector<RunResult> results;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const DesignRequest& req = requests[k];
    const std::string prefix = requests.size() > 1
                                   ? "[" + std::to_string(k + 1) + "/" + std::to_string(requests.size()) + "] "
                                   : std::string();
    BenchDesign design;
    if (!req.aux.empty()) {
      progress.step(prefix, "loading " + req.aux);
      design = load_design(req.aux);
    } else {
      progress.step(prefix, "generating " + req.spec.name + " (" + std::to_string(req.spec.num_movable) + " cells)");
      design = generate_design(req.spec);
    }
    progress.done(std::to_string(design.design.num_nodes()) + " nodes, " + std::to_string(design.design.num_nets()) +
                  " nets");
    if (!args.write_dir.empty()) {
      progress.step(prefix, "writing " + args.write_dir + "/" + design.label + ".aux");
      std::error_code made;
      std::filesystem::create_directories(args.write_dir, made);
      if (made) throw Error("--write: cannot create directory " + args.write_dir + ": " + made.message());
      write_bookshelf(design.design, args.write_dir, design.label);
      progress.done();
    }
    results.push_back(run_density(design, args.run, progress, prefix + design.label + ": "));
  }

  const std::string command = joined(argc, argv);
  std::printf("\n%s", summary_table(results).c_str());
  if (!args.json_path.empty()) {
    save_text(args.json_path, json_report(results, command) + "\n");
    std::fprintf(stderr, "wrote %s\n", args.json_path.c_str());
  }
  if (!args.markdown_path.empty()) {
    save_text(args.markdown_path, markdown_report(results, command));
    std::fprintf(stderr, "wrote %s\n", args.markdown_path.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  BenchArgs args;
  int status = 0;
  if (!parse_command_line(argc, argv, args, status)) return status;
  try {
    return run(args, argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nbench_ispd: %s\n", e.what());
    return 1;
  }
}
