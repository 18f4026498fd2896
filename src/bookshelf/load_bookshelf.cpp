// load_bookshelf: reads the .aux, then each file into memory and through its parser.
#include <chrono>
#include <new>

#include "bookshelf/file_source.hpp"
#include "bookshelf/parsers.hpp"
#include "common/log.hpp"
#include "efield/error.hpp"

namespace efield {
namespace bookshelf {
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

// Runs one parser over `text`; running out of memory in it (a vector growing with the file's
// content) becomes an efield::Error naming the file and how far the design had come. The
// reservations sized from header counts report their own size (LineReader::reserve).
template <typename Parse>
void parse_file(const std::string& path, const std::string& text, const Design& design, Parse&& parse) {
  try {
    LineReader reader(text, path);
    parse(reader);
  } catch (const std::bad_alloc&) {
    throw Error(path + ": out of memory while parsing its " + std::to_string(text.size()) + " bytes (the design held " +
                std::to_string(design.node_names.size()) + " nodes, " + std::to_string(design.net_names.size()) +
                " nets and " + std::to_string(design.pins.size()) + " pins so far)");
  }
}

}  // namespace

Design load_design(const std::string& aux_path, const FileSource& source, const BookshelfLoadOptions& options,
                   BookshelfLoadStats* stats) {
  const auto t_start = Clock::now();
  BookshelfLoadStats s;
  Design design;
  design.name = base_name(aux_path);

  auto t0 = Clock::now();
  const std::string aux_text = source.read(aux_path, {});
  AuxFiles files;
  parse_file(aux_path, aux_text, design,
             [&](LineReader& reader) { files = parse_aux(reader, folder_of(aux_path)); });

  // The .nodes bytes stay alive to the end: the name index holds views into them.
  const std::string nodes_text = source.read(files.nodes, files.nodes_from);
  s.read_ms += ms_since(t0);
  s.bytes += aux_text.size() + nodes_text.size();
  NameIndex index;
  t0 = Clock::now();
  parse_file(files.nodes, nodes_text, design, [&](LineReader& reader) { parse_nodes(reader, design, index); });
  s.nodes_ms = ms_since(t0);

  const bool nets_present = !files.nets.empty() && source.exists(files.nets);
  if (nets_present || !options.allow_missing_nets) {
    if (files.nets.empty())
      throw Error(aux_path + ": names no .nets file (load with allow_missing_nets for density-only work)");
    t0 = Clock::now();
    const std::string text = source.read(files.nets, files.nets_from);
    s.read_ms += ms_since(t0);
    s.bytes += text.size();
    t0 = Clock::now();
    parse_file(files.nets, text, design,
               [&](LineReader& reader) { s.pins_off_centre = parse_nets(reader, index, design); });
    s.nets_ms = ms_since(t0);
  } else {
    detail::log().info("{}: no .nets file{}; loaded for density-only work", aux_path,
                       files.nets.empty() ? std::string() : " (" + files.nets + " is absent)");
  }

  // The .wts file is optional (ISPD2005's hold only a header).
  if (!files.wts.empty() && source.exists(files.wts)) {
    t0 = Clock::now();
    const std::string text = source.read(files.wts, files.wts_from);
    s.read_ms += ms_since(t0);
    s.bytes += text.size();
    t0 = Clock::now();
    parse_file(files.wts, text, design, [&](LineReader& reader) { parse_wts(reader, index, design); });
    s.wts_ms = ms_since(t0);
  }

  for (const auto& [path, from, parse] :
       {std::tuple{&files.pl, &files.pl_from, 0}, std::tuple{&files.scl, &files.scl_from, 1}}) {
    t0 = Clock::now();
    const std::string text = source.read(*path, *from);
    s.read_ms += ms_since(t0);
    s.bytes += text.size();
    t0 = Clock::now();
    if (parse == 0) {
      parse_file(*path, text, design, [&](LineReader& reader) { parse_pl(reader, index, design); });
      s.pl_ms = ms_since(t0);
    } else {
      parse_file(*path, text, design, [&](LineReader& reader) { parse_scl(reader, design); });
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

}  // namespace bookshelf

Design load_bookshelf(const std::string& aux_path, const BookshelfLoadOptions& options, BookshelfLoadStats* stats) {
  return bookshelf::load_design(aux_path, bookshelf::DiskFiles{}, options, stats);
}

}  // namespace efield
