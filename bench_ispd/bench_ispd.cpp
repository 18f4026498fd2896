// bench_ispd: times the electrostatic density system (efield::ElectrostaticSystem) on placement
// designs: a Bookshelf design (--aux), a synthetic one (--synthetic N), the ISPD2005 suite
// (--suite, real files where present, labelled synthetic stand-ins otherwise) or, with no
// arguments, the embedded default (a 50,000-cell synthetic design made in memory).
// See --help; the latest suite table is kept in bench_ispd/results/ispd_suite.md.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/bench_args.hpp"
#include "common/density_run.hpp"
#include "common/design_source.hpp"
#include "common/heatmap_png.hpp"
#include "common/progress.hpp"
#include "common/result_report.hpp"
#include "efield/efield.hpp"

namespace {

using namespace efield;
using namespace efield::bench;

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

void save_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(path + ": cannot create file");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw Error(path + ": write error");
}

std::string joined(int argc, char** argv) {
  std::string s = "bench_ispd";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

int run(int argc, char** argv) {
  const BenchArgs args = parse_bench_args(argc, argv);
  if (args.help) {
    std::fputs(bench_usage(), stdout);
    return 0;
  }
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
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\nbench_ispd: %s\n", e.what());
    return 1;
  }
}
