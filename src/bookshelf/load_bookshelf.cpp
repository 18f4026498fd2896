// load_bookshelf: reads the .aux, then each file into memory and through its parser.
#include <chrono>

#include "bookshelf/parsers.hpp"
#include "common/log.hpp"
#include "efield/error.hpp"

namespace efield {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

}  // namespace

Design load_bookshelf(const std::string& aux_path, const BookshelfLoadOptions& options, BookshelfLoadStats* stats) {
  using namespace bookshelf;
  const auto t_start = Clock::now();
  BookshelfLoadStats s;
  Design design;
  design.name = base_name(aux_path);

  auto t0 = Clock::now();
  const std::string aux_text = read_file(aux_path);
  LineReader aux_reader(aux_text, aux_path);
  const AuxFiles files = parse_aux(aux_reader, folder_of(aux_path));

  // The .nodes bytes stay alive to the end: the name index holds views into them.
  const std::string nodes_text = read_file(files.nodes, files.nodes_from);
  s.read_ms += ms_since(t0);
  s.bytes += aux_text.size() + nodes_text.size();
  NameIndex index;
  t0 = Clock::now();
  {
    LineReader reader(nodes_text, files.nodes);
    parse_nodes(reader, design, index);
  }
  s.nodes_ms = ms_since(t0);

  const bool nets_present = !files.nets.empty() && file_exists(files.nets);
  if (nets_present || !options.allow_missing_nets) {
    if (files.nets.empty())
      throw Error(aux_path + ": names no .nets file (load with allow_missing_nets for density-only work)");
    t0 = Clock::now();
    const std::string text = read_file(files.nets, files.nets_from);
    s.read_ms += ms_since(t0);
    s.bytes += text.size();
    t0 = Clock::now();
    LineReader reader(text, files.nets);
    s.pins_off_centre = parse_nets(reader, index, design);
    s.nets_ms = ms_since(t0);
  } else {
    detail::log().info("{}: no .nets file{}; loaded for density-only work", aux_path,
                       files.nets.empty() ? std::string() : " (" + files.nets + " is absent)");
  }

  // The .wts file is optional (ISPD2005's hold only a header).
  if (!files.wts.empty() && file_exists(files.wts)) {
    t0 = Clock::now();
    const std::string text = read_file(files.wts, files.wts_from);
    s.read_ms += ms_since(t0);
    s.bytes += text.size();
    t0 = Clock::now();
    LineReader reader(text, files.wts);
    parse_wts(reader, index, design);
    s.wts_ms = ms_since(t0);
  }

  for (const auto& [path, from, parse] :
       {std::tuple{&files.pl, &files.pl_from, 0}, std::tuple{&files.scl, &files.scl_from, 1}}) {
    t0 = Clock::now();
    const std::string text = read_file(*path, *from);
    s.read_ms += ms_since(t0);
    s.bytes += text.size();
    t0 = Clock::now();
    LineReader reader(text, *path);
    if (parse == 0) {
      parse_pl(reader, index, design);
      s.pl_ms = ms_since(t0);
    } else {
      parse_scl(reader, design);
      s.scl_ms = ms_since(t0);
    }
  }
  s.total_ms = ms_since(t_start);
  detail::log().info("{}: {} nodes ({} terminals), {} nets, {} pins, {} rows in {:.1f} ms", aux_path,
                     design.num_nodes(), design.num_terminals(), design.num_nets(), design.num_pins(),
                     design.rows.size(), s.total_ms);
  if (stats) *stats = s;
  return design;
}

}  // namespace efield
